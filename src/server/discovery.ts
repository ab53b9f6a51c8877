/**
 * Discovery documents (`/api`, `/apis`, `/apis/<group>`, `/api/v1`, `/apis/<group>/<version>`), built once from
 * the served ResourceTypes. Only the plain JSON form is offered: the aggregated form's group name carries the
 * reference maker token, and every client falls back to the plain form.
 */
import { createHash } from 'node:crypto';
import type { ResourceType } from '../registry/types.js';

export const DEFAULT_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const SUBRESOURCE_VERBS = ['get', 'patch', 'update'];

export interface GroupVersionForDiscovery {
  groupVersion: string;
  version: string;
}

export interface APIGroup {
  name: string;
  versions: GroupVersionForDiscovery[];
  preferredVersion: GroupVersionForDiscovery;
}

export interface APIResource {
  name: string;
  /** Set when a subresource's kind is in another group/version (`deployments/scale` is autoscaling/v1 Scale). */
  group?: string;
  version?: string;
  singularName: string;
  namespaced: boolean;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  storageVersionHash?: string;
}

export interface APIResourceList {
  kind: 'APIResourceList';
  apiVersion: 'v1';
  groupVersion: string;
  resources: APIResource[];
}

export interface APIVersions {
  kind: 'APIVersions';
  versions: string[];
  serverAddressByClientCIDRs: { clientCIDR: string; serverAddress: string }[];
}

export interface APIGroupList {
  kind: 'APIGroupList';
  apiVersion: 'v1';
  groups: APIGroup[];
}

/** A subresource served by its own handler (pods/log, pods/eviction, ...), listed beside the generic ones. */
export interface ExtraSubresource {
  /** Plural of the parent resource in `group`/`version`. */
  type: string;
  group: string;
  version: string;
  name: string;
  kind: string;
  verbs: string[];
  namespaced: boolean;
}

export interface DiscoveryOptions {
  extraSubresources?: ExtraSubresource[];
  /** The StorageVersionHash feature gate (default on): false leaves the hash out of every resource. */
  storageVersionHash?: boolean;
}

export interface Discovery {
  /** `/api`: the core group's versions. */
  api(serverAddress: string): APIVersions;
  /** `/apis`: every named group (never the core group). */
  apis(): APIGroupList;
  /** `/apis/<name>`; undefined for unknown groups and for the core group. */
  group(name: string): (APIGroup & { kind: 'APIGroup'; apiVersion: 'v1' }) | undefined;
  /** `/api/v1` (group '') or `/apis/<group>/<version>`; undefined when nothing is served there. */
  resources(group: string, version: string): APIResourceList | undefined;
}

/** Stable per group/version/kind, so clients can tell when a resource's storage changed (it never does here). */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}

const VERSION_RE = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

/**
 * Reference version priority: GA before beta before alpha, higher numbers first; versions that do not look
 * like `v1`, `v2beta1`, ... come last in lexical order. The first one is the preferred version.
 */
