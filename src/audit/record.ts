/**
 * The audit state of one request whose policy level is above None: the Event being built, what the
 * handlers add to it (objects, annotations, the Status answered), and the emission of each stage.
 * The chain creates it after authentication; handlers reach it as `ctx.audit` (absent when not audited).
 *
 * One Event object is reused for all stages of a request; sinks serialize or copy it when they take it
 * (the log and webhook sinks serialize at once, the BufferedSink copies).
 */
import { eventObject, preciseNow, microTime, statusFields, auditUser, type ResponseStatus } from './event.js';
import type { RequestAuditConfig } from './policy.js';
import { isStrictAuditSink } from './strict.js';
import type { AuditEvent, AuditSink, AuditStage } from './types.js';

/** The metadata fields of a request body that complete an event's objectRef. */
const IDENTITY_FIELDS = ['namespace', 'name', 'uid', 'resourceVersion'] as const;

export class AuditRecord {
  /** A Status the handler answered with (an error, or a delete's Success): its bounded fields go in the event. */
  private answered: ResponseStatus | undefined;
  /** Live annotation maps of the write's admission (filled as plugins and webhooks run). */
  private sources: Record<string, string>[] | undefined;
  private own: Record<string, string> | undefined;
  /** Set once the Panic stage went out: no ResponseComplete follows it. */
  panicked = false;
  /** A watch or stream: it has a ResponseStarted stage. */
  longRunning = false;
  responseStarted = false;
  /** What each stage hands the sink: the one event (sinks serialize or copy it at once, see above). */
  private readonly batch: readonly AuditEvent[];

  constructor(
    readonly event: AuditEvent,
    readonly config: RequestAuditConfig,
    private readonly sink: AuditSink,
  ) {
    this.batch = [event];
  }

  get level(): AuditEvent['level'] {
    return this.event.level;
  }

  annotate(key: string, value: string): void {
    (this.own ??= {})[key] = value;
  }

  /** Adds a map whose entries (now and later) become annotations: admission's `WriteAdmission.annotations`. */
  annotationsFrom(source: Record<string, string>): void {
    (this.sources ??= []).push(source);
  }

  impersonated(u: { username: string; uid?: string; groups?: readonly string[]; extra?: Record<string, string[]> }): void {
    this.event.impersonatedUser = auditUser(u);
  }

  /**
   * The decoded request body of a write. Its identity fills `objectRef` gaps at every level (a create's
   * name is only in the body); the object itself is kept from level Request on.
   */
  requestObject(obj: unknown): void {
    const meta = (obj as { metadata?: Record<string, unknown> } | null)?.metadata;
    const ref = this.event.objectRef;
    if (ref && meta && typeof meta === 'object') {
      for (const k of IDENTITY_FIELDS) {
        const v = meta[k];
        if (!ref[k] && typeof v === 'string' && v) ref[k] = v;
      }
    }
    if (this.level !== 'Metadata') this.event.requestObject = eventObject(obj, this.config.omitManagedFields);
  }

  /** A response body, kept only at RequestResponse. */
  responseObject(obj: unknown): void {
    if (this.level === 'RequestResponse') this.event.responseObject = eventObject(obj, this.config.omitManagedFields);
  }

  /** The Status a response carried (never object data, whatever the level). */
  status(s: object): void {
    this.answered = statusFields(s as Record<string, unknown>);
    if (this.level === 'RequestResponse') this.event.responseObject = s;
  }

  /** Sends the event at `stage` (unless the policy omits it); `code` is the HTTP status once known. */
  emit(stage: AuditStage, code?: number, fallback?: ResponseStatus): void | Promise<void> {
    if (!this.prepare(stage, code, fallback)) return undefined;
    try {
      return this.sink.processEvents(this.batch);
    } catch {
      // Sinks never throw by contract; a broken one still must not fail the request.
      return undefined;
    }
  }

  /** As `emit`, for blocking-strict: false when a strict sink could not store the event. */
  async emitStrict(stage: AuditStage): Promise<boolean> {
    if (!this.prepare(stage)) return true;
    try {
      if (isStrictAuditSink(this.sink)) return await this.sink.deliver(this.batch);
      await this.sink.processEvents(this.batch);
      return true;
    } catch {
      return false;
    }
  }

  private prepare(stage: AuditStage, code?: number, fallback?: ResponseStatus): boolean {
    if (this.config.omitStages.has(stage)) return false;
    const ev = this.event;
    ev.stage = stage;
    ev.stageTimestamp = stage === 'RequestReceived' ? ev.requestReceivedTimestamp : microTime(preciseNow());
    if (code !== undefined) {
      const given = this.answered ?? fallback;
      ev.responseStatus = given ? { ...given, code } : { metadata: {}, code };
    }
    else if (fallback) ev.responseStatus = fallback;
    if (this.own || this.sources) ev.annotations = this.annotations();
    return true;
  }

  /** Annotations in key order, as the reference's maps serialize (usually they were added in that order). */
  private annotations(): Record<string, string> {
    const all: Record<string, string> = { ...this.own };
    for (const s of this.sources ?? []) Object.assign(all, s);
    const keys = Object.keys(all);
    if (inOrder(keys)) return all;
    const out: Record<string, string> = {};
    for (const k of keys.sort()) out[k] = all[k] as string;
    return out;
  }
}

/** True when the keys are already as `sort()` would put them (no sort, which allocates even for two keys). */
export function inOrder(keys: readonly string[]): boolean {
  for (let i = 1; i < keys.length; i++) if ((keys[i - 1] as string) > (keys[i] as string)) return false;
  return true;
}

/** Several backends (the log and the webhook) as one sink: a request waits for all that make it wait. */
export class UnionSink implements AuditSink {
  readonly strict: boolean;

  constructor(private readonly sinks: readonly AuditSink[]) {
    this.strict = sinks.some(isStrictAuditSink);
  }

  processEvents(events: readonly AuditEvent[]): void | Promise<void> {
    let waits: Promise<void>[] | undefined;
    for (const s of this.sinks) {
      try {
        const r = s.processEvents(events);
        if (r) (waits ??= []).push(r.catch(() => undefined));
      } catch {
        // A sink that throws breaks its contract; the others still get the events.
      }
    }
    return waits ? Promise.all(waits).then(() => undefined) : undefined;
  }

  /** True when every strict backend stored the events (the others are only waited for). */
  async deliver(events: readonly AuditEvent[]): Promise<boolean> {
    const results = await Promise.all(
      this.sinks.map(async (s) => {
        try {
          if (isStrictAuditSink(s)) return await s.deliver(events);
          await s.processEvents(events);
          return true;
        } catch {
          return false;
        }
      }),
    );
    return results.every(Boolean);
  }

  async shutdown(): Promise<void> {
    await Promise.all(this.sinks.map((s) => s.shutdown().catch(() => undefined)));
  }
}
