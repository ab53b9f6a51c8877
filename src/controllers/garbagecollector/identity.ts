/**
 * Who an object is, as owner references name it, and the small pure rules the collector applies to
 * identities and finalizers (the reference's coordinates: group, kind, name and uid; the version of an
 * owner reference does not matter).
 */
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from '../../api/naming.js';
import { parseApiVersion, type KubeObject } from '../../client/index.js';

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** An object's coordinates; `namespace` is '' for a cluster-scoped object (or an owner not yet known). */
export interface Identity {
  apiVersion: string;
  kind: string;
  name: string;
  namespace: string;
  uid: string;
}

/**
 * The object's coordinates. A metadata-only copy (PartialObjectMetadata, what the collector's informers hold)
 * does not say its own kind: apiVersion and kind are then empty, for the caller to fill from the resource.
 */
export function identityOf(obj: KubeObject): Identity {
  const partial = obj.kind === 'PartialObjectMetadata';
  return {
    apiVersion: partial ? '' : (obj.apiVersion ?? ''),
    kind: partial ? '' : (obj.kind ?? ''),
    name: obj.metadata.name ?? '',
    namespace: obj.metadata.namespace ?? '',
    uid: obj.metadata.uid ?? '',
  };
}

export function ownerReferencesOf(obj: KubeObject): OwnerReference[] {
  const refs = obj.metadata.ownerReferences;
  return Array.isArray(refs) ? (refs as OwnerReference[]) : [];
}

/** The identity an owner reference gives its owner, assuming the dependent's namespace. */
export function identityFromReference(ref: OwnerReference, dependentNamespace: string): Identity {
  return { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, namespace: dependentNamespace, uid: ref.uid };
}

const groupOf = (apiVersion: string) => parseApiVersion(apiVersion).group;

/** Same object by the reference's coordinates: uid, name, kind and group (versions may differ). */
export function referenceMatches(ref: OwnerReference, id: Identity): boolean {
  return ref.uid === id.uid && ref.name === id.name && ref.kind === id.kind && groupOf(ref.apiVersion) === groupOf(id.apiVersion);
}

export function sameIdentity(a: Identity, b: Identity): boolean {
  return a.uid === b.uid && a.name === b.name && a.kind === b.kind && a.namespace === b.namespace && groupOf(a.apiVersion) === groupOf(b.apiVersion);
}

export const hasFinalizer = (obj: KubeObject, f: string): boolean => Array.isArray(obj.metadata.finalizers) && obj.metadata.finalizers.includes(f);
export const beingDeleted = (obj: KubeObject | undefined): boolean => !!obj?.metadata.deletionTimestamp;
export const waitsForOrphaning = (obj: KubeObject | undefined): boolean => beingDeleted(obj) && hasFinalizer(obj as KubeObject, ORPHAN_FINALIZER);
export const waitsForDependentsDeletion = (obj: KubeObject | undefined): boolean => beingDeleted(obj) && hasFinalizer(obj as KubeObject, FOREGROUND_FINALIZER);

/** Owner references of `next` that `prev` lacks, that it lost, and those whose blockOwnerDeletion changed. */
export function referenceDiff(prev: OwnerReference[], next: OwnerReference[]): { added: OwnerReference[]; removed: OwnerReference[]; changed: { old: OwnerReference; now: OwnerReference }[] } {
  const before = new Map(prev.map((r) => [r.uid, r]));
  const after = new Map(next.map((r) => [r.uid, r]));
  const added = next.filter((r) => !before.has(r.uid));
  const removed = prev.filter((r) => !after.has(r.uid));
  const changed: { old: OwnerReference; now: OwnerReference }[] = [];
  for (const r of next) {
    const old = before.get(r.uid);
    if (old && (old.blockOwnerDeletion === true) !== (r.blockOwnerDeletion === true)) changed.push({ old, now: r });
  }
  return { added, removed, changed };
}

/**
 * Owners known to be absent, by coordinates (uid plus namespace where the owner is namespaced). A uid is
 * never reused, so an entry cannot go stale; the size bound only limits memory (oldest dropped first).
 */
export class AbsentOwners {
  private readonly keys = new Set<string>();
  constructor(private readonly limit = 1000) {}

  static key(ref: Pick<OwnerReference, 'apiVersion' | 'kind' | 'name' | 'uid'>, namespace: string): string {
    return [groupOf(ref.apiVersion), ref.kind, namespace, ref.name, ref.uid].join('\u0000');
  }

  has(key: string): boolean {
    return this.keys.has(key);
  }

  add(key: string): void {
    this.keys.delete(key);
    this.keys.add(key);
    if (this.keys.size > this.limit) this.keys.delete(this.keys.values().next().value as string);
  }
}
