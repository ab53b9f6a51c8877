/**
 * What `label` and `annotate` share: `KEY=VALUE` and `KEY-` arguments, the `--overwrite` check against
 * the object's current map, and one JSON merge patch of `metadata.labels` or `metadata.annotations`.
 */
import type { Command } from 'commander';
import { CLI_FIELD_MANAGER } from '../../api/naming.js';
import type { KubeObject } from '../../client/index.js';
import { parseDryRun, Reporter } from '../apply/report.js';
import { findTargets } from '../apply/targets.js';
import type { CliContext } from '../contract.js';

export interface MapChanges {
  set: Record<string, string>;
  remove: string[];
}

export interface MapKind {
  /** `labels` or `annotations`. */
  field: 'labels' | 'annotations';
  /** The word in messages and the action: `label` → `labeled`. */
  noun: string;
  verb: string;
  /** The action when only removals were asked (`unlabeled`), and when nothing changed (`not labeled`). */
  removedVerb: string;
  unchangedVerb: string;
  /** Checks one change; returns a problem or undefined. */
  check(key: string, value?: string): string | undefined;
}

const NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Pure: a problem with a qualified key (`[prefix/]name`), or undefined. */
export function qualifiedKeyProblem(key: string): string | undefined {
  const slash = key.indexOf('/');
  const prefix = slash < 0 ? undefined : key.slice(0, slash);
  const name = slash < 0 ? key : key.slice(slash + 1);
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !SUBDOMAIN.test(prefix))) return `the prefix of "${key}" must be a DNS subdomain (lower case, at most 253 characters)`;
  if (name.length === 0 || name.length > 63 || !NAME.test(name)) return `the name part of "${key}" must be at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit`;
  return undefined;
}

/** Pure: a problem with a label value, or undefined. */
export function labelValueProblem(value: string): string | undefined {
  if (value === '') return undefined;
  return value.length <= 63 && NAME.test(value) ? undefined : `the value "${value}" must be at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit`;
}

/** Pure: splits arguments into resource arguments and map changes (`K=V` sets, `K-` removes). */
export function splitChanges(args: string[], kind: MapKind): { resources: string[]; changes: MapChanges } {
  const resources: string[] = [];
  const changes: MapChanges = { set: {}, remove: [] };
  for (const a of args) {
    const eq = a.indexOf('=');
    if (eq > 0) {
      const key = a.slice(0, eq);
      const value = a.slice(eq + 1);
      const problem = kind.check(key, value);
      if (problem) throw new Error(`invalid ${kind.noun} ${a}: ${problem}`);
      changes.set[key] = value;
    } else if (a.endsWith('-') && a.length > 1) {
      // Object names never end with '-', so such an argument is always a removal.
      const key = a.slice(0, -1);
      const problem = kind.check(key);
      if (problem) throw new Error(`invalid ${kind.noun} removal ${a}: ${problem}`);
      changes.remove.push(key);
    } else if (eq === 0) {
      throw new Error(`invalid ${kind.noun} ${a}: the key is empty`);
    } else resources.push(a);
  }
  const both = changes.remove.filter((k) => Object.hasOwn(changes.set, k));
  if (both.length > 0) throw new Error(`${kind.noun} ${both.join(', ')} cannot be both set and removed`);
  return { resources, changes };
}

/**
 * Pure: the merge patch map (`null` removes) taking `current` to the requested state, or throws for a
 * change of an existing value without `overwrite`. Keys to remove that are absent are returned apart.
 */
export function mapPatch(current: Record<string, string>, changes: MapChanges, overwrite: boolean): { patch: Record<string, string | null>; missing: string[] } {
  const patch: Record<string, string | null> = {};
  for (const [k, v] of Object.entries(changes.set)) {
    if (Object.hasOwn(current, k) && current[k] === v) continue;
    if (Object.hasOwn(current, k) && !overwrite) throw new Error(`'${k}' already has a value (${current[k]}), and --overwrite is false`);
    patch[k] = v;
  }
  const missing: string[] = [];
  for (const k of changes.remove) {
    if (Object.hasOwn(current, k)) patch[k] = null;
    else missing.push(k);
  }
  return { patch, missing };
}

