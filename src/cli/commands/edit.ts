/**
 * `orchctl edit`: opens the objects in an editor and sends the changes as a patch (strategic merge for
 * built-in kinds, JSON merge for custom resources) conditional on the resourceVersion that was shown.
 * A save the server refuses (invalid, or a conflict with a newer version) opens the file again with the
 * reason as a comment and the user's text kept; a conflict moves the condition to the newest version, so
 * saving again applies the user's own changes on top of it.
 */
import type { Command } from 'commander';
import { CLI_FIELD_MANAGER } from '../../api/naming.js';
import { StatusError } from '../../errors/index.js';
import { isConflict, type KubeObject } from '../../client/index.js';
import { Patcher } from '../apply/patcher.js';
import { reportedFailure, Reporter } from '../apply/report.js';
import { findTargets, targetRef, type Target } from '../apply/targets.js';
import { jsonEqual, twoWayPatch } from '../apply/three-way.js';
import type { CliContext, RegisterCommand } from '../contract.js';
import { EditFile, parseEdited, renderDocument, renderHeader, stripComments, type EditFormat } from './edit-session.js';

interface EditFlags {
  output?: string;
  filename?: string[];
  recursive?: boolean;
  subresource?: string;
  fieldManager: string;
}

interface Pending {
  target: Target;
  /** What the user was shown first: their changes are the difference from it. */
  shown: KubeObject;
  /** The resourceVersion the patch is conditional on. */
  resourceVersion: string | undefined;
}

const identity = (o: KubeObject) => `${o.apiVersion ?? ''}|${o.kind ?? ''}|${o.metadata?.namespace ?? ''}|${o.metadata?.name ?? ''}`;

/** Pure: a refusal as comment lines for the reopened file. */
export function problemLines(ref: string, e: unknown): string[] {
  const message = e instanceof Error ? e.message : String(e);
  const reason = e instanceof StatusError ? ` (${e.reason})` : '';
  return [`${ref} was not saved${reason}:`, ...message.split('\n').map((l) => `  ${l}`)];
}

export async function runEdit(ctx: CliContext, args: string[], flags: EditFlags): Promise<void> {
  const format: EditFormat = flags.output === undefined || flags.output === 'yaml' ? 'yaml' : flags.output === 'json' ? 'json' : (() => {
    throw new Error(`edit shows yaml or json, not "${flags.output}"`);
  })();
  const targets = await findTargets(ctx, args, flags);
  if (targets.length === 0) throw new Error('no objects to edit');
  const client = await ctx.client();
  const patcher = new Patcher(client);
  const sub = flags.subresource ? { subresource: flags.subresource } : {};
  let pending: Pending[] = [];
  for (const t of targets) {
    const obj = await t.client.get(t.name, sub);
    pending.push({ target: t, shown: obj, resourceVersion: obj.metadata.resourceVersion });
  }
  const file = new EditFile(format);
  const report = new Reporter(ctx, undefined);
  let text = renderDocument(pending.map((p) => p.shown), format);
  let problems: string[] = [];
  // After a conflict the text needs no change: saving it again is the retry.
  let sameTextRetries = false;
  try {
    for (;;) {
      const saved = await file.edit(renderHeader(problems) + text, ctx.io.env);
      const body = stripComments(saved);
      if (body.trim() === '' || (problems.length === 0 && body === stripComments(text))) {
        ctx.io.err('Edit cancelled, no changes made.\n');
        return;
      }
      if (problems.length > 0 && !sameTextRetries && body === stripComments(text)) {
        ctx.io.err(`error: Edit cancelled, no valid changes were saved. Your text is kept in ${file.keep(saved)}\n`);
        throw reportedFailure();
      }
      text = body;
      let edited: KubeObject[];
      try {
        edited = parseEdited(body);
      } catch (e) {
        problems = [`the file could not be read: ${(e as Error).message}`];
        continue;
      }
      problems = [];
      sameTextRetries = false;
      const known = new Set(pending.map((p) => identity(p.shown)));
      const renamed = edited.filter((o) => !known.has(identity(o)));
      if (renamed.length > 0) {
        problems = renamed.map((o) => `${o.kind ?? '?'} "${o.metadata?.name ?? ''}": apiVersion, kind, name and namespace cannot be changed in an edit`);
        continue;
      }
      const retry: Pending[] = [];
      let conflictsOnly = true;
      const byIdentity = new Map(edited.map((o) => [identity(o), o]));
      for (const p of pending) {
        const mine = byIdentity.get(identity(p.shown));
        // An object left out of the saved file, or unchanged, is not touched.
        if (!mine || jsonEqual(mine, p.shown)) continue;
        const outcome = await saveOne(patcher, p, mine, flags, sub.subresource);
        if (outcome.kind === 'saved') report.done(mine, 'edited', p.target.info);
        else if (outcome.kind === 'failed') report.fail(outcome.error);
        else {
          problems.push(...outcome.problems);
          retry.push(outcome.next);
          conflictsOnly &&= outcome.conflict;
        }
      }
      if (retry.length === 0) return await report.finish();
      pending = retry;
      sameTextRetries = conflictsOnly;
      text = renderDocument(edited.filter((o) => retry.some((p) => identity(p.shown) === identity(o))).map((o) => withVersion(o, retry)), format);
    }
  } finally {
    file.remove();
  }
}

