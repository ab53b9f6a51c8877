/**
 * `orchctl scale --replicas=N`: sets the replica count through each object's `scale` subresource, with the
 * reference's preconditions (`--current-replicas`, `--resource-version`).
 */
import type { Command } from 'commander';
import { CLI_FIELD_MANAGER } from '../../api/naming.js';
import type { KubeObject } from '../../client/index.js';
import { parseDryRun, Reporter } from '../apply/report.js';
import { findTargets } from '../apply/targets.js';
import type { CliContext, RegisterCommand } from '../contract.js';

interface ScaleFlags {
  replicas?: string;
  currentReplicas?: string;
  resourceVersion?: string;
  filename?: string[];
  recursive?: boolean;
  selector?: string;
  fieldSelector?: string;
  all?: boolean;
  allNamespaces?: boolean;
  dryRun?: string | boolean;
  output?: string;
}

/** Pure: a replica count flag (a whole number, at least `min`). */
export function parseReplicas(text: string | undefined, flag: string, min: number): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!/^-?\d+$/.test(text) || n < min) throw new Error(`invalid ${flag} "${text}": a whole number${min >= 0 ? ' of 0 or more' : ''}`);
  return n;
}

export async function runScale(ctx: CliContext, args: string[], flags: ScaleFlags): Promise<void> {
  const replicas = parseReplicas(flags.replicas, '--replicas', 0);
  if (replicas === undefined) throw new Error('scale needs --replicas=COUNT');
  // -1 is the reference's "no precondition".
  const expected = parseReplicas(flags.currentReplicas, '--current-replicas', -1);
  const dryRun = parseDryRun(flags.dryRun);
  const targets = await findTargets(ctx, args, flags);
  if (targets.length === 0) throw new Error('no objects to scale');
  if (flags.resourceVersion !== undefined && targets.length !== 1) throw new Error('--resource-version needs exactly one object');
  if (expected !== undefined && expected >= 0 && targets.length !== 1) throw new Error('--current-replicas needs exactly one object');
  const report = new Reporter(ctx, flags.output, dryRun);
  for (const t of targets) {
    try {
      if (!t.info.subresources.includes('scale')) throw new Error(`${t.info.plural}${t.info.group ? `.${t.info.group}` : ''} cannot be scaled: the server serves no scale subresource for them`);
      const scale = await t.client.getScale(t.name);
      const now = (scale.spec as { replicas?: number } | undefined)?.replicas ?? 0;
      if (expected !== undefined && expected >= 0 && now !== expected) throw new Error(`expected ${expected} replicas, found ${now}: not scaled`);
      if (flags.resourceVersion !== undefined && scale.metadata.resourceVersion !== flags.resourceVersion) {
        throw new Error(`expected resourceVersion ${flags.resourceVersion}, found ${scale.metadata.resourceVersion ?? ''}: not scaled`);
      }
      const body: Record<string, unknown> = { spec: { replicas } };
      if (flags.resourceVersion !== undefined) body.metadata = { resourceVersion: flags.resourceVersion };
      if (dryRun !== 'client') {
        await t.client.patch(t.name, 'merge', body, { subresource: 'scale', dryRun: dryRun === 'server', fieldManager: `${CLI_FIELD_MANAGER}-scale` });
      }
      // The printed object is the scaled one (not the Scale), as the reference prints it.
      const needsObject = report.format !== undefined && report.format.kind !== 'name';
      const obj: KubeObject = needsObject ? await t.client.get(t.name) : { apiVersion: t.manifest?.apiVersion, kind: t.info.kind, metadata: { name: t.name, namespace: t.namespace } };
      report.done(obj, 'scaled', t.info);
    } catch (e) {
      report.fail(e);
    }
  }
  await report.finish();
}

export const registerScale: RegisterCommand = (program: Command, ctx: CliContext) => {
  program
    .command('scale')
    .description('Set the number of replicas of deployments, replica sets, stateful sets and other scalable objects')
    .argument('[args...]', 'TYPE NAME..., TYPE/NAME..., or TYPE with -l or --all')
    .option('--replicas <count>', 'the new number of replicas')
    .option('--current-replicas <count>', 'scale only if the object has this many replicas now (-1: any)')
    .option('--resource-version <version>', 'scale only if the object is still at this resourceVersion')
    .option('-f, --filename <file...>', 'files, folders or - (stdin) naming the objects')
    .option('-R, --recursive', 'read folders given to -f recursively')
    .option('-l, --selector <selector>', 'the objects of TYPE matching this label selector')
    .option('--field-selector <selector>', 'the objects of TYPE matching this field selector')
    .option('--all', 'every object of TYPE in the namespace')
    .option('-A, --all-namespaces', 'with -l or --all: in every namespace')
    .option('--dry-run [strategy]', 'none, server (validated, not stored) or client (nothing sent)')
    .option('-o, --output <format>', 'print the scaled objects: yaml, json, name, jsonpath=...')
    .action((args: string[], flags: ScaleFlags) => runScale(ctx, args, flags));
};
