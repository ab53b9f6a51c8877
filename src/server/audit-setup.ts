/**
 * Audit wiring (spec 2.11): the policy file and the backends become the chain's audit stage. Like the
 * reference, audit records something only with both a policy and a backend; with either alone the server
 * says so at start-up and the chain has no audit stage at all.
 */
import { compilePolicy, loadPolicyFile } from '../audit/policy.js';
import { UnionSink } from '../audit/record.js';
import type { LineWriter } from '../audit/log-file.js';
import { checkAuditLogOptions, logBackend, openLogWriter, type AuditLogOptions } from '../audit/log-sink.js';
import { isStrictAuditSink, type StrictAuditSink } from '../audit/strict.js';
import type { AuditSink } from '../audit/types.js';
import { buildWebhookAuditSink, type AuditWebhookOptions } from '../audit/webhook-sink.js';
import { AuditStage } from './audit-stage.js';

export interface AuditOptions {
  /** `--audit-policy-file`: a Policy document (YAML or JSON). */
  auditPolicyFile?: string;
  /** `--audit-log-*`: the log backend. */
  auditLog?: AuditLogOptions;
  /**
   * Where the log backend's lines go instead of the file `auditLog.path` names: a worker process
   * (`--workers`) hands them to the supervisor, which owns the one file.
   */
  auditLogWriter?: LineWriter;
  /** `--audit-webhook-*`: the webhook backend (audit/webhook-sink.ts). */
  auditWebhook?: AuditWebhookOptions;
  /** Backends built by an in-process caller (tests), each already in its mode; used besides the above. */
  auditBackends?: AuditSink[];
}

export interface ServerAudit {
  stage: AuditStage;
  /** Writes what the backends still hold and closes them (after the last request). */
  shutdown(): Promise<void>;
  /** The backends by the reference's plugin names (`log`, `webhook`), for the audit error metric. */
  backends: [plugin: string, sink: AuditSink][];
}

/** What start-up checked: the compiled policy, the options, and the backends to open. */
export interface AuditPlan {
  evaluate: ReturnType<typeof compilePolicy>;
  opts: AuditOptions;
  /** The webhook backend, built (its kubeconfig read) while checking; it opens no connection before its first event. */
  webhook: AuditSink | undefined;
  log: (msg: string) => void;
}

/**
 * Checks everything before the server opens anything: the policy file, the `--audit-log-*` values, and that
 * the log file can be created (as the reference does at start-up). Undefined when audit records nothing.
 */
export function planAudit(opts: AuditOptions, log: (msg: string) => void): AuditPlan | undefined {
  if (opts.auditLog) checkAuditLogOptions(opts.auditLog);
  const policy = opts.auditPolicyFile !== undefined ? loadPolicyFile(opts.auditPolicyFile) : undefined;
  for (const w of policy?.warnings ?? []) log(`--audit-policy-file ${opts.auditPolicyFile}: ${w}`);
  const backends = Boolean(opts.auditLog || opts.auditWebhook || opts.auditBackends?.length);
  if (!policy) {
    if (backends) log('audit: no --audit-policy-file, so no audit events are recorded');
    return undefined;
  }
  if (!backends) {
    log('audit: --audit-policy-file without a backend (--audit-log-path or a webhook): no audit events are recorded');
    return undefined;
  }
  if (opts.auditLog && !opts.auditLogWriter) void openLogWriter(opts.auditLog, log).close();
  return { evaluate: compilePolicy(policy), opts, webhook: buildWebhookAuditSink(opts, log), log };
}

/** Opens the backends of a checked plan and builds the chain's stage. */
export function openAudit(plan: AuditPlan, countEvents?: (n: number) => void): ServerAudit {
  const { opts, log } = plan;
  const sinks: AuditSink[] = [...(plan.webhook ? [plan.webhook] : []), ...(opts.auditBackends ?? [])];
  if (opts.auditLog) sinks.unshift(logBackend(opts.auditLog, opts.auditLogWriter ?? openLogWriter(opts.auditLog, log), log));
  const sink = sinks.length === 1 ? (sinks[0] as AuditSink) : new UnionSink(sinks);
  // Counted on the way in (the audit event metric); strictness is the real backends' own.
  const counted: AuditSink = countEvents ? countingSink(sink, countEvents) : sink;
  const stage = new AuditStage({ evaluate: plan.evaluate, sink: counted, strict: isStrictAuditSink(sink), log });
  const backends = sinks.map((s): [string, AuditSink] => [opts.auditLog && s === sinks[0] ? 'log' : s === plan.webhook ? 'webhook' : 'backend', s]);
  return { stage, shutdown: () => sink.shutdown(), backends };
}

/** The sink with every event counted on the way in; a strict sink stays strict (the stage asks it to deliver). */
function countingSink(sink: AuditSink, count: (n: number) => void): AuditSink {
  const counted: AuditSink = { processEvents: (events) => (count(events.length), sink.processEvents(events)), shutdown: () => sink.shutdown() };
  if (!isStrictAuditSink(sink)) return counted;
  const strict: StrictAuditSink = { ...counted, strict: true, deliver: (events) => (count(events.length), sink.deliver(events)) };
  return strict;
}
