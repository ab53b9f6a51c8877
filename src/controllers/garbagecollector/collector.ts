/**
 * The collector's two kinds of work, as the reference does them. The delete queue looks at one node:
 * a virtual owner is verified with a live GET (absent: its dependents are queued); a dependent whose
 * owners are all gone is deleted, one whose owners wait in the foreground is deleted in the foreground
 * when it has dependents of its own; an owner deleting in the foreground loses its finalizer once no
 * blocking dependent is left. The orphan queue strips an owner's references from its dependents, then
 * removes its `orphan` finalizer. Every write names the uid and resourceVersion it was decided on.
 */
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from '../../api/naming.js';
import { StatusError } from '../../errors/index.js';
import { WorkQueue, isConflict, isNotFound, type KubeObject, type ResourceInfo } from '../../client/index.js';
import type { ControllerContext } from '../contract.js';
import { DependencyGraph, type GraphNode } from './graph.js';
import { AbsentOwners, hasFinalizer, ownerReferencesOf, referenceMatches, type Identity, type OwnerReference } from './identity.js';
import { recordWarning } from './events.js';

type Outcome = 'forget' | 'requeue';

/** A cluster-scoped object naming a namespaced owner: invalid, and retrying cannot fix it. */
class NamespacedOwnerOfClusterScoped extends Error {}

/** A write decided on a copy that is no longer current (a precondition or a JSON patch test failed). */
const isStale = (e: unknown) => isConflict(e) || (e instanceof StatusError && e.code === 422);

export class GarbageCollector {
  readonly graph: DependencyGraph;
  readonly deleteQueue = new WorkQueue<string>();
  readonly orphanQueue = new WorkQueue<string>();

  constructor(private readonly ctx: ControllerContext) {
    this.graph = new DependencyGraph({
      attemptToDelete: (n) => this.deleteQueue.add(n.identity.uid),
      attemptToOrphan: (n) => this.orphanQueue.add(n.identity.uid),
      invalidNamespaceReference: (dep, owner) =>
        recordWarning(ctx, dep.identity, 'OwnerRefInvalidNamespace', `owner reference to ${owner.identity.kind} ${owner.identity.name} (uid ${owner.identity.uid}) is not in namespace "${dep.identity.namespace}"`),
    });
  }

  /** Runs `workers` loops on each queue until the queues shut down. */
  async runWorkers(workers: number): Promise<void> {
    const loops: Promise<void>[] = [];
    for (let i = 0; i < workers; i++) {
      loops.push(this.loop(this.deleteQueue, (uid) => this.attemptToDelete(uid)));
      loops.push(this.loop(this.orphanQueue, (uid) => this.attemptToOrphan(uid)));
    }
    await Promise.all(loops);
  }

  async shutDown(): Promise<void> {
    await Promise.all([this.deleteQueue.shutDownWithDrain(), this.orphanQueue.shutDownWithDrain()]);
  }

  private async loop(queue: WorkQueue<string>, work: (uid: string) => Promise<Outcome>): Promise<void> {
    for (;;) {
      const uid = await queue.get();
      if (uid === undefined) return;
      try {
        if ((await work(uid)) === 'requeue') queue.addRateLimited(uid);
        else queue.forget(uid);
      } catch (e) {
        if (!this.ctx.signal.aborted) this.ctx.log(`garbage collector: ${uid}: ${(e as Error).message}`);
        queue.addRateLimited(uid);
      } finally {
        queue.done(uid);
      }
    }
  }

  // ---- the delete queue

  private async attemptToDelete(uid: string): Promise<Outcome> {
    const n = this.graph.node(uid);
    if (!n) return 'forget';
    // Terminating without waiting for dependents: nothing to do until it is gone.
    if (n.beingDeleted && !n.deletingDependents) return 'forget';
    for (let pass = 0; ; pass++) {
      let latest: KubeObject | undefined;
      try {
        latest = n.virtual || pass > 0 || !n.object ? await this.getLive(n.identity) : n.object;
      } catch (e) {
        if (e instanceof NamespacedOwnerOfClusterScoped) return 'forget';
        throw e;
      }
      if (!latest || latest.metadata.uid !== uid) {
        this.graph.confirmAbsent(await this.normalized(n.identity));
        return 'forget';
      }
      try {
        await this.decide(n, latest);
        // A virtual node's owner exists but no informer has shown it yet: look again later.
        return n.virtual ? 'requeue' : 'forget';
      } catch (e) {
        if (e instanceof NamespacedOwnerOfClusterScoped) return 'forget';
        if (isStale(e) && pass === 0) continue;
        throw e;
      }
    }
  }

