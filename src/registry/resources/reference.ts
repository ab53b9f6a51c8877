/**
 * Built-in resource types made from the generated reference data: kind, scope, verbs, subresources and
 * schema come from `generated/`; a type folder adds only what the data cannot say (defaults, validation,
 * table columns, short names, categories, status rules) as overrides.
 */
import type { GeneratedResource } from '../../api/index.js';
import { isObject, type ApiObject } from '../../api/types.js';
import { RESOURCES } from '../../generated/index.js';
import { metadataForStatusWrite } from '../object-meta.js';
import { definitionSchema } from '../reference-schema.js';
import type { ResourceType, Strategy } from '../types.js';

/** Subresources the generic store serves itself; the others have handlers of their own. */
const STORE_SUBRESOURCES = new Set(['status', 'scale']);

const byKey = new Map<string, GeneratedResource>(RESOURCES.map((r) => [`${r.group}/${r.version}/${r.plural}`, r]));

/** The reference's entry for a resource; throws for one the data does not have (a wiring bug). */
export function referenceResource(group: string, version: string, plural: string): GeneratedResource {
  const r = byKey.get(`${group}/${version}/${plural}`);
  if (!r) throw new Error(`the reference data has no resource ${group}/${version}/${plural}`);
  return r;
}

/** Every resource of the reference data. */
export function referenceResources(): readonly GeneratedResource[] {
  return RESOURCES;
}

/**
 * The status rules most types with a status subresource follow: a create starts without status, the main
 * resource keeps the stored status, and the status subresource changes nothing but status.
 */
export function statusStrategy(): Pick<Strategy, 'prepareForCreate' | 'prepareForUpdate' | 'prepareForStatusUpdate'> {
  return {
    prepareForCreate(o) {
      delete o.status;
    },
    prepareForUpdate(o, old) {
      if (old.status === undefined) delete o.status;
      else o.status = old.status;
    },
    prepareForStatusUpdate(o, old) {
      for (const k of Object.keys(o)) if (k !== 'status' && k !== 'metadata' && k !== 'apiVersion' && k !== 'kind') delete o[k];
      for (const [k, v] of Object.entries(old)) if (k !== 'status' && k !== 'metadata' && k !== 'apiVersion' && k !== 'kind') o[k] = v;
      o.metadata = metadataForStatusWrite(o, old);
    },
  };
}

export type TypeOverrides = Partial<Omit<ResourceType, 'strategy'>> & { strategy?: Partial<Strategy> };

/** Chains two optional hooks of the same shape: `first` then `second`. */
function chain<A extends unknown[]>(first?: (...a: A) => void, second?: (...a: A) => void): ((...a: A) => void) | undefined {
  if (!first) return second;
  if (!second) return first;
  return (...a: A) => {
    first(...a);
    second(...a);
  };
}

/**
 * A built-in type from the reference data. Status rules apply when the reference serves `status`; an
 * override's `prepareFor*` hooks run after them (so they see the reset status) unless `replaceStatusRules`.
 */
export function referenceType(group: string, version: string, plural: string, overrides: TypeOverrides = {}, replaceStatusRules = false): ResourceType {
  const r = referenceResource(group, version, plural);
  if (!r.definition) throw new Error(`the reference data names no definition for ${group}/${version}/${plural}`);
  const hasStatus = r.subresources.some((s) => s.name === 'status');
  const status = hasStatus && !replaceStatusRules ? statusStrategy() : {};
  const o = overrides.strategy ?? {};
  const strategy: Strategy = {
    nameRule: 'subdomain',
    tracksGeneration: isObject(definitionSchema(r.definition).properties?.spec),
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    validate: () => [],
    ...o,
    prepareForCreate: chain(status.prepareForCreate, o.prepareForCreate),
    prepareForUpdate: chain(status.prepareForUpdate, o.prepareForUpdate),
    prepareForStatusUpdate: chain(status.prepareForStatusUpdate, o.prepareForStatusUpdate),
  };
  const { strategy: _s, ...rest } = overrides;
  return {
    group,
    version,
    kind: r.kind,
    listKind: `${r.kind}List`,
    plural,
    singular: r.kind.toLowerCase(),
    shortNames: [],
    namespaced: r.namespaced,
    subresources: r.subresources.filter((s) => STORE_SUBRESOURCES.has(s.name)).map((s) => s.name),
    schema: definitionSchema(r.definition),
    tableColumns: [],
    storageKey: `${group === '' ? 'core' : group}/${plural}`,
    verbs: [...r.verbs],
    reference: r,
    ...rest,
    strategy,
  };
}

/** Reads `o.<path>` for hooks that default nested fields; creates the objects on the way when `create`. */
export function objectAt(o: ApiObject, path: string[], create: boolean): Record<string, unknown> | undefined {
  let cur: Record<string, unknown> = o;
  for (const k of path) {
    const next = cur[k];
    if (isObject(next)) cur = next;
    else if (create && (next === undefined || next === null)) cur = cur[k] = {};
    else return undefined;
  }
  return cur;
}
