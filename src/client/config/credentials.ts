/**
 * Credentials held in the kubeconfig or in files it names: a token, a token file, a client certificate and
 * key. Files are re-read when they change (checked at most once a period, or at once after a 401), so a
 * rotated token or certificate is picked up without restarting the client.
 */
import { readFileSync, statSync } from 'node:fs';
import type { CredentialSource, Credentials } from '../contract.js';

/** How often a credential file is looked at again, as the reference client re-reads token files. */
export const FILE_RECHECK_MS = 60_000;

export type Now = () => number;

/** A file's text, re-read when its size or modification time changes; looked at no more than every `periodMs`. */
export class RefreshingFile {
  private text: string;
  private stamp: string;
  private checkedAt: number;

  constructor(
    readonly path: string,
    readonly what: string,
    private readonly periodMs = FILE_RECHECK_MS,
    private readonly now: Now = Date.now,
  ) {
    this.stamp = this.statStamp();
    this.text = this.load();
    this.checkedAt = now();
  }

  private statStamp(): string {
    try {
      const s = statSync(this.path);
      return `${s.size}:${s.mtimeMs}:${s.ino}`;
    } catch (e) {
      throw new Error(`${this.what}: cannot read ${this.path}: ${(e as Error).message}`);
    }
  }

  private load(): string {
    try {
      return readFileSync(this.path, 'utf8');
    } catch (e) {
      throw new Error(`${this.what}: cannot read ${this.path}: ${(e as Error).message}`);
    }
  }

  /** The current text; a file that has become unreadable keeps its last good text (the next check retries). */
  read(): string {
    if (this.now() - this.checkedAt >= this.periodMs) this.refresh();
    return this.text;
  }

  /** Looks at the file now (after a 401 the credentials may have been rotated on disk). */
  refresh(): void {
    this.checkedAt = this.now();
    try {
      const stamp = this.statStamp();
      if (stamp === this.stamp) return;
      this.text = this.load();
      this.stamp = stamp;
    } catch {
      // Keep the last text: a file caught mid-rotation is retried at the next check.
    }
  }
}

/** One value given either inline (already decoded) or by a file. */
export type Material = { inline: string } | { file: RefreshingFile };

const materialText = (m: Material): string => ('inline' in m ? m.inline : m.file.read());

export interface StaticCredentialParts {
  token?: Material;
  cert?: Material;
  key?: Material;
}

/** Credentials from the kubeconfig itself or files it names; `invalidate` re-checks the files at once. */
export function staticCredentials(parts: StaticCredentialParts): CredentialSource {
  const files = [parts.token, parts.cert, parts.key].flatMap((m) => (m && 'file' in m ? [m.file] : []));
  const onlyInline = files.length === 0;
  const fixed: Credentials = {};
  if (parts.token && 'inline' in parts.token) fixed.token = parts.token.inline;
  if (parts.cert && 'inline' in parts.cert) fixed.certPem = parts.cert.inline;
  if (parts.key && 'inline' in parts.key) fixed.keyPem = parts.key.inline;
  // Inline credentials are one object for the life of the client: no work per request.
  if (onlyInline) return { get: () => fixed };
  return {
    get(): Credentials {
      const out: Credentials = {};
      if (parts.token) out.token = materialText(parts.token).trim();
      if (parts.cert) out.certPem = materialText(parts.cert);
      if (parts.key) out.keyPem = materialText(parts.key);
      return out;
    },
    invalidate(): void {
      for (const f of files) f.refresh();
    },
  };
}
