/**
 * Discovery (`/api`, `/apis`, one resource list per group version), cached, and the mapping of the ways
 * users and objects name a resource (kind, plural, singular, short name, `plural.group`,
 * `plural.version.group`) to one served resource. A name not found refreshes the cache once, so types
 * registered after the first look-up are found too.
 */
import { StatusError } from '../errors/index.js';
import type { Transport } from './transport.js';

/** One served resource (no subresources) in one group version. */
export interface ResourceInfo {
  group: string;
  version: string;
  /** The plural, as in the URL. */
  plural: string;
  singular: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
  shortNames: string[];
  categories: string[];
  /** Subresource names served for it (`status`, `scale`, ...). */
  subresources: string[];
  /** True when this version is its group's preferred one. */
  preferred: boolean;
}

interface APIResource {
  name: string;
  singularName?: string;
  namespaced: boolean;
  kind: string;
  verbs?: string[];
  shortNames?: string[];
  categories?: string[];
}

export const groupVersionOf = (group: string, version: string) => (group ? `${group}/${version}` : version);

/** Splits `apiVersion` into group and version (`v1` is the core group). */
export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

export class Discovery {
  private cache: Promise<ResourceInfo[]> | undefined;

  constructor(private readonly transport: Transport) {}

  /** Every served resource of every group version; cached until `invalidate`. */
  resources(): Promise<ResourceInfo[]> {
    if (!this.cache) {
      this.cache = this.load();
      // A failed load is not cached: the next call tries again.
      this.cache.catch(() => (this.cache = undefined));
    }
    return this.cache;
  }

  invalidate(): void {
    this.cache = undefined;
  }

  /** The resource an object's `apiVersion` and `kind` name. */
  async forKind(apiVersion: string, kind: string): Promise<ResourceInfo> {
    const { group, version } = parseApiVersion(apiVersion);
    const match = (all: ResourceInfo[]) => all.find((r) => r.group === group && r.version === version && r.kind === kind);
    const found = match(await this.resources()) ?? match(await this.refreshed());
    if (!found) throw new StatusError(404, 'NotFound', `no matches for kind "${kind}" in version "${groupVersionOf(group, version)}"`);
    return found;
  }

  /**
   * The resource a user's spelling names, as the reference CLI accepts it: `pods`, `pod`, `po`, `Pod`,
   * `deployments.apps`, `deploy.apps`, `deployments.v1.apps`. The group's preferred version wins.
   */
  async find(spelling: string): Promise<ResourceInfo> {
    const found = pick(await this.resources(), spelling) ?? pick(await this.refreshed(), spelling);
    if (!found) throw new StatusError(404, 'NotFound', `the server doesn't have a resource type "${spelling}"`);
    return found;
  }

  private refreshed(): Promise<ResourceInfo[]> {
    this.invalidate();
    return this.resources();
  }

  private async load(): Promise<ResourceInfo[]> {
    const [core, groups] = await Promise.all([
      this.transport.json<{ versions: string[] }>({ method: 'GET', path: '/api' }),
      this.transport.json<{ groups: { name: string; versions: { groupVersion: string; version: string }[]; preferredVersion?: { version: string } }[] }>({ method: 'GET', path: '/apis' }),
    ]);
    const targets: { group: string; version: string; preferred: boolean }[] = core.versions.map((v, i) => ({ group: '', version: v, preferred: i === 0 }));
    for (const g of groups.groups) {
      const preferred = g.preferredVersion?.version ?? g.versions[0]?.version;
      for (const v of g.versions) targets.push({ group: g.name, version: v.version, preferred: v.version === preferred });
    }
    const lists = await Promise.all(
      targets.map(async (t) => {
        const path = t.group ? `/apis/${t.group}/${t.version}` : `/api/${t.version}`;
        const list = await this.transport.json<{ resources: APIResource[] }>({ method: 'GET', path });
        return toInfos(t.group, t.version, t.preferred, list.resources ?? []);
      }),
    );
    return lists.flat();
  }
}

function toInfos(group: string, version: string, preferred: boolean, list: APIResource[]): ResourceInfo[] {
  const out = new Map<string, ResourceInfo>();
  for (const r of list) {
    if (r.name.includes('/')) continue;
    out.set(r.name, {
      group,
      version,
      plural: r.name,
      singular: r.singularName || r.kind.toLowerCase(),
      kind: r.kind,
      namespaced: r.namespaced,
      verbs: r.verbs ?? [],
      shortNames: r.shortNames ?? [],
      categories: r.categories ?? [],
      subresources: [],
      preferred,
    });
  }
  for (const r of list) {
    const [parent, sub] = r.name.split('/', 2);
    if (sub) out.get(parent as string)?.subresources.push(sub);
  }
  return [...out.values()];
}

/** Pure: the resource a spelling names in a discovery snapshot, or undefined. */
export function pick(all: ResourceInfo[], spelling: string): ResourceInfo | undefined {
  const lower = spelling.toLowerCase();
  const named = (r: ResourceInfo, n: string) => r.plural === n || r.singular === n || r.shortNames.includes(n) || r.kind.toLowerCase() === n;
  const best = (cands: ResourceInfo[]) => cands.find((r) => r.preferred) ?? cands[0];
  // The whole spelling as a bare name first: a plural may itself contain no dot, a group always does.
  const bare = all.filter((r) => named(r, lower));
  if (bare.length) return best(bare.filter((r) => r.group === '').length ? bare.filter((r) => r.group === '') : bare);
  const dot = lower.indexOf('.');
  if (dot < 0) return undefined;
  const name = lower.slice(0, dot);
  const rest = lower.slice(dot + 1);
  // `plural.version.group` (the version is the first label after the name), then `plural.group`.
  const second = rest.indexOf('.');
  if (second > 0) {
    const version = rest.slice(0, second);
    const group = rest.slice(second + 1);
    const exact = all.find((r) => r.version === version && r.group === group && named(r, name));
    if (exact) return exact;
  }
  return best(all.filter((r) => r.group === rest && named(r, name)));
}
