/**
 * `--audit-policy-file` and the log backend's flags (`--audit-log-*`, spec 2.11), parsed into ServerOptions;
 * every mistake is an Error naming the flag. The policy file is read and checked here too, so a bad file
 * stops the start before any worker process is forked.
 */
import { resolve } from 'node:path';
import { loadPolicyFile } from '../audit/policy.js';
import { checkAuditLogOptions, type AuditLogMode, type AuditLogOptions } from '../audit/log-sink.js';
import type { AuditLogFormat } from '../audit/log-format.js';
import type { ServerOptions } from '../server/index.js';
import { logBatchFromFlags } from './audit-batch-flags.js';

const LOG_FLAGS = ['path', 'format', 'mode', 'maxage', 'maxbackup', 'maxsize'] as const;

/** The parseArgs declarations of these flags (spread into the server's option table). */
export const AUDIT_FLAG_OPTIONS: Record<string, { type: 'string' }> = Object.fromEntries([
  ['audit-policy-file', { type: 'string' as const }],
  ...LOG_FLAGS.map((f) => [`audit-log-${f}`, { type: 'string' as const }]),
]);

export const AUDIT_USAGE = `  --audit-policy-file=PATH        audit Policy (audit.orch.io/v1, YAML or JSON): which requests are recorded, at which level
  --audit-log-path=PATH           write audit events to this file (- for standard output); nothing is recorded without a policy
  --audit-log-format=json         json (one Event a line) or legacy (one line of text per event)
  --audit-log-mode=blocking       blocking (requests wait for their events to be written), blocking-strict (and fail
                                  when the RequestReceived event cannot be), or batch (requests never wait)
  --audit-log-maxsize=0           megabytes before the file is rotated to <name>-<time>.<ext> (0: 100)
  --audit-log-maxbackup=0         rotated files kept (0: all); --audit-log-maxage=0   days they are kept (0: no limit)
`;

type Values = Record<string, string | boolean | string[] | undefined>;

function count(flag: string, v: string): number {
  if (!/^[+-]?\d+$/.test(v)) throw new Error(`${flag}: invalid integer "${v}"`);
  return Number(v);
}

/** Fills `opts.auditPolicyFile` and `opts.auditLog`; the log's other flags mean nothing without its path. */
export function auditFlags(values: Values, opts: ServerOptions): void {
  const str = (k: string) => values[k] as string | undefined;
  const policy = str('audit-policy-file');
  if (policy !== undefined) {
    if (policy === '') throw new Error('--audit-policy-file: a file path is required');
    opts.auditPolicyFile = resolve(policy);
    loadPolicyFile(opts.auditPolicyFile);
  }
  const path = str('audit-log-path');
  if (path === undefined) {
    const alone = LOG_FLAGS.find((f) => f !== 'path' && values[`audit-log-${f}`] !== undefined);
    if (alone) throw new Error(`--audit-log-${alone}: needs --audit-log-path`);
    return;
  }
  const log: AuditLogOptions = { path: path === '-' || path === '' ? path : resolve(path) };
  const format = str('audit-log-format');
  if (format !== undefined) log.format = format as AuditLogFormat; // checked below
  const mode = str('audit-log-mode');
  if (mode !== undefined) log.mode = mode as AuditLogMode;
  const maxAge = str('audit-log-maxage');
  if (maxAge !== undefined) log.maxAgeDays = count('--audit-log-maxage', maxAge);
  const maxBackup = str('audit-log-maxbackup');
  if (maxBackup !== undefined) log.maxBackups = count('--audit-log-maxbackup', maxBackup);
  const maxSize = str('audit-log-maxsize');
  if (maxSize !== undefined) log.maxSizeMB = count('--audit-log-maxsize', maxSize);
  const batch = logBatchFromFlags(values);
  if (batch) log.batch = batch;
  checkAuditLogOptions(log);
  opts.auditLog = log;
}
