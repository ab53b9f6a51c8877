/**
 * `orchctl delete`: objects by name, from files, or by selector (`-l`, `--all`), with the deletion's
 * propagation (`--cascade`), grace period, and waiting until they are gone (`--wait`, on by default).
 */
import type { Command } from 'commander';
import { isNotFound, type DeleteOptions, type KubeObject } from '../../client/index.js';
import { parseDryRun, Reporter } from '../apply/report.js';
import { findTargets, targetRef, type Target } from '../apply/targets.js';
import type { CliContext, RegisterCommand } from '../contract.js';
import { deletedLine, kindRef, WaitTimeout, waitUntilGone } from './delete-wait.js';
import { parseTimeout } from './wait-conditions.js';

interface DeleteFlags {
  filename?: string[];
  recursive?: boolean;
  selector?: string;
  fieldSelector?: string;
  all?: boolean;
  allNamespaces?: boolean;
  ignoreNotFound?: boolean;
  wait: boolean;
  timeout?: string;
  cascade?: string | boolean;
  gracePeriod?: string;
  now?: boolean;
  force?: boolean;
  dryRun?: string | boolean;
  output?: string;
}

const CASCADE: Record<string, DeleteOptions['propagationPolicy']> = {
  background: 'Background',
  foreground: 'Foreground',
  orphan: 'Orphan',
  // The old boolean spellings: true was background, false orphan.
  true: 'Background',
  false: 'Orphan',
};

/** Pure: the delete options the flags stand for (grace period and propagation), as the reference reads them. */
export function deleteOptionsFrom(f: Pick<DeleteFlags, 'cascade' | 'gracePeriod' | 'now' | 'force'>): { options: DeleteOptions; immediate: boolean } {
  const cascadeText = f.cascade === undefined || f.cascade === true ? 'background' : String(f.cascade).toLowerCase();
  const propagationPolicy = CASCADE[cascadeText];
  if (!propagationPolicy) throw new Error(`invalid --cascade value "${String(f.cascade)}": use background, foreground or orphan`);
  let grace = f.gracePeriod === undefined ? -1 : Number(f.gracePeriod);
  if (!Number.isInteger(grace) || grace < -1) throw new Error(`invalid --grace-period "${f.gracePeriod}": a whole number of seconds, or -1 for the object's default`);
  if (f.now) {
    if (grace !== -1) throw new Error('--now and --grace-period cannot both be given');
    grace = 1;
  }
  // Zero means "skip graceful deletion" and is only honoured with --force; without it the shortest grace is 1.
  if (f.force && grace === -1) grace = 0;
  if (!f.force && grace === 0) grace = 1;
  const options: DeleteOptions = { propagationPolicy };
  if (grace >= 0) options.gracePeriodSeconds = grace;
  return { options, immediate: grace === 0 };
}

const uidOf = (answer: unknown): string | undefined => {
  const a = answer as { kind?: string; metadata?: { uid?: string }; details?: { uid?: string } };
  return a.kind === 'Status' ? a.details?.uid : a.metadata?.uid;
};

export async function runDelete(ctx: CliContext, args: string[], flags: DeleteFlags): Promise<void> {
  const dryRun = parseDryRun(flags.dryRun);
  const { options, immediate } = deleteOptionsFrom(flags);
  if (flags.all && flags.selector !== undefined) throw new Error('--all and -l cannot both be given');
  if (args.length === 0 && !flags.filename?.length) throw new Error('name what to delete: TYPE NAME..., TYPE/NAME..., -f FILE, or TYPE with -l or --all');
  if (flags.output !== undefined && flags.output !== 'name') throw new Error(`delete prints -o name only, not "${flags.output}"`);
  const timeoutMs = parseTimeout(flags.timeout ?? '0s', '--timeout');
  const bySelector = flags.all === true || flags.selector !== undefined || flags.fieldSelector !== undefined;
  const ignoreNotFound = flags.ignoreNotFound ?? bySelector;
  if (immediate) ctx.io.err('Warning: deleting immediately does not wait for the running workload to stop; it may keep running for a while.\n');
  const report = new Reporter(ctx, undefined, dryRun);
  const targets = await findTargets(ctx, args, flags);
  if (targets.length === 0) {
    report.line(bySelector && !flags.allNamespaces ? `No resources found in ${await ctx.namespace()} namespace.` : 'No resources found');
    return;
  }
  const deleted: { target: Target; uid?: string }[] = [];
  for (const t of targets) {
    try {
      // A client-side dry run still checks that the object exists, as the reference does.
      const answer = dryRun === 'client' ? await t.client.get(t.name) : await t.client.delete(t.name, { ...options, dryRun: dryRun === 'server' });
      deleted.push({ target: t, uid: uidOf(answer) });
      report.line(flags.output === 'name' ? kindRef(t) : deletedLine(t, answer as KubeObject, report.dryRun === 'client' ? ' (dry run)' : report.dryRun === 'server' ? ' (server dry run)' : ''));
    } catch (e) {
      if (ignoreNotFound && isNotFound(e)) continue;
      report.fail(e);
    }
  }
  if (flags.wait && dryRun === 'none') {
    for (const { target, uid } of deleted) {
      try {
        await waitUntilGone(ctx, target, uid, { timeoutMs, progress: true });
      } catch (e) {
        report.fail(e instanceof WaitTimeout ? new Error(`timed out waiting for ${targetRef(target)} to be deleted`) : e);
      }
    }
  }
  await report.finish();
}

export const registerDelete: RegisterCommand = (program: Command, ctx: CliContext) => {
  program
    .command('delete')
    .description('Delete objects by name, from files, or by label selector')
    .argument('[args...]', 'TYPE NAME..., TYPE/NAME..., or TYPE[,TYPE] with -l or --all')
    .option('-f, --filename <file...>', 'files, folders or - (stdin) naming the objects to delete')
    .option('-R, --recursive', 'read folders given to -f recursively')
    .option('-l, --selector <selector>', 'delete the objects of TYPE matching this label selector')
    .option('--field-selector <selector>', 'delete the objects of TYPE matching this field selector')
    .option('--all', 'delete every object of TYPE in the namespace')
    .option('-A, --all-namespaces', 'with -l or --all: in every namespace')
    .option('--ignore-not-found', 'a missing object is no error (the default with -l and --all)')
    .option('--wait', 'wait until the objects are gone (the default)', true)
    .option('--no-wait', 'return once the deletions are accepted')
    .option('--timeout <duration>', 'give up waiting after this long (e.g. 30s, 5m; 0 waits without limit)')
    .option('--cascade [policy]', 'what happens to dependents: background (the default), foreground or orphan')
    .option('--grace-period <seconds>', 'seconds the objects get to terminate (-1: their own default)')
    .option('--now', 'terminate at once (a grace period of 1 second)')
    .option('--force', 'skip graceful termination (a grace period of 0)')
    .option('--dry-run [strategy]', 'none, server (validated, not deleted) or client (nothing sent)')
    .option('-o, --output <format>', 'name: print TYPE/NAME lines instead')
    .action((args: string[], flags: DeleteFlags) => runDelete(ctx, args, flags));
};
