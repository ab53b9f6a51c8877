/**
 * The audit log file: whole lines appended by one writer, with size-based rotation as the reference's
 * log backend does it (`--audit-log-maxsize`, `-maxbackup`, `-maxage`). The lines of one turn of the event
 * loop go out together in one write at its end (a group commit: far cheaper than a write per event, and
 * written on this thread rather than handed to the thread pool, which on a small machine competes with
 * the server for the same cores); a line is never split between writes, so readers never see interleaved
 * or partial events. A turn's lines that fit in the current file are written as one string; only a
 * write that may rotate goes line by line.
 */
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readdirSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';

/** Where lines go: a file, stdout, or (in a worker process) the supervisor that owns the file. */
export interface LineWriter {
  /** Appends whole lines (each ending in a newline); true once written, false when lost. Never rejects. */
  write(text: string): Promise<boolean>;
  /**
   * Writers that need no acknowledgement (a local file) take lines here without a promise: they are
   * appended, in order, with the rest of this turn's lines; `done` then learns whether they were written.
   * Unlike `write`, the text must end in its newline.
   */
  append?(text: string, done: (ok: boolean) => void): void;
  close(): Promise<void>;
}

export interface RotationSettings {
  /** Rotate before a write would take the file past this. The reference's default (flag 0) is 100 MB. */
  maxSizeBytes: number;
  /** Old files kept; 0 keeps all. */
  maxBackups: number;
  /** Old files older than this many days are removed; 0 keeps them regardless of age. */
  maxAgeDays: number;
}

const MB = 1024 * 1024;
export const DEFAULT_MAX_SIZE_MB = 100;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The reference's backup name: `<name>-<UTC time, 2006-01-02T15-04-05.000>.<ext>` beside the log. */
export function backupName(path: string, at: Date): string {
  const ext = extname(path);
  const stem = path.slice(0, path.length - ext.length);
  const stamp = at.toISOString().slice(0, 23).replace(/:/g, '-');
  return `${stem}-${stamp}${ext}`;
}

/** The time a backup name carries, or undefined when the file is not a backup of `path`. */
export function backupTime(path: string, file: string): number | undefined {
  const ext = extname(path);
  const prefix = `${basename(path).slice(0, basename(path).length - ext.length)}-`;
  if (!file.startsWith(prefix) || !file.endsWith(ext)) return undefined;
  const stamp = file.slice(prefix.length, file.length - ext.length);
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})\.(\d{3})$/.exec(stamp);
  if (!m) return undefined;
  const t = Date.parse(`${m[1]}T${m[2]}:${m[3]}:${m[4]}.${m[5]}Z`);
  return Number.isNaN(t) ? undefined : t;
}

/** Which backups to delete: beyond the newest `maxBackups`, and older than `maxAgeDays`. */
export function backupsToRemove(backups: readonly { file: string; time: number }[], s: RotationSettings, now: number): string[] {
  const newestFirst = [...backups].sort((a, b) => b.time - a.time);
  const out = new Set<string>();
  if (s.maxBackups > 0) for (const b of newestFirst.slice(s.maxBackups)) out.add(b.file);
  if (s.maxAgeDays > 0) for (const b of newestFirst) if (b.time < now - s.maxAgeDays * DAY_MS) out.add(b.file);
  return [...out];
}

export class RotatingFileWriter implements LineWriter {
  private fd: number;
  private size: number;
  /** This turn's texts (each ending in a newline), and who learns the outcome of each. */
  private texts: string[] = [];
  private dones: ((ok: boolean) => void)[] = [];
  private scheduled = false;
  private closed = false;
  private readonly drainLater = () => this.drain();

  /** Opens (creating it 0600, and its directory 0700, as the reference does) at start-up: failures are start-up errors. */
  constructor(
    readonly path: string,
    private readonly settings: RotationSettings,
    private readonly log: (msg: string) => void = () => undefined,
    private readonly clock: () => number = Date.now,
  ) {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    this.fd = openSync(path, 'a', 0o600);
    this.size = fstatSync(this.fd).size;
  }

