/**
 * `orchctl create -f FILE`: creates every object of the manifests, going on after one fails.
 * The `create <kind>` generators are subcommands of the same `create` command (other files).
 */
import type { Command } from 'commander';
import { CLI_FIELD_MANAGER } from '../../api/naming.js';
import { withLastApplied } from '../apply/last-applied.js';
import { parseDryRun, parseValidate, Reporter } from '../apply/report.js';
import { manifestTargets } from '../apply/targets.js';
import type { CliContext, RegisterCommand } from '../contract.js';
import { createCommand } from './create-parent.js';

interface CreateFlags {
  filename?: string[];
  recursive?: boolean;
  dryRun?: string | boolean;
  output?: string;
  saveConfig?: boolean;
  validate?: string | boolean;
  fieldManager: string;
}

export async function runCreateFromFiles(ctx: CliContext, flags: CreateFlags): Promise<void> {
  if (!flags.filename || flags.filename.length === 0) throw new Error('create needs -f FILE, or a kind to generate (see `create --help`)');
  const dryRun = parseDryRun(flags.dryRun);
  const fieldValidation = parseValidate(flags.validate);
  const report = new Reporter(ctx, flags.output, dryRun);
  const client = await ctx.client();
  for (const t of await manifestTargets(ctx, client, flags, false)) {
    const manifest = t.manifest ?? { metadata: {} };
    const body = flags.saveConfig ? withLastApplied(manifest) : manifest;
    try {
      // A client-side dry run sends nothing: the object is shown as it would be sent.
      const created = dryRun === 'client' ? body : await t.client.create(body, { dryRun: dryRun === 'server', fieldManager: flags.fieldManager, fieldValidation });
      report.done(created, 'created', t.info);
    } catch (e) {
      report.fail(e, `creating "${t.source}"`);
    }
  }
  await report.finish();
}

export const registerCreateFromFiles: RegisterCommand = (program: Command, ctx: CliContext) => {
  createCommand(program)
    .option('-f, --filename <file...>', 'files, folders or - (stdin) holding the objects to create')
    .option('-R, --recursive', 'read folders given to -f recursively')
    .option('--dry-run [strategy]', 'none, server (validated and admitted, not stored) or client (nothing sent)')
    .option('-o, --output <format>', 'print the created objects: yaml, json, name, jsonpath=...')
    .option('--save-config', 'record the object in the last-applied annotation, for a later apply')
    .option('--validate [mode]', 'unknown or duplicate fields: strict (refused), warn, ignore', 'strict')
    .option('--field-manager <name>', 'the manager recorded for the fields written', `${CLI_FIELD_MANAGER}-create`)
    .action((flags: CreateFlags) => runCreateFromFiles(ctx, flags));
};
