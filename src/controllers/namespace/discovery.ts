/**
 * What the namespace controller must empty: every namespaced resource the server serves (built-in and
 * custom) that can be listed and deleted, found through discovery afresh on each pass, so a type registered
 * a moment before the namespace's deletion is swept too. Partial failures are reported, not fatal: what
 * was discovered is still deleted, and the namespace keeps its finalizer until a pass sees everything.
 */
import type { Transport } from '../../client/index.js';

/** One resource to sweep, in the version discovery prefers for it. */
export interface DeletableResource {
  group: string;
  version: string;
  plural: string;
  verbs: readonly string[];
}

export interface DeletableDiscovery {
  resources: DeletableResource[];
  /** `<group version>: <error>` for each resource list that could not be read. */
  discoveryFailures: string[];
  /** Group versions named by the server that are not `group/version`. */
  parseFailures: string[];
}

/** One group version's resource list, as `/api/<v>` and `/apis/<g>/<v>` answer. */
export interface ServedResource {
  name: string;
  namespaced: boolean;
  verbs?: string[];
}

/** A group's versions in order of preference (the preferred first), each with its resource list. */
export interface GroupResources {
  group: string;
  versions: { version: string; resources: readonly ServedResource[] }[];
}

/**
 * Pure: the resources to sweep. A resource served in several versions of its group is taken once, in the
 * most preferred version that serves it; subresources and resources that cannot be both listed and deleted
 * (one by one or as a collection) are left out.
 */
export function selectDeletable(groups: readonly GroupResources[]): DeletableResource[] {
  const out: DeletableResource[] = [];
  for (const g of groups) {
    const seen = new Set<string>();
    for (const v of g.versions) {
      for (const r of v.resources) {
        if (!r.namespaced || r.name.includes('/') || seen.has(r.name)) continue;
        const verbs = r.verbs ?? [];
        if (!verbs.includes('list') || !(verbs.includes('delete') || verbs.includes('deletecollection'))) continue;
        seen.add(r.name);
        out.push({ group: g.group, version: v.version, plural: r.name, verbs });
      }
    }
  }
  return out;
}

/** Pure: `group/version` (or a bare core version) split, or undefined when it is not of that shape. */
export function parseGroupVersion(gv: string): { group: string; version: string } | undefined {
  const parts = gv.split('/');
  if (parts.length === 1 && parts[0]) return { group: '', version: parts[0] };
  if (parts.length === 2 && parts[0] && parts[1]) return { group: parts[0], version: parts[1] };
  return undefined;
}

interface GroupList {
  groups?: { name: string; versions?: { groupVersion: string; version?: string }[]; preferredVersion?: { groupVersion?: string; version?: string } }[];
}

const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** Reads discovery through the API: `/api`, `/apis`, then every group version's resource list. */
export async function discoverDeletable(transport: Transport, signal?: AbortSignal): Promise<DeletableDiscovery> {
  const discoveryFailures: string[] = [];
  const parseFailures: string[] = [];
  const [core, apis] = await Promise.all([
    transport.json<{ versions?: string[] }>({ method: 'GET', path: '/api', signal }).catch((e: unknown) => {
      discoveryFailures.push(`/api: ${messageOf(e)}`);
      return { versions: [] as string[] };
    }),
    transport.json<GroupList>({ method: 'GET', path: '/apis', signal }).catch((e: unknown) => {
      discoveryFailures.push(`/apis: ${messageOf(e)}`);
      return { groups: [] } as GroupList;
    }),
  ]);
  const wanted: { group: string; versions: string[] }[] = [{ group: '', versions: core.versions ?? [] }];
  for (const g of apis.groups ?? []) {
    const versions: string[] = [];
    for (const v of g.versions ?? []) {
      const parsed = parseGroupVersion(v.groupVersion);
      if (!parsed || parsed.group !== g.name) parseFailures.push(v.groupVersion);
      else versions.push(parsed.version);
    }
    // The preferred version first; the rest in the server's order.
    const preferred = g.preferredVersion?.version;
    versions.sort((a, b) => (a === preferred ? -1 : b === preferred ? 1 : 0));
    wanted.push({ group: g.name, versions });
  }
  const groups = await Promise.all(
    wanted.map(async (g): Promise<GroupResources> => {
      const versions = await Promise.all(
        g.versions.map(async (version) => {
          const path = g.group ? `/apis/${g.group}/${version}` : `/api/${version}`;
          try {
            const list = await transport.json<{ resources?: ServedResource[] }>({ method: 'GET', path, signal });
            return { version, resources: list.resources ?? [] };
          } catch (e) {
            discoveryFailures.push(`${g.group ? `${g.group}/${version}` : version}: ${messageOf(e)}`);
            return { version, resources: [] };
          }
        }),
      );
      return { group: g.group, versions };
    }),
  );
  return { resources: selectDeletable(groups), discoveryFailures: discoveryFailures.sort(), parseFailures };
}
