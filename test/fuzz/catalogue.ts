/**
 * What the fuzzer aims at: the resources the server serves (from its discovery documents, matched with the
 * generated reference table for their schemas), the namespaces and names it may use, and the sentinel
 * names it must never use.
 */
import type { GeneratedResource } from '../../src/api/generated-types.js';
import { RESOURCES } from '../../src/generated/index.js';

export interface Target {
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
  /** Subresource name -> definition of its body (undefined for connect subresources such as exec). */
  subresources: Map<string, { group: string; version: string; kind: string; definition?: string }>;
  definition?: string;
}

/** The namespace the fuzzer may write in, the one it may only read, and where its identity lives. */
export const FUZZ_NAMESPACE = 'fuzz';
export const PROTECTED_NAMESPACE = 'protected';
export const IDENTITY_NAMESPACE = 'fuzz-identity';
/** Every object the fuzzer must not change is named with this prefix; generated names never contain it. */
export const SENTINEL_PREFIX = 'sentinel';

/** Names the fuzzer uses for objects it creates and then reads, updates, patches and deletes. */
export const OBJECT_NAMES: readonly string[] = Array.from({ length: 12 }, (_, i) => `fz-${i}`);

/** Names no valid object may have, or that stress routing. */
export const BAD_NAMES: readonly string[] = [
  '',
  '.',
  '..',
  'UPPER',
  '-lead',
  'trail-',
  'a_b',
  'a'.repeat(254),
  'a'.repeat(2000),
  'é',
  '名前',
  'a b',
  'a%00b',
  '%2F',
  '%2e%2e',
  'fz-1%2Fstatus',
  ':',
  '*',
  '~',
  'fz-1;x=1',
];

/** `group/version/plural` of every resource listed by discovery documents. */
export function servedKeys(discovery: { groupVersion: string; resources: { name: string }[] }[]): Set<string> {
  const out = new Set<string>();
  for (const doc of discovery) {
    const gv = doc.groupVersion.includes('/') ? doc.groupVersion : `/${doc.groupVersion}`;
    for (const r of doc.resources) if (!r.name.includes('/')) out.add(`${gv}/${r.name}`);
  }
  return out;
}

/** The reference resources the server serves (all of them when `served` is undefined). */
export function targets(served?: ReadonlySet<string>, table: readonly GeneratedResource[] = RESOURCES): Target[] {
  return table
    .filter((r) => !served || served.has(`${r.group}/${r.version}/${r.plural}`))
    .map((r) => ({
      group: r.group,
      version: r.version,
      plural: r.plural,
      kind: r.kind,
      namespaced: r.namespaced,
      verbs: [...r.verbs],
      subresources: new Map(r.subresources.map((s) => [s.name, { group: s.group, version: s.version, kind: s.kind, ...(s.definition ? { definition: s.definition } : {}) }])),
      ...(r.definition ? { definition: r.definition } : {}),
    }));
}

/** The collection path of `t` (in `namespace` when namespaced and given). */
export function collectionPath(t: Pick<Target, 'group' | 'version' | 'plural' | 'namespaced'>, namespace?: string): string {
  const root = t.group === '' ? `/api/${t.version}` : `/apis/${t.group}/${t.version}`;
  return t.namespaced && namespace !== undefined ? `${root}/namespaces/${namespace}/${t.plural}` : `${root}/${t.plural}`;
}

export function apiVersion(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}