interface MapFlags {
  overwrite?: boolean;
  list?: boolean;
  resourceVersion?: string;
  filename?: string[];
  recursive?: boolean;
  selector?: string;
  fieldSelector?: string;
  all?: boolean;
  allNamespaces?: boolean;
  dryRun?: string | boolean;
  output?: string;
  fieldManager: string;
}

export async function runMapCommand(ctx: CliContext, kind: MapKind, args: string[], flags: MapFlags): Promise<void> {
  const dryRun = parseDryRun(flags.dryRun);
  const { resources, changes } = splitChanges(args, kind);
  const changing = Object.keys(changes.set).length + changes.remove.length > 0;
  if (!changing && !flags.list) throw new Error(`give at least one ${kind.noun} change (KEY=VALUE or KEY-), or --list`);
  if (flags.list && changing) throw new Error(`--list shows the ${kind.field}; it takes no changes`);
  const targets = await findTargets(ctx, resources, flags);
  if (flags.resourceVersion !== undefined && targets.length !== 1) throw new Error('--resource-version needs exactly one object');
  const report = new Reporter(ctx, flags.output, dryRun);
  for (const t of targets) {
    try {
      const obj = await t.client.get(t.name);
      const current = (obj.metadata[kind.field] ?? {}) as Record<string, string>;
      if (flags.list) {
        for (const k of Object.keys(current).sort()) report.line(`${k}=${current[k]}`);
        continue;
      }
      const { patch, missing } = mapPatch(current, changes, flags.overwrite === true);
      // The reference mentions labels to remove that were not there (on stdout); annotations it passes over.
      if (kind.field === 'labels') for (const k of missing) report.line(`${kind.noun} "${k}" not found.`);
      if (Object.keys(patch).length === 0) {
        report.done(obj, kind.unchangedVerb, t.info);
        continue;
      }
      const body: { metadata: Record<string, unknown> } = { metadata: { [kind.field]: patch } };
      if (flags.resourceVersion !== undefined) body.metadata.resourceVersion = flags.resourceVersion;
      const out: KubeObject = dryRun === 'client' ? obj : await t.client.patch(t.name, 'merge', body, { dryRun: dryRun === 'server', fieldManager: flags.fieldManager });
      report.done(out, Object.keys(changes.set).length === 0 ? kind.removedVerb : kind.verb, t.info);
    } catch (e) {
      report.fail(e);
    }
  }
  await report.finish();
}

/** The flags both commands take. */
export function mapCommandOptions(cmd: Command, kind: MapKind): Command {
  return cmd
    .argument('[args...]', `TYPE NAME... or TYPE/NAME... (or TYPE with -l/--all), then KEY=VALUE to set and KEY- to remove ${kind.field}`)
    .option('--overwrite', `allow changing the value of an existing ${kind.noun}`)
    .option('--list', `print the ${kind.field} of each object instead`)
    .option('--resource-version <version>', 'change the object only if it is still at this resourceVersion')
    .option('-f, --filename <file...>', 'files, folders or - (stdin) naming the objects')
    .option('-R, --recursive', 'read folders given to -f recursively')
    .option('-l, --selector <selector>', 'the objects of TYPE matching this label selector')
    .option('--field-selector <selector>', 'the objects of TYPE matching this field selector')
    .option('--all', 'every object of TYPE in the namespace')
    .option('-A, --all-namespaces', 'with -l or --all: in every namespace')
    .option('--dry-run [strategy]', 'none, server (validated, not stored) or client (nothing sent)')
    .option('-o, --output <format>', 'print the changed objects: yaml, json, name, jsonpath=...')
    .option('--field-manager <name>', 'the manager recorded for the fields written', `${CLI_FIELD_MANAGER}-${kind.noun}`);
}