  write(text: string): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    // A last line without its newline gets one, as splitLines gives it on the line-by-line path.
    const lines = text.length > 0 && !text.endsWith('\n') ? `${text}\n` : text;
    return new Promise<boolean>((done) => this.enqueue(lines, done));
  }

  /**
   * `text` must end in a newline, as LogSink's lines do: looking at its last character here would make
   * node flatten the freshly concatenated line, a copy of every event for nothing.
   */
  append(text: string, done: (ok: boolean) => void): void {
    if (this.closed) return done(false);
    this.enqueue(text, done);
  }

  private enqueue(text: string, done: (ok: boolean) => void): void {
    this.texts.push(text);
    this.dones.push(done);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.drainLater);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.drain();
    this.closed = true;
    closeSync(this.fd);
  }

  /** Writes everything pending: in one write when it all fits in the current file, else line by line. */
  private drain(): void {
    this.scheduled = false;
    const texts = this.texts;
    const dones = this.dones;
    if (texts.length === 0) return;
    this.texts = [];
    this.dones = [];
    const all = texts.length === 1 ? (texts[0] as string) : texts.join('');
    const bytes = Buffer.byteLength(all);
    // Within the size limit no line can be too large and no rotation falls between lines.
    if (this.size + bytes <= this.settings.maxSizeBytes) {
      const ok = this.appendText(all, bytes);
      for (const done of dones) done(ok);
      return;
    }
    this.writeBatch(texts, dones);
  }

  /** Writes the lines of a batch, rotating between lines; each writer learns whether all its lines went out. */
  private writeBatch(texts: string[], dones: ((ok: boolean) => void)[]): void {
    const max = this.settings.maxSizeBytes;
    const results = texts.map(() => true);
    let chunk: Buffer[] = [];
    let chunkBytes = 0;
    let owners: number[] = [];
    const flush = () => {
      if (chunk.length === 0) return;
      const ok = this.appendBytes(Buffer.concat(chunk, chunkBytes));
      if (!ok) for (const i of owners) results[i] = false;
      chunk = [];
      chunkBytes = 0;
      owners = [];
    };
    for (let i = 0; i < texts.length; i++) {
      // A worker's message holds many lines; rotation may fall between any two of them.
      for (const line of splitLines(texts[i] as string)) {
        const bytes = Buffer.from(line);
        if (bytes.length > max) {
          // As the reference's rotating writer: a write larger than a whole file is refused.
          this.log(`audit log ${this.path}: an event of ${bytes.length} bytes exceeds --audit-log-maxsize (${max} bytes); dropped`);
          results[i] = false;
          continue;
        }
        if (this.size + chunkBytes + bytes.length > max) {
          flush();
          if (this.size + bytes.length > max) this.rotate();
        }
        chunk.push(bytes);
        chunkBytes += bytes.length;
        owners.push(i);
      }
    }
    flush();
    dones.forEach((done, i) => done(results[i] as boolean));
  }

  /** The string in one write call (node encodes it straight into the call); a short write goes on as bytes. */
  private appendText(text: string, bytes: number): boolean {
    let n: number;
    try {
      n = writeSync(this.fd, text);
    } catch (e) {
      this.log(`audit log ${this.path}: write failed: ${(e as Error).message}`);
      return false;
    }
    if (n === bytes) {
      this.size += bytes;
      return true;
    }
    this.size += n;
    return this.appendBytes(Buffer.from(text).subarray(n));
  }

  /** One write call for the whole buffer (a short write on a full disk is continued, then reported). */
  private appendBytes(buf: Buffer): boolean {
    let off = 0;
    try {
      while (off < buf.length) {
        const n = writeSync(this.fd, buf, off, buf.length - off);
        if (n === 0) throw new Error('nothing was written');
        off += n;
      }
      this.size += buf.length;
      return true;
    } catch (e) {
      this.size += off;
      this.log(`audit log ${this.path}: write failed: ${(e as Error).message}`);
      return false;
    }
  }

  /** Renames the full file to its backup name, starts an empty one, and prunes old backups. */
  private rotate(): void {
    try {
      closeSync(this.fd);
      let at = this.clock();
      // Two rotations within one millisecond must not overwrite the first backup.
      while (existsSync(backupName(this.path, new Date(at)))) at++;
      renameSync(this.path, backupName(this.path, new Date(at)));
    } catch (e) {
      this.log(`audit log ${this.path}: rotation failed: ${(e as Error).message}`);
    }
    this.fd = openSync(this.path, 'a', 0o600);
    this.size = fstatSync(this.fd).size;
    this.prune();
  }

  private prune(): void {
    if (this.settings.maxBackups === 0 && this.settings.maxAgeDays === 0) return;
    try {
      const dir = dirname(this.path);
      const backups: { file: string; time: number }[] = [];
      for (const file of readdirSync(dir)) {
        const time = backupTime(this.path, file);
        if (time !== undefined) backups.push({ file, time });
      }
      for (const file of backupsToRemove(backups, this.settings, this.clock())) unlinkSync(join(dir, file));
    } catch (e) {
      this.log(`audit log ${this.path}: removing old backups failed: ${(e as Error).message}`);
    }
  }
}

/** The lines of a text, each with its newline. */
export function splitLines(text: string): string[] {
  const out: string[] = [];
  let from = 0;
  for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', from)) {
    out.push(text.slice(from, nl + 1));
    from = nl + 1;
  }
  if (from < text.length) out.push(`${text.slice(from)}\n`);
  return out;
}

/** `--audit-log-path=-`: lines go to standard output. */
export class StdoutWriter implements LineWriter {
  write(text: string): Promise<boolean> {
    return new Promise((resolve) => process.stdout.write(text, (e) => resolve(!e)));
  }
  async close(): Promise<void> {}
}

export const megabytes = (mb: number) => (mb > 0 ? mb : DEFAULT_MAX_SIZE_MB) * MB;
