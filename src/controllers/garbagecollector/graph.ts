/**
 * The dependency graph of the garbage collector: one node per object uid, linked from owners to
 * dependents, fed by informer events. Owners referenced but not (yet) observed are "virtual" nodes whose
 * existence the collector verifies with the API. The graph decides nothing itself: it reports which
 * nodes need a look (delete queue), which owners wait for orphaning (orphan queue), and references that
 * are invalid by namespace. Single-threaded: informer callbacks and workers share one event loop.
 */
import type { KubeObject, ResourceInfo } from '../../client/index.js';
import {
  AbsentOwners,
  beingDeleted,
  identityFromReference,
  identityOf,
  ownerReferencesOf,
  referenceDiff,
  referenceMatches,
  sameIdentity,
  waitsForDependentsDeletion,
  waitsForOrphaning,
  type Identity,
  type OwnerReference,
} from './identity.js';

export interface GraphNode {
  identity: Identity;
  owners: OwnerReference[];
  readonly dependents: Set<GraphNode>;
  /** Known only from a dependent's owner reference; not seen by any informer. */
  virtual: boolean;
  beingDeleted: boolean;
  /** Terminating with the foregroundDeletion finalizer: waits for its blocking dependents to go. */
  deletingDependents: boolean;
  /** The informer's latest copy (shared with its cache; read-only) and the resource it came from. */
  object?: KubeObject;
  resource?: ResourceInfo;
}

/** What the graph asks of the collector. */
export interface GraphSink {
  attemptToDelete(node: GraphNode): void;
  attemptToOrphan(node: GraphNode): void;
  /** A dependent names an observed namespaced owner from another namespace (the reference reports it). */
  invalidNamespaceReference(dependent: GraphNode, owner: GraphNode): void;
}

export class DependencyGraph {
  private readonly nodes = new Map<string, GraphNode>();
  readonly absent = new AbsentOwners();

  constructor(private readonly sink: GraphSink) {}

  get size(): number {
    return this.nodes.size;
  }

  node(uid: string): GraphNode | undefined {
    return this.nodes.get(uid);
  }

  /** An object added or updated (`old` is the previous copy when the informer had one). */
  observe(obj: KubeObject, old: KubeObject | undefined, resource?: ResourceInfo): void {
    const id = identityOf(obj);
    if (!id.uid) return;
    // Items of a list and metadata-only copies do not say their kind: the resource they came from does.
    if (resource && (!id.apiVersion || !id.kind)) {
      id.apiVersion = resource.group ? `${resource.group}/${resource.version}` : resource.version;
      id.kind = resource.kind;
    }
    let n = this.nodes.get(id.uid);
    if (!n) {
      n = { identity: id, owners: ownerReferencesOf(obj), dependents: new Set(), virtual: false, beingDeleted: beingDeleted(obj), deletingDependents: waitsForDependentsDeletion(obj), object: obj, resource };
      this.nodes.set(id.uid, n);
      this.addToOwners(n, n.owners);
      this.transitions(old, obj, n);
      return;
    }
    if (n.virtual) {
      // Dependents that named this owner by other coordinates may hold dangling references: check them.
      if (!sameIdentity(n.identity, id)) {
        for (const dep of n.dependents) if (!dependsOnIdentity(dep, id)) this.sink.attemptToDelete(dep);
      }
      n.identity = id;
      n.virtual = false;
    }
    n.object = obj;
    n.resource = resource ?? n.resource;
    const next = ownerReferencesOf(obj);
    const { added, removed, changed } = referenceDiff(n.owners, next);
    if (added.length || removed.length || changed.length) {
      this.unblockOwners(removed, changed);
      n.owners = next;
      this.addToOwners(n, added);
      this.removeFromOwners(n, removed);
    } else {
      n.owners = next;
    }
    if (beingDeleted(obj)) n.beingDeleted = true;
    this.transitions(old, obj, n);
  }

  /** An object the informer saw deleted. */
  forget(obj: KubeObject): void {
    const n = this.nodes.get(obj.metadata.uid ?? '');
    if (!n) return;
    const id = identityOf(obj);
    this.remove(n, id.kind ? id : n.identity);
  }

