/**
 * The audit webhook flags (`--audit-webhook-*`) and the log backend's batch flags (`--audit-log-batch-*`):
 * parsed into ServerOptions, every mistake an Error naming the flag. The webhook's kubeconfig is read here
 * too, so a bad file stops the start before any worker process is forked.
 */
import { resolve } from 'node:path';
import { batchFlagName, LOG_BATCH_DEFAULTS, logBatchSettings, type BatchFlagSettings, type BatchSettings } from '../audit/buffered.js';
import { checkAuditWebhookOptions, type AuditWebhookMode, type AuditWebhookOptions } from '../audit/webhook-sink.js';
import type { ServerOptions } from '../server/index.js';
import { parseGoDuration } from '../util/duration.js';

const BATCH_FLAGS = ['buffer-size', 'max-size', 'max-wait', 'throttle-enable', 'throttle-qps', 'throttle-burst'] as const;
const WEBHOOK_FLAGS = ['config-file', 'version', 'initial-backoff', 'mode'] as const;

/** The parseArgs declarations of these flags (spread into the server's option table). */
export const AUDIT_BATCH_FLAG_OPTIONS: Record<string, { type: 'string' }> = Object.fromEntries([
  ...WEBHOOK_FLAGS.map((f) => [`audit-webhook-${f}`, { type: 'string' as const }]),
  ...BATCH_FLAGS.map((f) => [`audit-webhook-batch-${f}`, { type: 'string' as const }]),
  ...BATCH_FLAGS.map((f) => [`audit-log-batch-${f}`, { type: 'string' as const }]),
]);

type Values = Record<string, string | boolean | string[] | undefined>;

function int(flag: string, v: string): number {
  if (!/^[+-]?\d+$/.test(v)) throw new Error(`${flag}: invalid integer "${v}"`);
  return Number(v);
}

function float(flag: string, v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n)) throw new Error(`${flag}: invalid number "${v}"`);
  return n;
}

/** Go's boolean flag syntax, which the reference's flags use. */
function bool(flag: string, v: string): boolean {
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(v)) return false;
  throw new Error(`${flag}: invalid boolean "${v}" (true or false)`);
}

function duration(flag: string, v: string): number {
  const ms = parseGoDuration(v);
  if (ms === undefined) throw new Error(`${flag}: invalid duration "${v}" (examples: 10s, 1m30s, 500ms)`);
  return ms;
}

/** The `--audit-<backend>-batch-*` flags given, parsed (ranges are checked where the mode is known). */
export function batchFlags(values: Values, backend: 'webhook' | 'log'): BatchFlagSettings {
  const out: BatchFlagSettings = {};
  const get = (field: Parameters<typeof batchFlagName>[1]) => {
    const flag = batchFlagName(backend, field);
    const v = values[flag.slice(2)];
    return v === undefined ? undefined : { flag, v: String(v) };
  };
  let f;
  if ((f = get('bufferSize'))) out.bufferSize = int(f.flag, f.v);
  if ((f = get('maxBatchSize'))) out.maxBatchSize = int(f.flag, f.v);
  if ((f = get('maxBatchWaitMs'))) out.maxBatchWaitMs = duration(f.flag, f.v);
  if ((f = get('throttleEnable'))) out.throttleEnable = bool(f.flag, f.v);
  if ((f = get('throttleQPS'))) out.throttleQPS = float(f.flag, f.v);
  if ((f = get('throttleBurst'))) out.throttleBurst = int(f.flag, f.v);
  return out;
}

/**
 * The `batch` settings of the log backend (AuditLogOptions.batch) from `--audit-log-batch-*`, for the log
 * flags to use: undefined when none is given. They are range-checked in batch mode, the one that uses them
 * (as the reference); in the other modes they are kept unchecked and unused, as the reference does.
 */
export function logBatchFromFlags(values: Values): BatchSettings | undefined {
  const flags = batchFlags(values, 'log');
  if (Object.keys(flags).length === 0) return undefined;
  return values['audit-log-mode'] === 'batch' ? logBatchSettings(flags) : { ...LOG_BATCH_DEFAULTS, ...flags };
}

/**
 * Fills `opts.auditWebhook`. The webhook's other flags mean nothing without its kubeconfig, and the log's
 * batch flags nothing without a log, so either alone is refused rather than ignored.
 */
export function auditBatchFlags(values: Values, opts: ServerOptions): void {
  const str = (k: string) => values[k] as string | undefined;
  const logAlone = BATCH_FLAGS.find((f) => values[`audit-log-batch-${f}`] !== undefined);
  if (logAlone && values['audit-log-path'] === undefined) throw new Error(`--audit-log-batch-${logAlone}: needs --audit-log-path`);
  logBatchFromFlags(values); // a malformed value is an error whoever uses the settings
  const webhookBatch = batchFlags(values, 'webhook');
  const file = str('audit-webhook-config-file');
  if (file === undefined) {
    const alone = Object.keys(AUDIT_BATCH_FLAG_OPTIONS).find((k) => k.startsWith('audit-webhook-') && values[k] !== undefined);
    if (alone) throw new Error(`--${alone}: needs --audit-webhook-config-file`);
    return;
  }
  const webhook: AuditWebhookOptions = { configFile: file === '' ? '' : resolve(file) };
  const version = str('audit-webhook-version');
  if (version !== undefined) webhook.version = version;
  const backoff = str('audit-webhook-initial-backoff');
  if (backoff !== undefined) webhook.initialBackoffMs = duration('--audit-webhook-initial-backoff', backoff);
  const mode = str('audit-webhook-mode');
  if (mode !== undefined) webhook.mode = mode as AuditWebhookMode; // checked below
  if (Object.keys(webhookBatch).length > 0) webhook.batch = webhookBatch;
  checkAuditWebhookOptions(webhook);
  opts.auditWebhook = webhook;
}