  private async decide(n: GraphNode, latest: KubeObject): Promise<void> {
    if (n.deletingDependents) return this.processDeletingDependents(n, latest);
    const refs = ownerReferencesOf(latest);
    if (refs.length === 0) return;
    const { solid, dangling, waiting } = await this.classify(n, refs);
    if (solid.length > 0) {
      if (dangling.length === 0 && waiting.length === 0) return;
      // Keep the live owners; references to gone owners and to owners waiting on us are dropped.
      const drop = new Set([...dangling, ...waiting].map((r) => r.uid));
      return this.patchOwnerReferences(n, latest, refs.filter((r) => !drop.has(r.uid)));
    }
    if (waiting.length > 0 && n.dependents.size > 0) {
      // Its own dependents may wait on it in turn: a cycle is broken by making its references non-blocking.
      if ([...n.dependents].some((d) => d.deletingDependents)) {
        await this.patchOwnerReferences(n, latest, refs.map((r) => (r.blockOwnerDeletion ? { ...r, blockOwnerDeletion: false } : r)));
        latest = (await this.getLive(n.identity)) ?? latest;
      }
      return this.deleteObject(n, latest, 'Foreground');
    }
    const policy = hasFinalizer(latest, ORPHAN_FINALIZER) ? 'Orphan' : hasFinalizer(latest, FOREGROUND_FINALIZER) ? 'Foreground' : 'Background';
    return this.deleteObject(n, latest, policy);
  }

  /** Each owner reference is solid (owner present), dangling (gone), or waiting (owner deleting in the foreground). */
  private async classify(n: GraphNode, refs: OwnerReference[]): Promise<{ solid: OwnerReference[]; dangling: OwnerReference[]; waiting: OwnerReference[] }> {
    const out = { solid: [] as OwnerReference[], dangling: [] as OwnerReference[], waiting: [] as OwnerReference[] };
    const ns = n.identity.namespace;
    for (const ref of refs) {
      if (this.graph.absent.has(AbsentOwners.key(ref, '')) || this.graph.absent.has(AbsentOwners.key(ref, ns))) {
        out.dangling.push(ref);
        continue;
      }
      const info = await this.ctx.client.discovery.forKind(ref.apiVersion, ref.kind);
      if (info.namespaced && !ns) {
        await recordWarning(this.ctx, n.identity, 'OwnerRefInvalidNamespace', `cluster-scoped object names a namespaced owner ${ref.kind} ${ref.name} (uid ${ref.uid})`);
        throw new NamespacedOwnerOfClusterScoped();
      }
      const ownerNamespace = info.namespaced ? ns : '';
      const owner = await this.ownerOf(ref, info, ownerNamespace);
      if (!owner) {
        this.graph.absent.add(AbsentOwners.key(ref, ownerNamespace));
        out.dangling.push(ref);
      } else if (owner.metadata.deletionTimestamp && hasFinalizer(owner, FOREGROUND_FINALIZER)) {
        out.waiting.push(ref);
      } else {
        out.solid.push(ref);
      }
    }
    return out;
  }

