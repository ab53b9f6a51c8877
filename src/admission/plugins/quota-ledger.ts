/**
 * The bookkeeping ResourceQuota needs while the objects it admitted are on their way to storage: a lock per
 * quota (so two requests racing for the last unit are checked one after the other) and the charges of
 * admitted writes that the watch cache does not show yet (so the second request still sees the first).
 */
import type { ApiObject } from '../../api/types.js';
import type { ResourceList } from './quota-usage.js';

/** Serializes work per key; several keys are taken in sorted order, so two holders never wait on each other. */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  async acquire(keys: readonly string[]): Promise<() => void> {
    const releases: (() => void)[] = [];
    for (const key of [...new Set(keys)].sort()) releases.push(await this.acquireOne(key));
    return () => {
      for (const r of releases.reverse()) r();
    };
  }

  private async acquireOne(key: string): Promise<() => void> {
    const before = this.tails.get(key);
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const tail = before ? before.then(() => mine) : mine;
    this.tails.set(key, tail);
    if (before) await before;
    return () => {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    };
  }

  get held(): number {
    return this.tails.size;
  }
}

/** One admitted write whose object the cache may not show yet. */
export interface Reservation {
  readonly group: string;
  readonly resource: string;
  readonly name: string;
  readonly uid: string;
  /** The resourceVersion an update replaced; undefined for a create. */
  readonly replacedVersion: string | undefined;
  /** The object as admitted (scoped quotas ask whether it falls under them). */
  readonly object: ApiObject;
  /** What it added to usage. */
  readonly charged: ResourceList;
  readonly expires: number;
}

/**
 * Charges waiting to show up in the cache, per namespace. A charge ends when the cache shows the write (an
 * object of that name for a create, a newer version for an update), when the object is deleted, or after
 * `ttlMs` (a write that failed after admission never shows up).
 */
export class PendingCharges {
  private readonly byNamespace = new Map<string, Reservation[]>();

  constructor(private readonly ttlMs: number) {}

  get size(): number {
    return this.byNamespace.size;
  }

  add(namespace: string, r: Omit<Reservation, 'expires'>, now: number): void {
    const list = this.byNamespace.get(namespace) ?? [];
    list.push({ ...r, expires: now + this.ttlMs });
    this.byNamespace.set(namespace, list);
  }

  /** The live charges of a namespace (expired ones dropped). */
  in(namespace: string, now: number): readonly Reservation[] {
    const list = this.byNamespace.get(namespace);
    if (!list) return [];
    return this.keep(namespace, list.filter((r) => r.expires > now));
  }

  /** Drops the charges of group/resource that `current` (the cache's objects of the namespace) already shows. */
  settle(namespace: string, group: string, resource: string, current: readonly ApiObject[]): void {
    const list = this.byNamespace.get(namespace);
    if (!list) return;
    const shown = new Map<string, ApiObject>();
    for (const o of current) shown.set(String(o.metadata?.name ?? ''), o);
    this.keep(namespace, list.filter((r) => {
      if (r.group !== group || r.resource !== resource) return true;
      const o = shown.get(r.name);
      if (!o) return true;
      // An update shows once the cache holds a version newer than the one it replaced.
      return r.replacedVersion !== undefined && !(Number(o.metadata?.resourceVersion) > Number(r.replacedVersion));
    }));
  }

  /** Drops the charges of an object being deleted (by uid). */
  forget(namespace: string, uid: string): void {
    const list = this.byNamespace.get(namespace);
    if (list) this.keep(namespace, list.filter((r) => r.uid !== uid));
  }

  private keep(namespace: string, list: Reservation[]): Reservation[] {
    if (list.length === 0) this.byNamespace.delete(namespace);
    else this.byNamespace.set(namespace, list);
    return list;
  }
}
