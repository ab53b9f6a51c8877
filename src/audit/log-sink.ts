/**
 * The audit log backend (`--audit-log-*`): each event becomes one line (JSON or the legacy text form) at
 * once, in the caller's turn, so the caller may go on changing its event; the line is then appended by a
 * LineWriter (the rotating file, stdout, or the supervisor of worker processes).
 *
 * Modes, as the reference's: `blocking` (the default) hands each event to the writer in the request's own
 * path (a local file appends the lines of one event-loop turn together, at its end, in order; the
 * supervisor of worker processes acknowledges them); `blocking-strict` makes the request wait until its
 * RequestReceived event is written and fails it when that fails; `batch` puts the BufferedSink in front,
 * so requests never wait and a slow backend loses events rather than time.
 */
import { BufferedSink, LOG_BATCH_DEFAULTS, type BatchSettings } from './buffered.js';
import { megabytes, RotatingFileWriter, StdoutWriter, type LineWriter } from './log-file.js';
import { AUDIT_LOG_FORMATS, formatLine, type AuditLogFormat } from './log-format.js';
import type { AuditEvent, AuditSink } from './types.js';

export type AuditLogMode = 'blocking' | 'blocking-strict' | 'batch';
export const AUDIT_LOG_MODES: readonly AuditLogMode[] = ['blocking', 'blocking-strict', 'batch'];

/** `--audit-log-*`; sizes as the flags give them (days, files, megabytes; 0 = the reference's meaning). */
export interface AuditLogOptions {
  /** A file path, or `-` for standard output. */
  path: string;
  format?: AuditLogFormat;
  mode?: AuditLogMode;
  maxAgeDays?: number;
  maxBackups?: number;
  maxSizeMB?: number;
  /** `batch` mode's settings (`--audit-log-batch-*`); default the reference's log batch defaults. */
  batch?: BatchSettings;
}

/** The flag checks the reference makes; each Error names the flag. */
export function checkAuditLogOptions(o: AuditLogOptions): void {
  if (o.path === '') throw new Error('--audit-log-path: a file path (or - for standard output) is required');
  if (o.format !== undefined && !AUDIT_LOG_FORMATS.includes(o.format)) {
    throw new Error(`--audit-log-format: invalid audit log format "${o.format}": allowed formats are ${AUDIT_LOG_FORMATS.map((f) => `"${f}"`).join(', ')}`);
  }
  if (o.mode !== undefined && !AUDIT_LOG_MODES.includes(o.mode)) {
    throw new Error(`--audit-log-mode: invalid audit log mode "${o.mode}": allowed modes are ${AUDIT_LOG_MODES.map((m) => `"${m}"`).join(', ')}`);
  }
  const count = (flag: string, v: number | undefined) => {
    if (v !== undefined && (!Number.isInteger(v) || v < 0)) throw new Error(`${flag}: invalid value ${v}: can't be a negative number (a whole number; 0 = the default)`);
  };
  count('--audit-log-maxage', o.maxAgeDays);
  count('--audit-log-maxbackup', o.maxBackups);
  count('--audit-log-maxsize', o.maxSizeMB);
}

/** Opens the writer the options name; a file that cannot be opened is a start-up error naming the flag. */
export function openLogWriter(o: AuditLogOptions, log: (msg: string) => void): LineWriter {
  if (o.path === '-') return new StdoutWriter();
  try {
    return new RotatingFileWriter(o.path, { maxSizeBytes: megabytes(o.maxSizeMB ?? 0), maxBackups: o.maxBackups ?? 0, maxAgeDays: o.maxAgeDays ?? 0 }, log);
  } catch (e) {
    throw new Error(`--audit-log-path: cannot open ${o.path}: ${(e as Error).message}`);
  }
}

export class LogSink implements AuditSink {
  /** True in blocking-strict mode: the chain then asks `deliver` and fails the request on false (strict.ts). */
  readonly strict: boolean;
  /** Events that could not be written (the metrics issue exports it: apiserver_audit_error_total{plugin="log"}). */
  droppedEvents = 0;
  /** The outcome of a single event's line (nearly every call): one function for all, no closure per event. */
  private readonly oneWritten = (ok: boolean) => {
    if (!ok) this.droppedEvents++;
  };

  constructor(
    private readonly writer: LineWriter,
    private readonly format: AuditLogFormat = 'json',
    strict = false,
  ) {
    this.strict = strict;
  }

  /**
   * A local file takes the lines at once and appends them with the rest of this turn's events (one write
   * for many requests); the supervisor's file and stdout answer with a promise the request waits for.
   */
  processEvents(events: readonly AuditEvent[]): void | Promise<void> {
    const text = this.lines(events);
    if (text === undefined) return undefined;
    if (this.writer.append) {
      const n = events.length;
      return this.writer.append(text, n === 1 ? this.oneWritten : (ok) => void (ok || (this.droppedEvents += n)));
    }
    return this.writer.write(text).then((ok) => void (ok || (this.droppedEvents += events.length)));
  }

  /** True once the events are written; false (and counted) when they are lost. Never rejects. */
  async deliver(events: readonly AuditEvent[]): Promise<boolean> {
    const text = this.lines(events);
    if (text === undefined) return false;
    const ok = await this.writer.write(text);
    if (!ok) this.droppedEvents += events.length;
    return ok;
  }

  private lines(events: readonly AuditEvent[]): string | undefined {
    try {
      return events.length === 1 ? formatLine(events[0] as AuditEvent, this.format) : events.map((e) => formatLine(e, this.format)).join('');
    } catch {
      // An event that cannot be serialized (it cannot happen with JSON values) is lost, not thrown.
      this.droppedEvents += events.length;
      return undefined;
    }
  }

  shutdown(): Promise<void> {
    return this.writer.close();
  }
}

/** The log backend for the options: the LogSink, behind a BufferedSink in batch mode. */
export function logBackend(o: AuditLogOptions, writer: LineWriter, log: (msg: string) => void): AuditSink {
  const sink = new LogSink(writer, o.format ?? 'json', o.mode === 'blocking-strict');
  if (o.mode === 'batch') return new BufferedSink(sink, o.batch ?? LOG_BATCH_DEFAULTS, { name: 'log', log });
  return sink;
}