  /**
   * The API confirmed no object with this identity exists (a virtual node's owner, or an object gone
   * before its informer said so). A virtual node whose dependents name it by other coordinates stays for
   * them; dependents that match are queued to be collected.
   */
  confirmAbsent(id: Identity): void {
    const n = this.nodes.get(id.uid);
    if (!n) return;
    const matching = [...n.dependents].filter((d) => dependsOnIdentity(d, id));
    const other = [...n.dependents].filter((d) => !dependsOnIdentity(d, id));
    if (other.length === 0 && (n.virtual || sameIdentity(n.identity, id))) {
      this.remove(n, id);
      return;
    }
    // Some dependents disagree on the coordinates: only the matching ones lose their owner.
    if (matching.length > 0) this.absent.add(AbsentOwners.key(id, id.namespace));
    for (const d of matching) this.sink.attemptToDelete(d);
    if (n.virtual && sameIdentity(n.identity, id)) {
      // Verify next the coordinates another dependent uses.
      const alt = other[0] as GraphNode;
      const ref = alt.owners.find((r) => r.uid === id.uid);
      if (ref) n.identity = identityFromReference(ref, alt.identity.namespace);
      this.sink.attemptToDelete(n);
    }
  }

  /** The dependents whose reference to `owner` blocks its foreground deletion. */
  blockingDependents(owner: GraphNode): GraphNode[] {
    const out: GraphNode[] = [];
    for (const d of owner.dependents) {
      if (d.owners.some((r) => r.uid === owner.identity.uid && r.blockOwnerDeletion === true)) out.push(d);
    }
    return out;
  }

  private remove(n: GraphNode, id: Identity): void {
    this.nodes.delete(n.identity.uid);
    this.removeFromOwners(n, n.owners);
    if (n.dependents.size > 0) this.absent.add(AbsentOwners.key(id, id.namespace));
    for (const d of n.dependents) this.sink.attemptToDelete(d);
    // Owners waiting in the foreground may now have no blocking dependent left.
    for (const r of n.owners) {
      const owner = this.nodes.get(r.uid);
      if (owner?.deletingDependents) this.sink.attemptToDelete(owner);
    }
  }

  private addToOwners(n: GraphNode, refs: OwnerReference[]): void {
    let suspicious = false;
    for (const ref of refs) {
      let owner = this.nodes.get(ref.uid);
      if (!owner) {
        owner = { identity: identityFromReference(ref, n.identity.namespace), owners: [], dependents: new Set(), virtual: true, beingDeleted: false, deletingDependents: false };
        this.nodes.set(ref.uid, owner);
        owner.dependents.add(n);
        // The collector checks with the API whether this owner exists.
        this.sink.attemptToDelete(owner);
        continue;
      }
      owner.dependents.add(n);
      if (suspicious) continue;
      const ownerNamespace = owner.identity.namespace;
      if (ownerNamespace && ownerNamespace !== n.identity.namespace) {
        if (!owner.virtual) this.sink.invalidNamespaceReference(n, owner);
        suspicious = true;
      } else if (!referenceMatches(ref, owner.identity)) {
        suspicious = true;
      } else if (!ownerNamespace && n.identity.namespace && owner.virtual) {
        // A virtual cluster-scoped owner may really be a missing namespaced one: verify the references.
        suspicious = true;
      }
    }
    if (suspicious) this.sink.attemptToDelete(n);
  }

  private removeFromOwners(n: GraphNode, refs: OwnerReference[]): void {
    for (const ref of refs) {
      const owner = this.nodes.get(ref.uid);
      if (!owner) continue;
      owner.dependents.delete(n);
      // A virtual owner nobody refers to any more has nothing left to verify.
      if (owner.virtual && owner.dependents.size === 0) this.nodes.delete(ref.uid);
    }
  }

  /** Owners waiting for their dependents, freed by a reference that went or stopped blocking. */
  private unblockOwners(removed: OwnerReference[], changed: { old: OwnerReference; now: OwnerReference }[]): void {
    const candidates = [...removed.filter((r) => r.blockOwnerDeletion === true), ...changed.filter((c) => c.old.blockOwnerDeletion === true && c.now.blockOwnerDeletion !== true).map((c) => c.now)];
    for (const ref of candidates) {
      const owner = this.nodes.get(ref.uid);
      if (owner?.deletingDependents) this.sink.attemptToDelete(owner);
    }
  }

  /** The reference's transitions: starting to orphan, or starting to wait for dependents' deletion. */
  private transitions(old: KubeObject | undefined, obj: KubeObject, n: GraphNode): void {
    if (waitsForOrphaning(obj) && !waitsForOrphaning(old)) {
      this.sink.attemptToOrphan(n);
      return;
    }
    if (waitsForDependentsDeletion(obj) && !waitsForDependentsDeletion(old)) {
      n.deletingDependents = true;
      for (const d of n.dependents) this.sink.attemptToDelete(d);
      this.sink.attemptToDelete(n);
    }
  }
}

/** True when `dep` refers to an owner with exactly these coordinates. */
function dependsOnIdentity(dep: GraphNode, id: Identity): boolean {
  return dep.owners.some((r) => referenceMatches(r, id));
}
