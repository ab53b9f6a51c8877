/**
 * `orchctl auth can-i` (SelfSubjectAccessReview, or SelfSubjectRulesReview with `--list`) and
 * `orchctl auth whoami` (SelfSubjectReview). can-i exits 0 for yes and 1 for no, as the reference client.
 */
import type { Command } from 'commander';
import { AUTHENTICATION_GROUP, AUTHORIZATION_GROUP } from '../../api/naming.js';
import { StatusError } from '../../errors/index.js';
import { isNotFound, type Client, type KubeObject } from '../../client/index.js';
import type { CliContext, RegisterCommand } from '../contract.js';
import { ExitCode, UsageError } from '../errors.js';
import { accessRows, alignColumns, whoamiRows, type RulesReviewStatus, type UserInfo } from './auth-rules.js';

/** Verbs the reference knows for resources and for non-resource URLs; others get a warning, not an error. */
const RESOURCE_VERBS = new Set(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection', 'use', 'bind', 'impersonate', '*', 'approve', 'sign', 'escalate', 'attest']);
const NON_RESOURCE_VERBS = new Set(['get', 'put', 'post', 'head', 'options', 'delete', 'patch', '*']);
/** Resource names authorization knows that discovery does not list (impersonation targets). */
const NON_STANDARD_RESOURCES = new Set(['users', 'groups']);

export interface CanIArgs {
  verb: string;
  /** Set for a non-resource URL (an argument starting with `/`). */
  nonResourceURL?: string;
  /** `pods`, `deployments.apps`, `*` as typed. */
  resource?: string;
  name?: string;
}

/** Pure: the two positional arguments of can-i. */
export function parseCanIArgs(args: string[]): CanIArgs {
  if (args.length !== 2) throw new UsageError('auth can-i needs two arguments: VERB and TYPE, TYPE/NAME or a non-resource URL', 'auth can-i');
  const [verb, target] = args as [string, string];
  if (target.startsWith('/')) return { verb, nonResourceURL: target };
  const slash = target.indexOf('/');
  return slash < 0 ? { verb, resource: target } : { verb, resource: target.slice(0, slash), name: target.slice(slash + 1) };
}

interface CanIFlags {
  allNamespaces?: boolean;
  list?: boolean;
  noHeaders?: boolean;
  quiet?: boolean;
  subresource?: string;
}

/** Pure: the flag combinations the reference refuses. */
export function checkCanIFlags(args: string[], f: CanIFlags): void {
  if (f.list) {
    if (args.length !== 0) throw new UsageError('--list takes no arguments', 'auth can-i');
    if (f.quiet || f.allNamespaces || f.subresource) throw new UsageError('--list cannot be combined with --quiet, --all-namespaces or --subresource', 'auth can-i');
    return;
  }
  if (f.noHeaders) throw new UsageError('--no-headers applies to --list only', 'auth can-i');
}

const reviews = (client: Client, plural: string, group = AUTHORIZATION_GROUP) => client.resource({ group, version: 'v1', plural });

/** Resolves a typed resource to its plural and group; unknown ones are sent as typed, with a warning. */
async function resolveResource(ctx: CliContext, client: Client, typed: string): Promise<{ plural: string; group: string; namespaced?: boolean }> {
  if (typed === '*') return { plural: '*', group: '' };
  const lower = typed.toLowerCase();
  try {
    const info = await client.discovery.find(lower);
    return { plural: info.plural, group: info.group, namespaced: info.namespaced };
  } catch (e) {
    if (!(e instanceof StatusError) || e.code !== 404) throw e;
  }
  const dot = lower.indexOf('.');
  const plural = dot < 0 ? lower : lower.slice(0, dot);
  const group = dot < 0 ? '' : lower.slice(dot + 1);
  if (!NON_STANDARD_RESOURCES.has(lower)) {
    ctx.io.err(group ? `Warning: the server doesn't have a resource type '${plural}' in group '${group}'\n` : `Warning: the server doesn't have a resource type '${plural}'\n`);
  }
  return { plural, group };
}

async function runCanI(ctx: CliContext, args: string[], f: CanIFlags): Promise<void> {
  checkCanIFlags(args, f);
  const client = await ctx.client();
  const namespace = f.allNamespaces ? '' : await ctx.namespace();
  if (f.list) {
    const answer = await reviews(client, 'selfsubjectrulesreviews').create({ apiVersion: `${AUTHORIZATION_GROUP}/v1`, kind: 'SelfSubjectRulesReview', metadata: {}, spec: { namespace } } as KubeObject);
    const status = (answer.status ?? {}) as RulesReviewStatus;
    if (status.incomplete) ctx.io.err(`warning: the list may be incomplete: ${status.evaluationError ?? ''}\n`);
    ctx.io.out(alignColumns(accessRows(status, f.noHeaders === true)));
    return;
  }
  const parsed = parseCanIArgs(args);
  const spec: Record<string, unknown> = {};
  if (parsed.nonResourceURL !== undefined) {
    if (f.subresource) throw new UsageError('--subresource cannot be used with a non-resource URL', 'auth can-i');
    if (!NON_RESOURCE_VERBS.has(parsed.verb)) ctx.io.err(`Warning: verb '${parsed.verb}' is not a known verb\n`);
    spec.nonResourceAttributes = { verb: parsed.verb, path: parsed.nonResourceURL };
  } else {
    const r = await resolveResource(ctx, client, parsed.resource!);
    if (r.namespaced === false && !f.allNamespaces) {
      ctx.io.err(r.group ? `Warning: resource '${r.plural}' is not namespace scoped in group '${r.group}'\n` : `Warning: resource '${r.plural}' is not namespace scoped\n`);
    }
    if (!RESOURCE_VERBS.has(parsed.verb)) ctx.io.err(`Warning: verb '${parsed.verb}' is not a known verb\n`);
    spec.resourceAttributes = omitEmpty({ namespace, verb: parsed.verb, group: r.group, resource: r.plural, subresource: f.subresource, name: parsed.name });
  }
  const answer = await reviews(client, 'selfsubjectaccessreviews').create({ apiVersion: `${AUTHORIZATION_GROUP}/v1`, kind: 'SelfSubjectAccessReview', metadata: {}, spec } as KubeObject);
  const status = (answer.status ?? {}) as { allowed?: boolean; reason?: string; evaluationError?: string };
  if (status.allowed) {
    if (!f.quiet) ctx.io.out('yes\n');
    return;
  }
  if (!f.quiet) {
    let line = 'no';
    if (status.reason) line += ` - ${status.reason}`;
    if (status.evaluationError) line += ` - ${status.evaluationError}`;
    ctx.io.out(`${line}\n`);
  }
  // The answer is already printed; the exit code carries it.
  throw new ExitCode(1);
}

function omitEmpty(o: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(o)) if (v) out[k] = v;
  return out;
}

