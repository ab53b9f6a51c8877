/**
 * Every built-in type the API server serves: one per resource of the reference data in an enabled
 * group/version, made by the type folder that adds behaviour for it, or from the data alone.
 */
import type { GeneratedResource } from '../../api/index.js';
import { apiextensionsTypes } from './apiextensions/index.js';
import type { ResourceType } from '../types.js';
import { appsTypes } from './apps/index.js';
import { batchTypes } from './batch/index.js';
import { autoscalingTypes } from './autoscaling/index.js';
import { policyTypes } from './policy/index.js';
import { coreExtraTypes } from './core-extra/index.js';
import { networkingTypes } from './networking/index.js';
import { discoveryTypes } from './discovery/index.js';
import { storageTypes } from './storage/index.js';
import { nodeTypes } from './node/index.js';
import { schedulingTypes } from './scheduling/index.js';
import { certificatesTypes } from './certificates/index.js';
import { flowcontrolTypes } from './flowcontrol/index.js';
import { admissionregistrationTypes } from './admissionregistration/index.js';
import { apiregistrationTypes } from './apiregistration/index.js';
import { coreTypes } from './core.js';
import { serviceType, type ServiceNetwork } from './services/index.js';
import { extraTypes } from './extra.js';
import { referenceResources, referenceType } from './reference.js';
import { shareStorage } from './storage-versions.js';
import { uniformType } from './uniform.js';
import { defaultVersionEnabled, type ResourceFilter } from './versions.js';

export { referenceResource, referenceResources, referenceType, statusStrategy, objectAt, type TypeOverrides } from './reference.js';

/** Groups whose objects need machinery of their own, served by later work (none now: CRDs are in apiextensions/). */
const NOT_STORED_HERE = new Set<string>();

/** Types with behaviour of their own, by `group/version/plural`. */
function handWritten(): Map<string, ResourceType> {
  return new Map([
    ...coreTypes,
    ...extraTypes,
    ...appsTypes,
    ...batchTypes,
    ...autoscalingTypes,
    ...policyTypes,
    ...coreExtraTypes,
    ...networkingTypes,
    ...discoveryTypes,
    ...storageTypes,
    ...nodeTypes,
    ...schedulingTypes,
    ...certificatesTypes,
    ...flowcontrolTypes,
    ...admissionregistrationTypes,
    ...apiregistrationTypes,
    ...apiextensionsTypes,
  ].map((t) => [`${t.group}/${t.version}/${t.plural}`, t]));
}

/** A resource objects are stored for; create-only resources (reviews, bindings) have handlers instead. */
export const isStoredResource = (r: GeneratedResource): boolean => r.verbs.includes('get') || r.verbs.includes('list');

export type { ResourceFilter } from './versions.js';

const byDefault: ResourceFilter = (group, version) => defaultVersionEnabled(group, version);

/**
 * Create-only resources of the reference (reviews, bindings) under `enabled`: nothing is stored for them;
 * their handlers serve them, and these types describe them for discovery and OpenAPI.
 */
export function createOnlyTypes(enabled: ResourceFilter = byDefault): ResourceType[] {
  return referenceResources()
    .filter((r) => !isStoredResource(r) && !NOT_STORED_HERE.has(r.group) && enabled(r.group, r.version, r.plural))
    .map((r) => ({ ...referenceType(r.group, r.version, r.plural), storageKey: `virtual/${r.group}/${r.plural}` }));
}

/** Per-server settings of types whose behaviour depends on flags. */
export interface BuiltinOptions {
  /** Cluster IP and node port ranges of Services (default 10.0.0.0/24 and 30000-32767). */
  serviceNetwork?: ServiceNetwork;
}

/** Every built-in type served under `enabled`, in the reference data's order. */
export function builtinTypes(enabled: ResourceFilter = byDefault, opts: BuiltinOptions = {}): ResourceType[] {
  const hand = handWritten();
  if (opts.serviceNetwork) hand.set('/v1/services', serviceType(opts.serviceNetwork));
  const out: ResourceType[] = [];
  for (const r of referenceResources()) {
    if (!isStoredResource(r) || NOT_STORED_HERE.has(r.group) || !enabled(r.group, r.version, r.plural)) continue;
    const own = hand.get(`${r.group}/${r.version}/${r.plural}`);
    // Hand-written types still take their verbs and subresource list from the reference data.
    out.push(own ? { ...own, verbs: own.verbs ?? [...r.verbs], reference: own.reference ?? r } : referenceType(r.group, r.version, r.plural));
  }
  return shareStorage(out).map(uniformType);
}