/** The user's object with the resourceVersion its next save is conditional on. */
function withVersion(o: KubeObject, pending: Pending[]): KubeObject {
  const p = pending.find((x) => identity(x.shown) === identity(o));
  return p ? { ...o, metadata: { ...o.metadata, resourceVersion: p.resourceVersion } } : o;
}

type SaveOutcome = { kind: 'saved' } | { kind: 'failed'; error: unknown } | { kind: 'retry'; problems: string[]; next: Pending; conflict: boolean };

async function saveOne(patcher: Patcher, p: Pending, mine: KubeObject, flags: EditFlags, subresource?: string): Promise<SaveOutcome> {
  const { resourceVersion: _shownRv, ...shownMeta } = p.shown.metadata;
  const { resourceVersion: _myRv, ...myMeta } = mine.metadata ?? {};
  const compute = (schema: Parameters<typeof twoWayPatch>[2]) => {
    const patch = twoWayPatch({ ...p.shown, metadata: shownMeta }, { ...mine, metadata: myMeta }, schema);
    if (Object.keys(patch).length === 0) return patch;
    // Conditional on the version shown: a newer one is a conflict rather than a silent overwrite.
    const meta = (patch.metadata ?? {}) as Record<string, unknown>;
    return { ...patch, metadata: { ...meta, resourceVersion: p.resourceVersion } };
  };
  try {
    await patcher.send(p.target.client, p.target.name, mine, compute, { fieldManager: flags.fieldManager, subresource });
    return { kind: 'saved' };
  } catch (e) {
    if (isConflict(e)) {
      const latest = await p.target.client.get(p.target.name, subresource ? { subresource } : {});
      const lines = problemLines(targetRef(p.target), e);
      lines.push(`It changed since it was opened (now resourceVersion ${latest.metadata.resourceVersion ?? '?'}); saving again applies your changes to that version.`);
      return { kind: 'retry', problems: lines, next: { ...p, resourceVersion: latest.metadata.resourceVersion }, conflict: true };
    }
    if (e instanceof StatusError && (e.code === 422 || e.code === 400)) return { kind: 'retry', problems: problemLines(targetRef(p.target), e), next: p, conflict: false };
    return { kind: 'failed', error: e };
  }
}

export const registerEdit: RegisterCommand = (program: Command, ctx: CliContext) => {
  program
    .command('edit')
    .description(`Edit objects in your editor (${'$'}EDITOR) and save the changes`)
    .argument('[args...]', 'TYPE NAME... or TYPE/NAME...')
    .option('-o, --output <format>', 'show the objects as yaml (the default) or json')
    .option('-f, --filename <file...>', 'files, folders or - (stdin) naming the objects')
    .option('-R, --recursive', 'read folders given to -f recursively')
    .option('--subresource <name>', 'edit this subresource (status, ...) instead of the object')
    .option('--field-manager <name>', 'the manager recorded for the fields written', `${CLI_FIELD_MANAGER}-edit`)
    .action((args: string[], flags: EditFlags) => runEdit(ctx, args, flags));
};