export function compareVersions(a: string, b: string): number {
  const ma = VERSION_RE.exec(a);
  const mb = VERSION_RE.exec(b);
  if (!ma || !mb) {
    if (ma) return -1;
    if (mb) return 1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  const stability = (m: RegExpExecArray) => (m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0);
  const sa = stability(ma);
  const sb = stability(mb);
  if (sa !== sb) return sb - sa;
  const major = Number(mb[1]) - Number(ma[1]);
  if (major !== 0) return major;
  return Number(mb[3] ?? 0) - Number(ma[3] ?? 0);
}

function gvString(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

function resourceEntry(t: ResourceType, withHash: boolean): APIResource {
  const r: APIResource = {
    name: t.plural,
    singularName: t.singular,
    namespaced: t.namespaced,
    kind: t.kind,
    verbs: [...(t.verbs ?? DEFAULT_VERBS)],
  };
  if (t.shortNames.length > 0) r.shortNames = [...t.shortNames];
  if (t.categories && t.categories.length > 0) r.categories = [...t.categories];
  if (withHash) r.storageVersionHash = storageVersionHash(t.group, t.version, t.kind);
  return r;
}

const list0 = (byGroup: Map<string, Map<string, APIResource[]>>, x: ExtraSubresource): APIResource[] => byGroup.get(x.group)?.get(x.version) ?? [];

export function buildDiscovery(types: ResourceType[], opts: DiscoveryOptions = {}): Discovery {
  // group -> version -> resources; Map keeps groups in the order the types were registered.
  const byGroup = new Map<string, Map<string, APIResource[]>>();
  const bucket = (group: string, version: string): APIResource[] => {
    let versions = byGroup.get(group);
    if (!versions) byGroup.set(group, (versions = new Map()));
    let list = versions.get(version);
    if (!list) versions.set(version, (list = []));
    return list;
  };

  for (const t of types) {
    const list = bucket(t.group, t.version);
    list.push(resourceEntry(t, opts.storageVersionHash !== false));
    if (t.reference) {
      // Subresources as the reference lists them: `scale` has kind Scale in autoscaling/v1, and so on.
      for (const sub of t.reference.subresources) {
        const entry: APIResource = { name: `${t.plural}/${sub.name}`, singularName: '', namespaced: t.namespaced, kind: sub.kind, verbs: [...sub.verbs] };
        if (sub.group !== t.group || sub.version !== t.version) Object.assign(entry, { group: sub.group, version: sub.version });
        list.push(entry);
      }
      continue;
    }
    for (const sub of t.subresources) {
      // The status subresource returns the parent object; other generic subresources are listed the same way.
      const entry: APIResource = { name: `${t.plural}/${sub}`, singularName: '', namespaced: t.namespaced, kind: t.kind, verbs: [...SUBRESOURCE_VERBS] };
      // `scale` speaks autoscaling/v1 Scale whatever the parent's group (custom resources too).
      if (sub === 'scale' && t.scale) Object.assign(entry, { group: 'autoscaling', version: 'v1', kind: 'Scale' });
      list.push(entry);
    }
  }
  for (const x of opts.extraSubresources ?? []) {
    if (list0(byGroup, x).some((r) => r.name === `${x.type}/${x.name}`)) continue;
    // Only attach to group/versions that serve resources; a subresource without its parent is a wiring bug.
    const list = byGroup.get(x.group)?.get(x.version);
    if (!list) continue;
    list.push({ name: `${x.type}/${x.name}`, singularName: '', namespaced: x.namespaced, kind: x.kind, verbs: [...x.verbs] });
  }

  const resourceLists = new Map<string, APIResourceList>();
  for (const [group, versions] of byGroup) {
    for (const [version, list] of versions) {
      // The reference lists resources alphabetically, which also puts `pods/status` right after `pods`.
      list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      resourceLists.set(gvString(group, version), { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: gvString(group, version), resources: list });
    }
  }

  const groups: APIGroup[] = [];
  for (const [name, versions] of byGroup) {
    if (name === '') continue;
    const ordered = [...versions.keys()].sort(compareVersions).map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
    const preferred = ordered[0];
    if (preferred) groups.push({ name, versions: ordered, preferredVersion: preferred });
  }
  const coreVersions = [...(byGroup.get('')?.keys() ?? [])].sort(compareVersions);

  return {
    api(serverAddress) {
      return {
        kind: 'APIVersions',
        versions: coreVersions.length > 0 ? coreVersions : ['v1'],
        serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
      };
    },
    apis() {
      return { kind: 'APIGroupList', apiVersion: 'v1', groups };
    },
    group(name) {
      if (name === '') return undefined;
      const g = groups.find((x) => x.name === name);
      return g ? { kind: 'APIGroup', apiVersion: 'v1', ...g } : undefined;
    },
    resources(group, version) {
      return resourceLists.get(gvString(group, version));
    },
  };
}

/**
 * Discovery over types that change at run time (custom resources): rebuilt on the first request after a
 * change, so registering many types at once costs one build.
 */
export function changingDiscovery(types: () => ResourceType[], subscribe: (onChange: () => void) => void, opts: DiscoveryOptions = {}): Discovery {
  let built: Discovery | undefined;
  subscribe(() => (built = undefined));
  const current = () => (built ??= buildDiscovery(types(), opts));
  return {
    api: (serverAddress) => current().api(serverAddress),
    apis: () => current().apis(),
    group: (name) => current().group(name),
    resources: (group, version) => current().resources(group, version),
  };
}
