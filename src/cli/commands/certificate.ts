/**
 * `orchctl certificate approve|deny NAME... | -f FILE`: adds the Approved or Denied condition to
 * CertificateSigningRequests through their `approval` subresource. A request already carrying the condition
 * is left alone unless `--force`; one carrying the opposite condition is an error. Conflicts are retried
 * on a fresh copy, as the reference client does.
 */
import type { Command } from 'commander';
import { CERTIFICATES_GROUP, CLI_FIELD_MANAGER } from '../../api/naming.js';
import { isConflict, type KubeObject, type ResourceClient } from '../../client/index.js';
import { errorLine, reportedFailure } from '../apply/report.js';
import type { CliContext, RegisterCommand } from '../contract.js';

const RETRIES = 10;

export interface Decision {
  /** The condition added. */
  type: 'Approved' | 'Denied';
  /** The condition that makes adding it an error. */
  opposite: 'Approved' | 'Denied';
  reason: string;
  message: string;
  /** What the result line says. */
  action: 'approved' | 'denied';
}

/** Reasons name the client, as the reference's do (`<Client>Approve`). */
const CLIENT_TITLE = CLI_FIELD_MANAGER.charAt(0).toUpperCase() + CLI_FIELD_MANAGER.slice(1);

export const APPROVE: Decision = {
  type: 'Approved',
  opposite: 'Denied',
  reason: `${CLIENT_TITLE}Approve`,
  message: `Approved with ${CLI_FIELD_MANAGER} certificate approve.`,
  action: 'approved',
};
export const DENY: Decision = {
  type: 'Denied',
  opposite: 'Approved',
  reason: `${CLIENT_TITLE}Deny`,
  message: `Denied with ${CLI_FIELD_MANAGER} certificate deny.`,
  action: 'denied',
};

interface Condition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  lastUpdateTime?: string;
}

/**
 * Pure: the request with the decision's condition added, or `undefined` when it already has it; throws
 * when it carries the opposite condition.
 */
export function withDecision(csr: KubeObject, d: Decision, now: Date): KubeObject | undefined {
  const status = (csr.status ?? {}) as { conditions?: Condition[] };
  const conditions = status.conditions ?? [];
  if (conditions.some((c) => c.type === d.opposite)) throw new Error(`certificate signing request "${csr.metadata.name}" is already ${d.opposite}`);
  if (conditions.some((c) => c.type === d.type)) return undefined;
  const added: Condition = { type: d.type, status: 'True', reason: d.reason, message: d.message, lastUpdateTime: now.toISOString().replace(/\.\d{3}Z$/, 'Z') };
  return { ...csr, status: { ...status, conditions: [...conditions, added] } };
}

/** Decides one request: re-reads it after a conflict, up to RETRIES times. */
export async function decide(csrs: ResourceClient, name: string, d: Decision, force: boolean, now: () => Date = () => new Date()): Promise<KubeObject> {
  let current = await csrs.get(name);
  for (let attempt = 0; ; attempt++) {
    const changed = withDecision(current, d, now());
    if (!changed && !force) return current;
    try {
      return await csrs.update(changed ?? current, { subresource: 'approval' });
    } catch (e) {
      if (!isConflict(e) || attempt >= RETRIES) throw e;
      current = await csrs.get(name);
    }
  }
}

interface CertFlags {
  filename?: string[];
  recursive?: boolean;
  force?: boolean;
  output?: string;
}

async function run(ctx: CliContext, names: string[], f: CertFlags, d: Decision): Promise<void> {
  if (names.length === 0 && !(f.filename?.length)) throw new Error('name at least one certificate signing request, or give -f FILE');
  const format = f.output === undefined ? undefined : ctx.outputFormat(f.output);
  const targets = [...names];
  for (const m of f.filename?.length ? await ctx.readManifests(f.filename, f.recursive) : []) {
    if (m.object.kind !== 'CertificateSigningRequest' || !m.object.metadata?.name) throw new Error(`${m.source}: expected a CertificateSigningRequest with a name, found ${String(m.object.kind)}`);
    targets.push(m.object.metadata.name);
  }
  const client = await ctx.client();
  const csrs = client.resource({ group: CERTIFICATES_GROUP, version: 'v1', plural: 'certificatesigningrequests' });
  const resource = { plural: 'certificatesigningrequests', group: CERTIFICATES_GROUP };
  const done: KubeObject[] = [];
  let failed = 0;
  // One failure does not stop the others; the exit code reports it at the end.
  for (const name of targets) {
    try {
      const result = await decide(csrs, name, d, f.force === true);
      if (format && format.kind !== 'name') done.push(result);
      else ctx.printAction(result, d.action, resource, format);
    } catch (e) {
      failed++;
      ctx.io.err(`${errorLine(e)}\n`);
    }
  }
  if (format && done.length > 0) await ctx.print(done, format, { asList: done.length > 1 });
  if (failed > 0) throw reportedFailure();
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

function decisionCommand(parent: Command, ctx: CliContext, d: Decision, summary: string): void {
  parent
    .command(d === APPROVE ? 'approve' : 'deny')
    .description(summary)
    .argument('[names...]', 'certificate signing requests')
    .option('-f, --filename <file>', 'files, folders or - holding the requests (repeatable)', collect)
    .option('-R, --recursive', 'read folders given to -f recursively')
    .option('--force', 'write the condition again even when the request already has it')
    .option('-o, --output <format>', 'print the updated requests in this format')
    .action(async (names: string[], f: CertFlags) => run(ctx, names, f, d));
}

export const registerCertificate: RegisterCommand = (program: Command, ctx: CliContext) => {
  const cert = program.command('certificate').description('Approve or deny certificate signing requests');
  decisionCommand(cert, ctx, APPROVE, 'Approve certificate signing requests so that their signer may issue the certificates');
  decisionCommand(cert, ctx, DENY, 'Deny certificate signing requests so that no certificate is issued');
};
