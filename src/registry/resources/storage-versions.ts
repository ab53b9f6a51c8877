/**
 * One storage per resource: when a group serves a resource in several versions (flowcontrol v1 and v1beta3,
 * autoscaling v1 and v2, ...), every version reads and writes the same stored objects, kept in the storage
 * version (the most stable, newest one), and each other version converts on the way in and out.
 */
import { apiVersionOf, type ApiObject } from '../../api/types.js';
import type { ResourceType } from '../types.js';

const VERSION_RE = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

/** GA before beta before alpha, higher numbers first (the reference's version priority). */
export function versionPriority(a: string, b: string): number {
  const ma = VERSION_RE.exec(a);
  const mb = VERSION_RE.exec(b);
  if (!ma || !mb) return ma ? -1 : mb ? 1 : a.localeCompare(b);
  const level = (m: RegExpExecArray) => (m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0);
  return level(mb) - level(ma) || Number(mb[1]) - Number(ma[1]) || Number(mb[3] ?? 0) - Number(ma[3] ?? 0);
}

/**
 * Gives every version of a multi-version resource the storage key of its storage version; a version without
 * a conversion of its own stores the same fields under the storage version's apiVersion.
 */
export function shareStorage(types: ResourceType[]): ResourceType[] {
  const byResource = new Map<string, ResourceType[]>();
  for (const t of types) {
    const k = `${t.group}/${t.plural}`;
    byResource.set(k, [...(byResource.get(k) ?? []), t]);
  }
  const storageOf = new Map<ResourceType, ResourceType>();
  for (const views of byResource.values()) {
    if (views.length < 2) continue;
    const storage = [...views].sort((a, b) => versionPriority(a.version, b.version))[0]!;
    for (const v of views) storageOf.set(v, storage);
  }
  return types.map((t) => {
    const storage = storageOf.get(t);
    if (!storage || storage === t) return t;
    const own = apiVersionOf(t.group, t.version);
    const stored = apiVersionOf(storage.group, storage.version);
    return {
      ...t,
      storageKey: storage.storageKey,
      toStorage: t.toStorage ?? ((o: ApiObject) => ({ ...o, apiVersion: stored })),
      fromStorage: t.fromStorage ?? ((o: ApiObject) => ({ ...o, apiVersion: own })),
    };
  });
}