async function runWhoami(ctx: CliContext, o: { output?: string }): Promise<void> {
  const format = o.output === undefined ? undefined : ctx.outputFormat(o.output);
  if (format && format.kind !== 'json' && format.kind !== 'yaml') throw new UsageError(`auth whoami prints a table, json or yaml, not ${o.output}`, 'auth whoami');
  const client = await ctx.client();
  let answer: KubeObject;
  try {
    answer = await reviews(client, 'selfsubjectreviews', AUTHENTICATION_GROUP).create({ apiVersion: `${AUTHENTICATION_GROUP}/v1`, kind: 'SelfSubjectReview', metadata: {} } as KubeObject);
  } catch (e) {
    if (isNotFound(e)) throw new Error(`the server does not serve selfsubjectreviews.${AUTHENTICATION_GROUP}/v1: enable the APISelfSubjectReview feature on the server`);
    throw e;
  }
  if (format) return ctx.print([answer], format);
  const user = ((answer.status as { userInfo?: UserInfo } | undefined)?.userInfo ?? {}) as UserInfo;
  ctx.io.out(alignColumns(whoamiRows(user)));
}

export const registerAuth: RegisterCommand = (program: Command, ctx: CliContext) => {
  const auth = program.command('auth').description('Inspect what the current user is and may do');
  auth
    .command('can-i')
    .description('Ask the server whether the current user may perform an action (exit code 0: yes, 1: no)')
    .argument('[verb]', 'the verb, e.g. get, list, create, delete, or * for any')
    .argument('[target]', 'TYPE, TYPE/NAME (e.g. pods, deployments.apps/web) or a non-resource URL starting with /')
    .option('-A, --all-namespaces', 'ask about every namespace rather than the current one')
    .option('--list', 'list every action the current user may perform in the namespace')
    .option('--no-headers', 'with --list: print no header line')
    .option('-q, --quiet', 'print nothing; only the exit code answers')
    .option('--subresource <name>', 'a subresource of the resource, e.g. log or scale')
    .action(async (verb: string | undefined, target: string | undefined, opts: CanIFlags & { headers?: boolean }) => {
      const args = [verb, target].filter((a): a is string => a !== undefined);
      await runCanI(ctx, args, { ...opts, noHeaders: opts.headers === false });
    });
  auth
    .command('whoami')
    .description('Show the user the server sees for the current credentials')
    .option('-o, --output <format>', 'json or yaml instead of the table')
    .action(async (opts: { output?: string }) => runWhoami(ctx, opts));
};
