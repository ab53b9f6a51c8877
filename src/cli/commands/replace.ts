/**
 * `orchctl replace -f`: a whole-object update (PUT) of each object; `--force` deletes and creates it again.
 */
import type { Command } from 'commander';
import { CLI_FIELD_MANAGER } from '../../api/naming.js';
import type { KubeObject } from '../../client/index.js';
import { withLastApplied } from '../apply/last-applied.js';
import { parseDryRun, parseValidate, Reporter } from '../apply/report.js';
import { manifestTargets } from '../apply/targets.js';
import type { CliContext, RegisterCommand } from '../contract.js';
import { deletedLine, waitUntilGone } from './delete-wait.js';

interface ReplaceFlags {
  filename?: string[];
  recursive?: boolean;
  force?: boolean;
  gracePeriod?: string;
  saveConfig?: boolean;
  dryRun?: string | boolean;
  output?: string;
  validate?: string | boolean;
  fieldManager: string;
}

export async function runReplace(ctx: CliContext, flags: ReplaceFlags): Promise<void> {
  if (!flags.filename || flags.filename.length === 0) throw new Error('replace needs -f FILE (files, folders or - for stdin)');
  const dryRun = parseDryRun(flags.dryRun);
  if (flags.force && dryRun !== 'none') throw new Error('--force cannot be combined with --dry-run');
  if (flags.gracePeriod !== undefined && !flags.force) throw new Error('--grace-period applies with --force only');
  const grace = flags.gracePeriod === undefined ? undefined : Number(flags.gracePeriod);
  if (grace !== undefined && (!Number.isInteger(grace) || grace < -1)) throw new Error(`invalid --grace-period "${flags.gracePeriod}": a whole number of seconds, or -1 for the object's default`);
  const fieldValidation = parseValidate(flags.validate);
  const report = new Reporter(ctx, flags.output, dryRun);
  const client = await ctx.client();
  for (const t of await manifestTargets(ctx, client, flags)) {
    const manifest = t.manifest as KubeObject;
    const body = flags.saveConfig ? withLastApplied(manifest) : manifest;
    const write = { dryRun: dryRun === 'server', fieldManager: flags.fieldManager, fieldValidation };
    try {
      let out: KubeObject;
      if (flags.force) {
        const gone = await t.client.delete(t.name, grace === undefined || grace < 0 ? {} : { gracePeriodSeconds: grace });
        report.line(deletedLine(t, manifest));
        await waitUntilGone(ctx, t, (gone as KubeObject).metadata?.uid, { timeoutMs: 60_000 });
        const fresh = structuredClone(body);
        if (fresh.metadata) delete fresh.metadata.resourceVersion;
        out = await t.client.create(fresh, write);
      } else {
        out = dryRun === 'client' ? body : await t.client.update(body, write);
      }
      report.done(out, 'replaced', t.info);
    } catch (e) {
      report.fail(e, `replacing "${t.source}"`);
    }
  }
  await report.finish();
}

export const registerReplace: RegisterCommand = (program: Command, ctx: CliContext) => {
  program
    .command('replace')
    .description('Replace objects with the versions in files (a whole-object update)')
    .option('-f, --filename <file...>', 'files, folders or - (stdin) holding the objects')
    .option('-R, --recursive', 'read folders given to -f recursively')
    .option('--force', 'delete each object and create it again')
    .option('--grace-period <seconds>', 'with --force: seconds the object gets to terminate (-1: its own default)')
    .option('--save-config', 'record the object in the last-applied annotation, for a later apply')
    .option('--dry-run [strategy]', 'none, server (validated and admitted, not stored) or client (nothing sent)')
    .option('-o, --output <format>', 'print the replaced objects: yaml, json, name, jsonpath=...')
    .option('--validate [mode]', 'unknown or duplicate fields: strict (refused), warn, ignore', 'strict')
    .option('--field-manager <name>', 'the manager recorded for the fields written', `${CLI_FIELD_MANAGER}-replace`)
    .action((flags: ReplaceFlags) => runReplace(ctx, flags));
};
