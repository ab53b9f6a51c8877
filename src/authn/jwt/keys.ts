/**
 * An issuer's signing keys: its discovery document and the JWKS it names, fetched over HTTPS with the
 * configured CA and kept in memory. Requests never wait on the issuer for keys already known; a token naming
 * an unknown key id triggers a refetch, at most one at a time and not more often than a minimum interval, so
 * a flood of made-up key ids cannot hammer the issuer. An issuer that cannot be reached at start-up is
 * retried in the background with growing pauses until its keys arrive.
 */
import https from 'node:https';
import { publicKeysOfJwks, type PublicJwk } from './jws.js';
import { discoveryUrlOf, type JwtIssuer } from './types.js';

export interface IssuerKeysOptions {
  /** First pause after a failed start-up fetch; doubles up to `maxBackoffMs`. */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** Least time between two fetches that a token (rather than the start-up retry) asks for. */
  minRefreshIntervalMs?: number;
  /** Deadline of one HTTP exchange. */
  timeoutMs?: number;
  log?: (msg: string) => void;
}

const MAX_DOCUMENT_BYTES = 1024 * 1024;

export class IssuerKeys {
  private byKid = new Map<string, PublicJwk[]>();
  private all: PublicJwk[] = [];
  private jwksUri: string | undefined;
  private inflight: Promise<boolean> | undefined;
  private lastFetch = -Infinity;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly o: Required<Omit<IssuerKeysOptions, 'log'>> & Pick<IssuerKeysOptions, 'log'>;

  constructor(
    readonly issuer: JwtIssuer,
    options: IssuerKeysOptions = {},
  ) {
    this.o = {
      initialBackoffMs: options.initialBackoffMs ?? 500,
      maxBackoffMs: options.maxBackoffMs ?? 30_000,
      minRefreshIntervalMs: options.minRefreshIntervalMs ?? 5_000,
      timeoutMs: options.timeoutMs ?? 10_000,
      log: options.log,
    };
  }

  /** True once a JWKS has been fetched. */
  get loaded(): boolean {
    return this.all.length > 0;
  }

  /** Fetches the keys now, and keeps retrying in the background until that succeeds. */
  start(): void {
    const attempt = (pause: number) => {
      if (this.loaded || this.stopped) return; // a token's refetch may have got the keys meanwhile
      void this.fetch().then((ok) => {
        if (ok || this.stopped) return;
        this.timer = setTimeout(() => attempt(Math.min(pause * 2, this.o.maxBackoffMs)), pause);
        this.timer.unref();
      });
    };
    attempt(this.o.initialBackoffMs);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** The keys a token's `kid` may name; undefined when that id is unknown (or no keys are known yet). */
  candidates(kid: string | undefined): readonly PublicJwk[] | undefined {
    if (this.all.length === 0) return undefined;
    if (kid === undefined) return this.all;
    return this.byKid.get(kid);
  }

  /**
   * Refetches for a token whose key is not known: joins a fetch in progress, and skips (false) when the
   * last fetch was too recent. True when fresh keys arrived.
   */
  refresh(): Promise<boolean> {
    if (this.inflight) return this.inflight;
    if (performance.now() - this.lastFetch < this.o.minRefreshIntervalMs) return Promise.resolve(false);
    return this.fetch();
  }

  private fetch(): Promise<boolean> {
    if (this.inflight) return this.inflight;
    this.lastFetch = performance.now();
    this.inflight = this.load()
      .then(
        () => true,
        (e: Error) => {
          this.o.log?.(`oidc: fetching the keys of issuer ${this.issuer.url} failed: ${e.message}`);
          return false;
        },
      )
      .finally(() => (this.inflight = undefined));
    return this.inflight;
  }

  private async load(): Promise<void> {
    if (this.jwksUri === undefined) {
      const url = discoveryUrlOf(this.issuer);
      const doc = (await getJson(url, this.issuer.certificateAuthority, this.o.timeoutMs)) as { issuer?: unknown; jwks_uri?: unknown };
      if (doc.issuer !== this.issuer.url) {
        throw new Error(`oidc: issuer did not match the issuer returned by provider, expected "${this.issuer.url}" got ${JSON.stringify(doc.issuer ?? '')}`);
      }
      if (typeof doc.jwks_uri !== 'string' || doc.jwks_uri === '') throw new Error(`discovery document ${url} has no jwks_uri`);
      this.jwksUri = doc.jwks_uri;
    }
    const keys = publicKeysOfJwks(await getJson(this.jwksUri, this.issuer.certificateAuthority, this.o.timeoutMs));
    const byKid = new Map<string, PublicJwk[]>();
    for (const k of keys) if (k.kid !== undefined) byKid.set(k.kid, [...(byKid.get(k.kid) ?? []), k]);
    this.byKid = byKid;
    this.all = keys;
  }
}

/** GETs a JSON document over HTTPS, trusting `ca` (or the system roots), within a deadline and a size bound. */
export function getJson(url: string, ca: string | undefined, timeoutMs: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return reject(new Error(`invalid URL ${JSON.stringify(url)}`));
    }
    if (u.protocol !== 'https:') return reject(new Error(`${url}: only https URLs are fetched`));
    const req = https.get(u, { agent: false, ...(ca !== undefined ? { ca } : {}), headers: { accept: 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_DOCUMENT_BYTES) req.destroy(new Error(`${url}: response larger than ${MAX_DOCUMENT_BYTES} bytes`));
        else chunks.push(c);
      });
      res.on('end', () => {
        clearTimeout(deadline);
        if (res.statusCode !== 200) return reject(new Error(`${url}: ${res.statusCode} ${res.statusMessage ?? ''}`.trim()));
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        } catch {
          reject(new Error(`${url}: response is not JSON`));
        }
      });
      res.on('error', reject);
    });
    const deadline = setTimeout(() => req.destroy(new Error(`${url}: no answer within ${timeoutMs} ms`)), timeoutMs);
    deadline.unref();
    req.on('error', (e) => {
      clearTimeout(deadline);
      reject(new Error(e.message.startsWith(url) ? e.message : `${url}: ${e.message}`));
    });
  });
}
