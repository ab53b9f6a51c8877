/**
 * `orchctl wait --for=...`: watches each named (or selected) object until it meets the condition, is gone
 * (`delete`) or exists (`create`), within one shared `--timeout`. Progress goes to stderr now and then.
 */
import type { Command } from 'commander';
import { isNotFound, type KubeObject } from '../../client/index.js';
import { Reporter } from '../apply/report.js';
import { findTargets, targetRef, type Target } from '../apply/targets.js';
import type { CliContext, RegisterCommand } from '../contract.js';
import { PROGRESS_EVERY_MS, WaitTimeout, waitUntilGone } from './delete-wait.js';
import { conditionMet, parseTimeout, parseWaitFor, type WaitCondition } from './wait-conditions.js';

interface WaitFlags {
  for?: string;
  timeout: string;
  filename?: string[];
  recursive?: boolean;
  selector?: string;
  fieldSelector?: string;
  all?: boolean;
  allNamespaces?: boolean;
}

/** A negative timeout waits "forever": the reference's week. */
const FOREVER_MS = 7 * 24 * 3_600_000;

const describe = (c: WaitCondition): string =>
  c.kind === 'condition' ? `condition ${c.type}=${c.status}` : c.kind === 'jsonpath' ? `${c.template}${c.value === undefined ? ' to exist' : `=${c.value}`}` : c.kind;

/**
 * Resolves with the object once `met(obj)` holds (`obj` undefined = absent); throws WaitTimeout when
 * `deadline` passes first. With `deadline` already passed, checks once.
 */
async function watchUntil(ctx: CliContext, t: Target, deadline: number, what: string, met: (obj: KubeObject | undefined) => boolean): Promise<KubeObject | undefined> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), Math.max(0, deadline - Date.now()));
  const progress = setInterval(() => ctx.io.err(`waiting for ${targetRef(t)}: ${what}...\n`), PROGRESS_EVERY_MS);
  const selector = `metadata.name=${t.name}`;
  try {
    for (;;) {
      const list = await t.client.list({ fieldSelector: selector });
      if (met(list.items[0])) return list.items[0];
      if (abort.signal.aborted || Date.now() >= deadline) break;
      try {
        for await (const ev of t.client.watch({ fieldSelector: selector, resourceVersion: list.metadata.resourceVersion, signal: abort.signal })) {
          if (ev.type === 'BOOKMARK') continue;
          const obj = ev.type === 'DELETED' ? undefined : ev.object;
          if (met(obj)) return obj;
        }
      } catch (e) {
        if (!abort.signal.aborted) throw e;
      }
      if (abort.signal.aborted) break;
    }
  } finally {
    clearTimeout(timer);
    clearInterval(progress);
  }
  throw new WaitTimeout(`timed out waiting for the condition on ${t.info.plural}/${t.name}`);
}

async function waitForOne(ctx: CliContext, t: Target, cond: WaitCondition, deadline: number): Promise<KubeObject | undefined> {
  if (cond.kind === 'delete') {
    await waitUntilGone(ctx, t, undefined, { timeoutMs: Math.max(1, deadline - Date.now()), progress: true }).catch((e) => {
      throw e instanceof WaitTimeout ? new WaitTimeout(`timed out waiting for the condition on ${t.info.plural}/${t.name}`) : e;
    });
    return undefined;
  }
  if (cond.kind === 'create') return watchUntil(ctx, t, deadline, 'to be created', (obj) => obj !== undefined);
  // The object must exist to start with; a deletion while waiting ends the wait with an error.
  let deleted = false;
  const obj = await watchUntil(ctx, t, deadline, `${describe(cond)} not met yet`, (o) => {
    if (!o) return (deleted = true);
    return conditionMet(cond, o);
  });
  if (deleted) throw new Error(`${targetRef(t)} was deleted while waiting for ${describe(cond)}`);
  return obj;
}

export async function runWait(ctx: CliContext, args: string[], flags: WaitFlags): Promise<void> {
  if (!flags.for) throw new Error('wait needs --for=delete|create|condition=TYPE[=STATUS]|jsonpath={PATH}[=VALUE]');
  const cond = parseWaitFor(flags.for);
  const timeoutMs = parseTimeout(flags.timeout, '--timeout');
  const deadline = Date.now() + (timeoutMs < 0 ? FOREVER_MS : timeoutMs);
  if (cond.kind === 'create' && (flags.selector !== undefined || flags.all)) throw new Error('--for=create needs named objects, not a selector');
  if (args.length === 0 && !flags.filename?.length) throw new Error('name what to wait for: TYPE NAME..., TYPE/NAME..., -f FILE, or TYPE with -l or --all');
  const targets = await findTargets(ctx, args, flags);
  if (targets.length === 0) throw new Error('no matching objects found');
  const report = new Reporter(ctx, undefined);
  for (const t of targets) {
    try {
      if (cond.kind !== 'delete' && cond.kind !== 'create') await t.client.get(t.name);
      const obj = await waitForOne(ctx, t, cond, deadline);
      const shown: KubeObject = obj ?? { apiVersion: t.manifest?.apiVersion, kind: t.info.kind, metadata: { name: t.name, namespace: t.namespace } };
      ctx.printAction(shown, 'condition met', t.info);
    } catch (e) {
      // A missing object already meets --for=delete.
      if (cond.kind === 'delete' && isNotFound(e)) continue;
      report.fail(e);
    }
  }
  await report.finish();
}

export const registerWait: RegisterCommand = (program: Command, ctx: CliContext) => {
  program
    .command('wait')
    .description('Wait until objects meet a condition, are deleted, or exist')
    .argument('[args...]', 'TYPE NAME..., TYPE/NAME..., or TYPE[,TYPE] with -l or --all')
    .option('--for <condition>', 'delete, create, condition=TYPE[=STATUS] or jsonpath={PATH}[=VALUE]')
    .option('--timeout <duration>', 'how long to wait in all (0: check once; negative: a week)', '30s')
    .option('-f, --filename <file...>', 'files, folders or - (stdin) naming the objects')
    .option('-R, --recursive', 'read folders given to -f recursively')
    .option('-l, --selector <selector>', 'wait for the objects of TYPE matching this label selector')
    .option('--field-selector <selector>', 'wait for the objects of TYPE matching this field selector')
    .option('--all', 'wait for every object of TYPE in the namespace')
    .option('-A, --all-namespaces', 'with -l or --all: in every namespace')
    .action((args: string[], flags: WaitFlags) => runWait(ctx, args, flags));
};
