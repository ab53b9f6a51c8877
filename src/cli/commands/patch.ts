/**
 * `orchctl patch`: sends a strategic merge (the default), JSON merge or JSON patch, given inline (`-p`,
 * JSON or YAML) or in a file (`--patch-file`), to named objects or those of `-f`.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { parse as parseYaml } from 'yaml';
import { CLI_FIELD_MANAGER } from '../../api/naming.js';
import type { PatchType } from '../../client/index.js';
import { parseDryRun, Reporter } from '../apply/report.js';
import { findTargets } from '../apply/targets.js';
import type { CliContext, RegisterCommand } from '../contract.js';

interface PatchFlags {
  patch?: string;
  patchFile?: string;
  type: string;
  subresource?: string;
  filename?: string[];
  recursive?: boolean;
  dryRun?: string | boolean;
  output?: string;
  fieldManager: string;
}

const TYPES: Record<string, PatchType> = { strategic: 'strategic', merge: 'merge', json: 'json' };

/** Pure: the patch body from its text, checked against its type. */
export function parsePatch(text: string, type: PatchType, where: string): unknown {
  let body: unknown;
  try {
    body = parseYaml(text);
  } catch (e) {
    throw new Error(`${where}: not JSON or YAML: ${(e as Error).message}`);
  }
  if (type === 'json') {
    if (!Array.isArray(body)) throw new Error(`${where}: a json patch is a list of operations ([{"op": ..., "path": ...}])`);
  } else if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new Error(`${where}: a ${type} patch is a map of fields`);
  }
  return body;
}

export async function runPatch(ctx: CliContext, args: string[], flags: PatchFlags): Promise<void> {
  const type = TYPES[flags.type];
  if (!type) throw new Error(`invalid --type "${flags.type}": use strategic, merge or json`);
  if ((flags.patch === undefined) === (flags.patchFile === undefined)) throw new Error('give the patch with exactly one of -p PATCH and --patch-file FILE');
  const where = flags.patchFile ?? '-p';
  const text = flags.patch ?? readFileSync(flags.patchFile as string, 'utf8');
  const body = parsePatch(text, type, where);
  const dryRun = parseDryRun(flags.dryRun);
  const report = new Reporter(ctx, flags.output, dryRun);
  if (dryRun === 'client' && report.format && report.format.kind !== 'name') throw new Error('a client-side dry run cannot print the patched object: use --dry-run=server');
  const targets = await findTargets(ctx, args, flags);
  if (targets.length === 0) throw new Error('no objects to patch');
  for (const t of targets) {
    try {
      if (flags.subresource && !t.info.subresources.includes(flags.subresource)) throw new Error(`${t.info.plural} have no subresource "${flags.subresource}"`);
      const before = await t.client.get(t.name, flags.subresource ? { subresource: flags.subresource } : {});
      if (dryRun === 'client') {
        report.done(before, 'patched', t.info);
        continue;
      }
      const out = await t.client.patch(t.name, type, body, { dryRun: dryRun === 'server', fieldManager: flags.fieldManager, subresource: flags.subresource });
      const changed = out.metadata?.resourceVersion !== before.metadata?.resourceVersion;
      report.done(out, changed || dryRun === 'server' ? 'patched' : 'patched (no change)', t.info);
    } catch (e) {
      report.fail(e);
    }
  }
  await report.finish();
}

export const registerPatch: RegisterCommand = (program: Command, ctx: CliContext) => {
  program
    .command('patch')
    .description('Change fields of objects with a strategic merge, JSON merge or JSON patch')
    .argument('[args...]', 'TYPE NAME... or TYPE/NAME...')
    .option('-p, --patch <patch>', 'the patch, as JSON or YAML')
    .option('--patch-file <file>', 'a file holding the patch')
    .option('--type <type>', 'strategic, merge or json', 'strategic')
    .option('--subresource <name>', 'patch this subresource (status, scale, ...) instead of the object')
    .option('-f, --filename <file...>', 'files, folders or - (stdin) naming the objects')
    .option('-R, --recursive', 'read folders given to -f recursively')
    .option('--dry-run [strategy]', 'none, server (validated, not stored) or client (nothing sent)')
    .option('-o, --output <format>', 'print the patched objects: yaml, json, name, jsonpath=...')
    .option('--field-manager <name>', 'the manager recorded for the fields written', `${CLI_FIELD_MANAGER}-patch`)
    .action((args: string[], flags: PatchFlags) => runPatch(ctx, args, flags));
};
