/**
 * The audit webhook backend: each batch of events goes to a remote service as one `EventList`, POSTed to
 * the server of a kubeconfig file. Transient failures (no connection, a timeout, 429 or 5xx) are retried
 * with exponential backoff as the reference does; after the last attempt the events are counted as lost.
 * In the default `batch` mode it sits behind a BufferedSink, so none of this ever touches a request.
 */
import { AUDIT_GROUP } from '../api/naming.js';
import { BackendFailure, webhookBackend, type WebhookBackend } from '../util/webhook-backend.js';
import type { Dialer } from '../util/dialer.js';
import { loadWebhookKubeconfig } from '../util/webhook-kubeconfig.js';
import { batchFlagName, BufferedSink, checkBatchSettings, WEBHOOK_BATCH_DEFAULTS, type BatchFlagSettings, type BatchSettings, type BufferedSinkEnv } from './buffered.js';
import { DropReporter, interruptibleSleep, realTimers, type AuditTimers } from './timers.js';
import type { AuditEvent, AuditSink } from './types.js';

/** The only event version the reference (1.31) still sends. */
export const AUDIT_WEBHOOK_VERSIONS: readonly string[] = [`${AUDIT_GROUP}/v1`];
export const DEFAULT_AUDIT_WEBHOOK_VERSION = `${AUDIT_GROUP}/v1`;
/** The reference's first wait before a retry (`--audit-webhook-initial-backoff`). */
export const DEFAULT_AUDIT_WEBHOOK_INITIAL_BACKOFF_MS = 10_000;

/** How requests wait for the webhook: not at all (batch), or until it answered (blocking, blocking-strict). */
export type AuditWebhookMode = 'batch' | 'blocking' | 'blocking-strict';
export const AUDIT_WEBHOOK_MODES: readonly AuditWebhookMode[] = ['batch', 'blocking', 'blocking-strict'];

/** The reference's retry schedule: 5 attempts, waits growing by 1.5 from the initial backoff, up to 20 % jitter. */
export const RETRY_ATTEMPTS = 5;
const BACKOFF_FACTOR = 1.5;
const BACKOFF_JITTER = 0.2;

/** The wait after failed attempt `attempt` (1-based); `random` in [0, 1) adds the jitter. */
export function retryDelayMs(initialMs: number, attempt: number, random: number): number {
  const base = initialMs * BACKOFF_FACTOR ** (attempt - 1);
  return base + base * BACKOFF_JITTER * random;
}

/** The body of one POST: an EventList whose items carry no type fields of their own, as the reference sends them. */
export function encodeEventList(events: readonly AuditEvent[], version: string): string {
  const items = events.map(({ kind: _kind, apiVersion: _apiVersion, ...rest }) => JSON.stringify(rest));
  return `{"kind":"EventList","apiVersion":${JSON.stringify(version)},"metadata":{},"items":[${items.join(',')}]}`;
}

export interface WebhookSinkSettings {
  version: string;
  initialBackoffMs: number;
  /** How long shutdown lets calls in progress finish before cutting their connections. Default 10 s. */
  shutdownGraceMs?: number;
  /** `blocking-strict`: the sink says through `deliver` whether events were stored (see strict.ts). */
  strict?: boolean;
}

export interface WebhookSinkEnv {
  log?: (msg: string) => void;
  timers?: AuditTimers;
  random?: () => number;
}

/**
 * Sends each call's events at once and settles when they are delivered or given up on (never rejects).
 * The body is serialized in the caller's turn, so the caller may reuse its event objects afterwards.
 */
export class WebhookSink implements AuditSink {
  /**
   * Events the webhook never accepted (after the retries, or cut off by shutdown). The metrics issue exports
   * it (the reference's apiserver_audit_error_total{plugin="webhook"}).
   */
  droppedEvents = 0;
  /** Set in blocking-strict mode, where the chain asks `deliver` and fails the request on false (isStrictAuditSink). */
  readonly strict: boolean;

  private readonly timers: AuditTimers;
  private readonly random: () => number;
  private readonly drops: DropReporter;
  private readonly inFlight = new Set<Promise<boolean>>();
  private readonly naps = new Set<{ cut(): void }>();
  private closed = false;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly backend: WebhookBackend,
    private readonly settings: WebhookSinkSettings,
    env: WebhookSinkEnv = {},
  ) {
    this.strict = settings.strict === true;
    this.timers = env.timers ?? realTimers;
    this.random = env.random ?? Math.random;
    this.drops = new DropReporter('audit webhook', env.log ?? (() => undefined), this.timers);
  }

  async processEvents(events: readonly AuditEvent[]): Promise<void> {
    await this.deliver(events);
  }

  /** True when the webhook accepted the events; false (and counted) when they are lost. Never rejects. */
  deliver(events: readonly AuditEvent[]): Promise<boolean> {
    if (events.length === 0) return Promise.resolve(true);
    if (this.closed) {
      this.lose(events.length, 'the audit backend is shut down');
      return Promise.resolve(false);
    }
    const sending = this.send(events).catch((e: unknown) => {
      this.lose(events.length, `unexpected error: ${(e as Error)?.message ?? String(e)}`);
      return false;
    });
    this.inFlight.add(sending);
    void sending.finally(() => this.inFlight.delete(sending));
    return sending;
  }

  shutdown(): Promise<void> {
    this.closing ??= this.close();
    return this.closing;
  }

  private async send(events: readonly AuditEvent[]): Promise<boolean> {
    const body = encodeEventList(events, this.settings.version);
    let why = '';
    for (let attempt = 1; attempt <= RETRY_ATTEMPTS; attempt++) {
      try {
        await this.backend.post(body);
        return true;
      } catch (e) {
        why = e instanceof Error ? e.message : String(e);
        const retryable = e instanceof BackendFailure && e.retryable;
        if (!retryable || attempt === RETRY_ATTEMPTS || this.closed) break;
        const nap = interruptibleSleep(this.timers, retryDelayMs(this.settings.initialBackoffMs, attempt, this.random()));
        this.naps.add(nap);
        await nap.done;
        this.naps.delete(nap);
        if (this.closed) {
          why = `${why} (no more retries: the audit backend is shutting down)`;
          break;
        }
      }
    }
    this.lose(events.length, why);
    return false;
  }

  private lose(count: number, why: string): void {
    this.droppedEvents += count;
    this.drops.lost(count, why);
  }

  private async close(): Promise<void> {
    this.closed = true;
    for (const nap of this.naps) nap.cut();
    if (this.inFlight.size > 0) {
      const grace = interruptibleSleep(this.timers, this.settings.shutdownGraceMs ?? 10_000);
      await Promise.race([Promise.allSettled([...this.inFlight]), grace.done]);
      grace.cut();
    }
    // Cuts the connections of calls still going; they fail at once and are counted.
    this.backend.close();
    await Promise.allSettled([...this.inFlight]);
    this.drops.flush();
  }
}

