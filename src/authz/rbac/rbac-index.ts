/**
 * An in-memory RbacSource: roles by name, and bindings indexed by subject (user name, group name; a
 * service account by its user name) so that authorizing one request touches only the bindings that can
 * apply to that user, however many bindings the cluster holds. The wiring keeps it current from watches.
 */
import type { ApiObject } from '../../api/types.js';
import type { RbacSource } from './authorizer.js';
import {
  nameOf,
  namespaceOf,
  serviceAccountUsername,
  subjectsOf,
  type Binding,
  type ClusterRole,
  type Role,
  type UserInfo,
} from './types.js';

export type RbacKind = 'Role' | 'ClusterRole' | 'RoleBinding' | 'ClusterRoleBinding';

// Users and groups live in separate key spaces: a group named like a user must not match that user.
const userKey = (name: string) => `u:${name}`;
const groupKey = (name: string) => `g:${name}`;

/** The index keys under which a binding is found; subjects that can never match anyone get none. */
function subjectKeys(b: Binding, bindingNamespace: string): Set<string> {
  const keys = new Set<string>();
  for (const s of subjectsOf(b)) {
    if (s.kind === 'User') keys.add(userKey(s.name));
    else if (s.kind === 'Group') keys.add(groupKey(s.name));
    else if (s.kind === 'ServiceAccount') {
      const ns = s.namespace || bindingNamespace;
      if (ns) keys.add(userKey(serviceAccountUsername(ns, s.name)));
    }
  }
  return keys;
}

/** The bindings of one namespace (or the cluster), by name and by subject key. */
class BindingSet {
  readonly byName = new Map<string, Binding>();
  private readonly bySubject = new Map<string, Map<string, Binding>>();

  constructor(private readonly namespace: string) {}

  upsert(b: Binding): void {
    const name = nameOf(b);
    this.remove(name);
    this.byName.set(name, b);
    for (const k of subjectKeys(b, this.namespace)) {
      let m = this.bySubject.get(k);
      if (!m) this.bySubject.set(k, (m = new Map()));
      m.set(name, b);
    }
  }

  remove(name: string): void {
    const old = this.byName.get(name);
    if (!old) return;
    this.byName.delete(name);
    for (const k of subjectKeys(old, this.namespace)) {
      const m = this.bySubject.get(k);
      m?.delete(name);
      if (m?.size === 0) this.bySubject.delete(k);
    }
  }

  forUser(user: UserInfo): Binding[] {
    const hits: Map<string, Binding>[] = [];
    const u = this.bySubject.get(userKey(user.username));
    if (u) hits.push(u);
    for (const g of user.groups) {
      const m = this.bySubject.get(groupKey(g));
      if (m) hits.push(m);
    }
    if (hits.length === 0) return [];
    if (hits.length === 1) return [...(hits[0]?.values() ?? [])];
    // A binding naming both the user and one of its groups must be visited once.
    const seen = new Map<string, Binding>();
    for (const m of hits) for (const [n, b] of m) if (!seen.has(n)) seen.set(n, b);
    return [...seen.values()];
  }

  get size(): number {
    return this.byName.size;
  }
}

export class RbacIndex implements RbacSource {
  private readonly roles = new Map<string, Map<string, Role>>();
  private readonly clusterRoles = new Map<string, ClusterRole>();
  private readonly roleBindings = new Map<string, BindingSet>();
  private readonly clusterRoleBindings = new BindingSet('');

  /** Adds or replaces an object of one of the four kinds (namespace and name from its metadata); it is kept, not copied, so do not mutate it afterwards. */
  upsert(kind: RbacKind, obj: ApiObject): void {
    const ns = namespaceOf(obj);
    switch (kind) {
      case 'Role': {
        let m = this.roles.get(ns);
        if (!m) this.roles.set(ns, (m = new Map()));
        m.set(nameOf(obj), obj as Role);
        return;
      }
      case 'ClusterRole':
        this.clusterRoles.set(nameOf(obj), obj as ClusterRole);
        return;
      case 'RoleBinding': {
        let set = this.roleBindings.get(ns);
        if (!set) this.roleBindings.set(ns, (set = new BindingSet(ns)));
        set.upsert(obj as Binding);
        return;
      }
      case 'ClusterRoleBinding':
        this.clusterRoleBindings.upsert(obj as Binding);
        return;
    }
  }

  remove(kind: RbacKind, namespace: string, name: string): void {
    switch (kind) {
      case 'Role': {
        const m = this.roles.get(namespace);
        m?.delete(name);
        if (m?.size === 0) this.roles.delete(namespace);
        return;
      }
      case 'ClusterRole':
        this.clusterRoles.delete(name);
        return;
      case 'RoleBinding': {
        const set = this.roleBindings.get(namespace);
        set?.remove(name);
        if (set?.size === 0) this.roleBindings.delete(namespace);
        return;
      }
      case 'ClusterRoleBinding':
        this.clusterRoleBindings.remove(name);
        return;
    }
  }

  /** Applies one watch event (ADDED/MODIFIED upsert, DELETED removes; BOOKMARK and ERROR are ignored). */
  apply(kind: RbacKind, type: string, obj: ApiObject): void {
    if (type === 'ADDED' || type === 'MODIFIED') this.upsert(kind, obj);
    else if (type === 'DELETED') this.remove(kind, namespaceOf(obj), nameOf(obj));
  }

  getRole(namespace: string, name: string): Role | undefined {
    return this.roles.get(namespace)?.get(name);
  }

  getClusterRole(name: string): ClusterRole | undefined {
    return this.clusterRoles.get(name);
  }

  listRoles(namespace: string): Role[] {
    return [...(this.roles.get(namespace)?.values() ?? [])];
  }

  listClusterRoles(): ClusterRole[] {
    return [...this.clusterRoles.values()];
  }

  listRoleBindings(namespace: string): Binding[] {
    return [...(this.roleBindings.get(namespace)?.byName.values() ?? [])];
  }

  listClusterRoleBindings(): Binding[] {
    return [...this.clusterRoleBindings.byName.values()];
  }

  roleBindingsFor(namespace: string, user: UserInfo): Binding[] {
    return this.roleBindings.get(namespace)?.forUser(user) ?? [];
  }

  clusterRoleBindingsFor(user: UserInfo): Binding[] {
    return this.clusterRoleBindings.forUser(user);
  }
}
