/**
 * `orchctl apply -f`: client-side apply (a three-way patch against the last-applied annotation, creating
 * what does not exist yet) or `--server-side` apply under a field manager.
 */
import type { Command } from 'commander';
import { CLI_FIELD_MANAGER, LAST_APPLIED_ANNOTATION } from '../../api/naming.js';
import { StatusError } from '../../errors/index.js';
import { isConflict, isNotFound, type KubeObject } from '../../client/index.js';
import { applyPatch, hasLastApplied, withLastApplied } from '../apply/last-applied.js';
import { Patcher } from '../apply/patcher.js';
import { parseDryRun, parseValidate, Reporter, type DryRun } from '../apply/report.js';
import { manifestTargets, targetRef, type Target } from '../apply/targets.js';
import type { CliContext, RegisterCommand } from '../contract.js';

interface ApplyFlags {
  filename?: string[];
  recursive?: boolean;
  serverSide?: boolean;
  fieldManager?: string;
  forceConflicts?: boolean;
  dryRun?: string | boolean;
  output?: string;
  validate?: string | boolean;
}

/** Conflicting writers between our read and our patch: read again and recompute, a few times. */
const CONFLICT_RETRIES = 5;

/** Pure: the flag combinations apply refuses, and the field manager it writes as. */
export function checkApplyFlags(f: ApplyFlags): { fieldManager: string } {
  if (!f.filename || f.filename.length === 0) throw new Error('apply needs -f FILE (files, folders or - for stdin)');
  if (f.forceConflicts && !f.serverSide) throw new Error('--force-conflicts applies to --server-side only');
  const fieldManager = f.fieldManager ?? (f.serverSide ? CLI_FIELD_MANAGER : `${CLI_FIELD_MANAGER}-client-side-apply`);
  if (fieldManager === '') throw new Error('--field-manager cannot be empty');
  return { fieldManager };
}

export async function runApply(ctx: CliContext, flags: ApplyFlags): Promise<void> {
  const { fieldManager } = checkApplyFlags(flags);
  const dryRun = parseDryRun(flags.dryRun);
  const fieldValidation = parseValidate(flags.validate);
  const report = new Reporter(ctx, flags.output, dryRun);
  const client = await ctx.client();
  const patcher = new Patcher(client);
  const targets = await manifestTargets(ctx, client, flags);
  for (const t of targets) {
    try {
      if (flags.serverSide) {
        if (dryRun === 'client') throw new Error('--dry-run=client cannot show a server-side apply: use --dry-run=server');
        const out = await t.client.apply(t.manifest as KubeObject, { fieldManager, force: flags.forceConflicts, dryRun: dryRun === 'server', fieldValidation });
        report.done(out, 'serverside-applied', t.info);
      } else {
        const { obj, action } = await clientSideApply(ctx, t, patcher, { fieldManager, dryRun, fieldValidation }, report.format?.kind);
        report.done(obj, action, t.info);
      }
    } catch (e) {
      report.fail(e, `applying "${t.source}"`);
      if (flags.serverSide && e instanceof StatusError && e.code === 409) {
        ctx.io.err(`Another field manager owns the fields above: take them over with --force-conflicts, or drop them from the file (${targetRef(t)}).\n`);
      }
    }
  }
  await report.finish();
}

interface ApplyWrite {
  fieldManager: string;
  dryRun: DryRun;
  fieldValidation: 'Strict' | 'Warn' | 'Ignore';
}

async function clientSideApply(ctx: CliContext, t: Target, patcher: Patcher, w: ApplyWrite, outputKind: string | undefined): Promise<{ obj: KubeObject; action: string }> {
  const manifest = t.manifest as KubeObject;
  const write = { dryRun: w.dryRun === 'server', fieldManager: w.fieldManager, fieldValidation: w.fieldValidation };
  for (let attempt = 0; ; attempt++) {
    let current: KubeObject;
    try {
      current = await t.client.get(t.name);
    } catch (e) {
      if (!isNotFound(e)) throw e;
      const body = withLastApplied(manifest);
      return { obj: w.dryRun === 'client' ? body : await t.client.create(body, write), action: 'created' };
    }
    if (attempt === 0 && !hasLastApplied(current)) {
      ctx.io.err(`Warning: ${targetRef(t)} has no ${LAST_APPLIED_ANNOTATION} annotation (it was not made by apply); it is added now, so later applies can remove fields too.\n`);
    }
    if (w.dryRun === 'client') {
      const schema = await patcher.schemaFor(manifest);
      const changed = Object.keys(applyPatch(manifest, current, schema)).length > 0;
      // Showing the patched object would need the server's merge; a client dry run only says what would happen.
      if (changed && outputKind !== undefined && outputKind !== 'name') throw new Error('a client-side dry run cannot print the patched object: use --dry-run=server');
      return { obj: current, action: changed ? 'configured' : 'unchanged' };
    }
    try {
      const out = await patcher.send(t.client, t.name, manifest, (schema) => applyPatch(manifest, current, schema), write);
      return out ? { obj: out, action: 'configured' } : { obj: current, action: 'unchanged' };
    } catch (e) {
      if (!isConflict(e) || attempt + 1 >= CONFLICT_RETRIES) throw e;
    }
  }
}

export const registerApply: RegisterCommand = (program: Command, ctx: CliContext) => {
  program
    .command('apply')
    .description('Create or update objects from files: client-side (three-way merge with the last applied configuration) or --server-side')
    .option('-f, --filename <file...>', 'files, folders or - (stdin) holding the objects to apply')
    .option('-R, --recursive', 'read folders given to -f recursively')
    .option('--server-side', 'let the server merge (server-side apply) under --field-manager')
    .option('--field-manager <name>', `the manager owning the applied fields (default ${CLI_FIELD_MANAGER} with --server-side, else ${CLI_FIELD_MANAGER}-client-side-apply)`)
    .option('--force-conflicts', 'with --server-side: take over fields other managers own')
    .option('--dry-run [strategy]', 'none, server (validated and admitted, not stored) or client (nothing sent)')
    .option('-o, --output <format>', 'print the applied objects: yaml, json, name, jsonpath=...')
    .option('--validate [mode]', 'unknown or duplicate fields: strict (refused), warn, ignore', 'strict')
    .action((flags: ApplyFlags) => runApply(ctx, flags));
};