  /** The owner a reference names: the graph's copy when observed there, else a live GET; undefined when absent. */
  private async ownerOf(ref: OwnerReference, info: ResourceInfo, namespace: string): Promise<KubeObject | undefined> {
    const known = this.graph.node(ref.uid);
    if (known && !known.virtual && known.object && referenceMatches(ref, known.identity) && known.identity.namespace === namespace) return known.object;
    try {
      const live = await this.ctx.client.resource(info, info.namespaced ? namespace : undefined).metadata().get(ref.name, { signal: this.ctx.signal });
      return live.metadata.uid === ref.uid ? live : undefined;
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  private async processDeletingDependents(n: GraphNode, latest: KubeObject): Promise<void> {
    const blocking = this.graph.blockingDependents(n);
    if (blocking.length === 0) return this.removeFinalizer(n, latest, FOREGROUND_FINALIZER);
    for (const d of blocking) if (!d.deletingDependents) this.deleteQueue.add(d.identity.uid);
  }

  // ---- the orphan queue

  private async attemptToOrphan(uid: string): Promise<Outcome> {
    const owner = this.graph.node(uid);
    if (!owner) return 'forget';
    const dependents = [...owner.dependents];
    const width = Math.max(1, this.ctx.settings.concurrency('garbage-collector-controller'));
    for (let i = 0; i < dependents.length; i += width) {
      await Promise.all(dependents.slice(i, i + width).map((d) => this.dropReference(d, uid)));
    }
    const latest = owner.object ?? (await this.getLive(owner.identity));
    if (latest && latest.metadata.uid === uid) await this.retryStale(owner, latest, (obj) => this.removeFinalizer(owner, obj, ORPHAN_FINALIZER));
    return 'forget';
  }

  private async dropReference(dep: GraphNode, ownerUid: string): Promise<void> {
    const obj = dep.object;
    if (!obj) return;
    await this.retryStale(dep, obj, (cur) => {
      const refs = ownerReferencesOf(cur);
      if (!refs.some((r) => r.uid === ownerUid)) return Promise.resolve();
      return this.patchOwnerReferences(dep, cur, refs.filter((r) => r.uid !== ownerUid));
    });
  }

  // ---- writes

  /** Runs `write` on the cached copy, and once more on a live one if the cached copy was stale. */
  private async retryStale(n: GraphNode, obj: KubeObject, write: (obj: KubeObject) => Promise<void>): Promise<void> {
    try {
      await write(obj);
    } catch (e) {
      if (!isStale(e)) throw e;
      const live = await this.getLive(n.identity);
      if (live && live.metadata.uid === n.identity.uid) await write(live);
    }
  }

  private async deleteObject(n: GraphNode, latest: KubeObject, policy: 'Orphan' | 'Background' | 'Foreground'): Promise<void> {
    const { client, name } = await this.clientFor(n.identity);
    try {
      await client.delete(name, { preconditions: { uid: n.identity.uid, resourceVersion: latest.metadata.resourceVersion }, propagationPolicy: policy, signal: this.ctx.signal });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }

  private async patchOwnerReferences(n: GraphNode, latest: KubeObject, refs: OwnerReference[]): Promise<void> {
    const change = refs.length > 0 ? { op: 'replace', path: '/metadata/ownerReferences', value: refs } : { op: 'remove', path: '/metadata/ownerReferences' };
    await this.patchMeta(n, latest, change);
  }

  private async removeFinalizer(n: GraphNode, latest: KubeObject, finalizer: string): Promise<void> {
    const finalizers = latest.metadata.finalizers ?? [];
    if (!finalizers.includes(finalizer)) return;
    await this.patchMeta(n, latest, { op: 'replace', path: '/metadata/finalizers', value: finalizers.filter((f) => f !== finalizer) });
  }

  /** A JSON patch that applies only to the copy it was computed from (same uid and resourceVersion). */
  private async patchMeta(n: GraphNode, latest: KubeObject, change: Record<string, unknown>): Promise<void> {
    const { client, name } = await this.clientFor(n.identity);
    const ops = [
      { op: 'test', path: '/metadata/uid', value: n.identity.uid },
      { op: 'test', path: '/metadata/resourceVersion', value: latest.metadata.resourceVersion },
      change,
    ];
    try {
      await client.patch(name, 'json', ops, { signal: this.ctx.signal });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }

  // ---- reads

  private async clientFor(id: Identity) {
    const info = await this.ctx.client.discovery.forKind(id.apiVersion, id.kind);
    if (info.namespaced && !id.namespace) throw new NamespacedOwnerOfClusterScoped();
    return { client: this.ctx.client.resource(info, info.namespaced ? id.namespace : undefined), name: id.name };
  }

  /** The object with these coordinates now, or undefined when there is none. */
  private async getLive(id: Identity): Promise<KubeObject | undefined> {
    const { client, name } = await this.clientFor(id);
    try {
      return await client.metadata().get(name, { signal: this.ctx.signal });
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  /** The identity as the API scopes it: a cluster-scoped kind has no namespace. */
  private async normalized(id: Identity): Promise<Identity> {
    const info = await this.ctx.client.discovery.forKind(id.apiVersion, id.kind);
    return info.namespaced ? id : { ...id, namespace: '' };
  }
}
