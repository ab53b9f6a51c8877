/**
 * The objects a command works on, named as the reference client accepts them: `TYPE NAME...`,
 * `TYPE/NAME...`, `-f` manifests, or `TYPE[,TYPE...]` with `-l SELECTOR` or `--all`.
 */
import type { Client, KubeObject, ResourceClient, ResourceInfo } from '../../client/index.js';
import type { CliContext } from '../contract.js';

export interface TargetFlags {
  filename?: string[];
  recursive?: boolean;
  selector?: string;
  fieldSelector?: string;
  all?: boolean;
  allNamespaces?: boolean;
}

export type ResourceArgs =
  | { kind: 'names'; pairs: { type: string; name: string }[] }
  | { kind: 'types'; types: string[] };

/**
 * Pure: positional arguments to named objects or to types (for `-l` and `--all`). `TYPE/NAME` arguments
 * cannot be mixed with a separate type; a comma list of types is allowed with names, as the reference does.
 */
export function parseResourceArgs(args: string[], bySelector: boolean): ResourceArgs {
  if (args.length === 0) throw new Error('name the objects: TYPE NAME..., TYPE/NAME..., or -f FILE');
  if (args.some((a) => a.includes('/'))) {
    if (bySelector) throw new Error('names cannot be given together with a selector or --all');
    const pairs = args.map((a) => {
      const slash = a.indexOf('/');
      if (slash <= 0 || slash === a.length - 1) throw new Error(`"${a}": give TYPE/NAME, or a type and then names, not both forms`);
      return { type: a.slice(0, slash), name: a.slice(slash + 1) };
    });
    return { kind: 'names', pairs };
  }
  const [first, ...names] = args as [string, ...string[]];
  const types = first.split(',').filter(Boolean);
  if (types.length === 0) throw new Error(`"${first}" names no resource type`);
  if (bySelector) {
    if (names.length > 0) throw new Error('names cannot be given together with a selector or --all');
    return { kind: 'types', types };
  }
  if (names.length === 0) throw new Error(`name the ${first} to act on, or select them with -l or --all`);
  return { kind: 'names', pairs: types.flatMap((type) => names.map((name) => ({ type, name }))) };
}

export interface Target {
  info: ResourceInfo;
  /** The resource client in the target's namespace (none for cluster-scoped). */
  client: ResourceClient;
  name: string;
  namespace?: string;
  /** From `-f`: the object as written, and where it was read. */
  manifest?: KubeObject;
  source?: string;
}

/** Expands `List` documents (`kind: List`, `ConfigMapList`, ...) into their items. */
export function flattenLists(objects: { source: string; object: KubeObject }[]): { source: string; object: KubeObject }[] {
  const out: { source: string; object: KubeObject }[] = [];
  for (const m of objects) {
    const items = (m.object as { items?: unknown }).items;
    if (typeof m.object.kind === 'string' && m.object.kind.endsWith('List') && Array.isArray(items)) {
      out.push(...flattenLists(items.map((object) => ({ source: m.source, object: object as KubeObject }))));
    } else out.push(m);
  }
  return out;
}

/**
 * The namespace an object from a file goes to: its own, else the context's. An explicit `-n` that differs
 * from the object's own is refused rather than silently overridden (the reference refuses it too).
 */
export async function manifestNamespace(ctx: CliContext, obj: KubeObject, namespaced: boolean): Promise<string | undefined> {
  if (!namespaced) return undefined;
  const given = ctx.globals().namespace;
  const own = obj.metadata?.namespace;
  if (own && typeof given === 'string' && given !== '' && given !== own) {
    throw new Error(`the object's namespace "${own}" differs from --namespace "${given}": pass --namespace=${own} or drop it from the object`);
  }
  return own || (await ctx.namespace());
}

/** The objects of `-f` with the clients they go to; `needsName` refuses objects without metadata.name. */
export async function manifestTargets(ctx: CliContext, client: Client, flags: TargetFlags, needsName = true): Promise<Target[]> {
  const read = flattenLists(await ctx.readManifests(flags.filename ?? [], flags.recursive));
  const targets: Target[] = [];
  for (const { source, object } of read) {
    if (!object.apiVersion || !object.kind) throw new Error(`${source}: the object has no apiVersion or kind`);
    const name = object.metadata?.name ?? '';
    if (needsName && !name) throw new Error(`${source}: the ${object.kind} has no metadata.name`);
    const info = await client.discovery.forKind(object.apiVersion, object.kind);
    const namespace = await manifestNamespace(ctx, object, info.namespaced);
    targets.push({ info, client: client.resource(info, namespace), name, namespace, manifest: object, source });
  }
  return targets;
}

/** The targets of a command taking `-f`, names, or types with `-l`/`--all`. */
export async function findTargets(ctx: CliContext, args: string[], flags: TargetFlags): Promise<Target[]> {
  const client = await ctx.client();
  const bySelector = flags.selector !== undefined || flags.fieldSelector !== undefined || flags.all === true;
  if (flags.filename && flags.filename.length > 0) {
    if (args.length > 0) throw new Error('give objects either with -f or as arguments, not both');
    if (bySelector) throw new Error('-f cannot be combined with -l, --field-selector or --all');
    return manifestTargets(ctx, client, flags);
  }
  const parsed = parseResourceArgs(args, bySelector);
  const namespace = await ctx.namespace();
  if (parsed.kind === 'names') {
    const targets: Target[] = [];
    for (const { type, name } of parsed.pairs) {
      const { info, client: rc } = await client.resourceNamed(type, namespace);
      targets.push({ info, client: rc, name, namespace: info.namespaced ? namespace : undefined });
    }
    return targets;
  }
  const targets: Target[] = [];
  for (const type of parsed.types) {
    const { info } = await client.resourceNamed(type);
    const listNs = info.namespaced && !flags.allNamespaces ? namespace : undefined;
    const lister = client.resource(info, listNs);
    const { items } = await lister.listAll({ labelSelector: flags.selector, fieldSelector: flags.fieldSelector });
    for (const item of items) {
      const ns = info.namespaced ? item.metadata.namespace : undefined;
      targets.push({ info, client: client.resource(info, ns), name: item.metadata.name ?? '', namespace: ns });
    }
  }
  return targets;
}

/** `kind.group/name` (what `-o name` prints) for messages about one target. */
export const targetRef = (t: Pick<Target, 'info' | 'name'>): string => `${t.info.plural}${t.info.group ? `.${t.info.group}` : ''}/${t.name}`;
