/**
 * `orchctl create token SERVICEACCOUNT`: a TokenRequest on the account's `token` subresource (spec 5.4),
 * printing the token. As the reference, no trailing newline unless stdout is a terminal, so that
 * `$(orchctl create token x)` and pipes get the bare token.
 */
import type { Command } from 'commander';
import { AUTHENTICATION_GROUP } from '../../api/naming.js';
import type { KubeObject } from '../../client/index.js';
import { parseGoDuration } from '../../util/duration.js';
import type { CliContext, RegisterCommand } from '../contract.js';
import { withParentFlags } from './create-generators.js';
import { createCommand } from './create-parent.js';

/** Kinds a token can be bound to, with their apiVersion (the server supports these two). */
const BOUND_OBJECT_KINDS: Record<string, string> = { Pod: 'v1', Secret: 'v1' };

export interface TokenFlags {
  audience?: string[];
  duration?: string;
  boundObjectKind?: string;
  boundObjectName?: string;
  boundObjectUid?: string;
}

/** Pure: checks the flags and builds the TokenRequest body. */
export function tokenRequestFor(f: TokenFlags): KubeObject {
  let seconds = 0;
  if (f.duration !== undefined) {
    const ms = parseGoDuration(f.duration);
    if (ms === undefined) throw new Error(`--duration: "${f.duration}" is not a duration (examples: 10m, 1h, 3600s)`);
    if (ms < 0) throw new Error('--duration must be positive');
    if (ms % 1000 !== 0) throw new Error('--duration must be a whole number of seconds');
    seconds = ms / 1000;
  }
  const audiences = f.audience ?? [];
  if (audiences.some((a) => a === '')) throw new Error('--audience must not be empty');
  const spec: Record<string, unknown> = { audiences };
  if (seconds > 0) spec.expirationSeconds = seconds;
  if (!f.boundObjectKind) {
    if (f.boundObjectName) throw new Error('--bound-object-name needs --bound-object-kind');
    if (f.boundObjectUid) throw new Error('--bound-object-uid needs --bound-object-kind');
  } else {
    const apiVersion = BOUND_OBJECT_KINDS[f.boundObjectKind];
    if (!apiVersion) throw new Error(`--bound-object-kind must be one of ${Object.keys(BOUND_OBJECT_KINDS).join(', ')}`);
    if (!f.boundObjectName) throw new Error('--bound-object-kind needs --bound-object-name');
    const ref: Record<string, string> = { kind: f.boundObjectKind, apiVersion, name: f.boundObjectName };
    if (f.boundObjectUid) ref.uid = f.boundObjectUid;
    spec.boundObjectRef = ref;
  }
  return { apiVersion: `${AUTHENTICATION_GROUP}/v1`, kind: 'TokenRequest', metadata: {}, spec };
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

async function runCreateToken(ctx: CliContext, account: string, f: TokenFlags & { output?: string }): Promise<void> {
  const body = tokenRequestFor(f);
  const format = f.output === undefined ? undefined : ctx.outputFormat(f.output);
  const client = await ctx.client();
  const accounts = client.resource({ group: '', version: 'v1', plural: 'serviceaccounts' }, await ctx.namespace());
  let answer: KubeObject;
  try {
    answer = await accounts.create({ ...body, metadata: { name: account } }, { subresource: 'token', name: account });
  } catch (e) {
    throw withPrefix(e, 'failed to create token: ');
  }
  const token = (answer.status as { token?: string } | undefined)?.token;
  if (!token) throw new Error('failed to create token: the server answered without a token');
  if (format) return ctx.print([answer], format);
  ctx.io.out(ctx.io.stdoutIsTTY ? `${token}\n` : token);
}

/** As the reference, a server refusal is reported as a plain error with the context in front. */
function withPrefix(e: unknown, prefix: string): Error {
  return new Error(prefix + (e instanceof Error ? e.message : String(e)));
}

export const registerCreateToken: RegisterCommand = (program: Command, ctx: CliContext) => {
  createCommand(program)
    .command('token')
    .description('Request a service account token from the server')
    .argument('<serviceaccount>', 'the service account, in the current namespace')
    .option('--audience <audience>', 'an audience of the token (repeatable); the server default when none', collect)
    .option('--duration <duration>', 'how long the token lives, e.g. 10m or 1h; the server may shorten it (0: server default)')
    .option('--bound-object-kind <kind>', `bind the token to an object of this kind (${Object.keys(BOUND_OBJECT_KINDS).join(', ')}): it stops working when that object is deleted`)
    .option('--bound-object-name <name>', 'the name of the bound object')
    .option('--bound-object-uid <uid>', 'the uid the bound object must have (default: its current uid)')
    .option('-o, --output <format>', 'print the TokenRequest in this format rather than the bare token')
    .action(async (account: string, opts: TokenFlags & { output?: string }, cmd: Command) => runCreateToken(ctx, account, withParentFlags(cmd, opts)));
};