/** The webhook settings of ServerOptions (`--audit-webhook-*`). */
export interface AuditWebhookOptions {
  /** `--audit-webhook-config-file`: the kubeconfig naming the webhook. */
  configFile: string;
  /** The control-plane egress (`--egress-selector-config-file`); undefined connects directly. */
  dialer?: Dialer;
  /** Default `audit.orch.io/v1`. */
  version?: string;
  /** Default 10 s. */
  initialBackoffMs?: number;
  /** Default `batch`. */
  mode?: AuditWebhookMode;
  /** Only used in batch mode; defaults WEBHOOK_BATCH_DEFAULTS. */
  batch?: BatchFlagSettings;
}

/**
 * Checks what can be checked without the network (start-up errors naming the flag): the version, the mode,
 * the backoff, the batch settings and the kubeconfig file itself.
 */
export function checkAuditWebhookOptions(o: AuditWebhookOptions): void {
  if (o.configFile === '') throw new Error('--audit-webhook-config-file: a file path is required');
  if (o.version !== undefined && !AUDIT_WEBHOOK_VERSIONS.includes(o.version)) {
    throw new Error(`--audit-webhook-version: invalid group version "${o.version}": allowed versions are ${JSON.stringify(AUDIT_WEBHOOK_VERSIONS)}`);
  }
  if (o.mode !== undefined && !AUDIT_WEBHOOK_MODES.includes(o.mode)) {
    throw new Error(`--audit-webhook-mode: invalid mode "${o.mode}": allowed modes are ${AUDIT_WEBHOOK_MODES.join(', ')}`);
  }
  if (o.initialBackoffMs !== undefined && !(o.initialBackoffMs > 0)) {
    throw new Error(`--audit-webhook-initial-backoff: invalid value ${o.initialBackoffMs}ms: must be a positive duration`);
  }
  webhookBatchSettings(o);
  loadWebhookKubeconfig(o.configFile, { at: `--audit-webhook-config-file ${o.configFile}` });
}

function webhookBatchSettings(o: AuditWebhookOptions): BatchSettings {
  const settings: BatchSettings = { ...WEBHOOK_BATCH_DEFAULTS, ...o.batch, asyncDelegate: true };
  // As the reference: the batch settings are checked only in batch mode, where they mean something.
  if ((o.mode ?? 'batch') === 'batch') checkBatchSettings(settings, (f) => batchFlagName('webhook', f));
  return settings;
}

/**
 * The webhook backend ServerOptions ask for, or undefined when there is none. In batch mode it is buffered
 * (requests never wait); in the blocking modes each call settles once the webhook answered or was given up,
 * and in blocking-strict the sink is a StrictAuditSink (strict.ts) so the chain can fail the request.
 */
export function buildWebhookAuditSink(
  opts: { auditWebhook?: AuditWebhookOptions },
  log: (msg: string) => void,
  env: Omit<WebhookSinkEnv, 'log'> & Pick<BufferedSinkEnv, 'shutdownTimeoutMs'> & Pick<WebhookSinkSettings, 'shutdownGraceMs'> = {},
): AuditSink | undefined {
  const o = opts.auditWebhook;
  if (!o) return undefined;
  checkAuditWebhookOptions(o);
  const conn = loadWebhookKubeconfig(o.configFile, { at: `--audit-webhook-config-file ${o.configFile}` });
  const sink = new WebhookSink(
    webhookBackend(conn, undefined, o.dialer),
    {
      version: o.version ?? DEFAULT_AUDIT_WEBHOOK_VERSION,
      initialBackoffMs: o.initialBackoffMs ?? DEFAULT_AUDIT_WEBHOOK_INITIAL_BACKOFF_MS,
      strict: o.mode === 'blocking-strict',
      ...(env.shutdownGraceMs !== undefined ? { shutdownGraceMs: env.shutdownGraceMs } : {}),
    },
    { ...env, log },
  );
  const mode = o.mode ?? 'batch';
  if (mode !== 'batch') return sink;
  const { timers, shutdownTimeoutMs } = env;
  return new BufferedSink(sink, webhookBatchSettings(o), { name: 'webhook', log, ...(timers ? { timers } : {}), ...(shutdownTimeoutMs !== undefined ? { shutdownTimeoutMs } : {}) });
}
