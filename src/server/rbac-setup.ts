import { RBAC_GROUP } from '../api/naming.js';
import type { ApiObject } from '../api/types.js';
import { isObject } from '../api/types.js';
import type { UserInfo } from '../authn/index.js';
import { forbidden } from '../errors/index.js';
import type { Attributes, Authorizer } from '../authz/index.js';
import {
  confirmNoEscalation,
  defaultRbacObjects,
  RbacIndex,
  reconcile,
  roleRefChanged,
  roleRefRules,
  type RbacKind,
  type RoleRef,
  type Rule,
} from '../authz/rbac/index.js';
import type { GenericStore, Registry } from '../registry/index.js';
import { isUnreadable, itemRef, readableItems, UnreadableLog } from '../registry/readable.js';

const KINDS: [RbacKind, string][] = [
  ['Role', 'roles'],
  ['ClusterRole', 'clusterroles'],
  ['RoleBinding', 'rolebindings'],
  ['ClusterRoleBinding', 'clusterrolebindings'],
];

const rbacStore = (registry: Registry, plural: string) => {
  const s = registry.store(RBAC_GROUP, 'v1', plural);
  if (!s) throw new Error(`${plural}.${RBAC_GROUP} is not registered`);
  return s;
};

/**
 * Keeps an RbacIndex current from the watch caches of the four RBAC types (the storage change feed), so
 * authorization never reads storage and sees changes made through any server on the same store. A role or
 * binding whose stored value no encryption provider can read grants nothing (it is left out of the index,
 * or taken out if an older readable version was in it) and is logged.
 */
export async function feedRbacIndex(registry: Registry, index: RbacIndex, log: (m: string) => void = () => undefined): Promise<{ index: RbacIndex; stop(): void }> {
  const stops: (() => void)[] = [];
  const unreadable = new UnreadableLog(log, 'rbac: an unreadable object grants nothing');
  for (const [kind, plural] of KINDS) {
    const reader = registry.reader(rbacStore(registry, plural).type);
    await reader.cacher.ready;
    const removeByKey = (key: string) => {
      const { namespace, name } = itemRef(reader.type, key);
      index.remove(kind, namespace, name);
    };
    // Subscribe and load in one tick: nothing falls between the snapshot and the feed.
    stops.push(
      reader.cacher.subscribe(
        (e) => {
          if (isUnreadable(e.item)) {
            if (e.type === 'PUT') unreadable.report(e.item);
            return removeByKey(e.key);
          }
          const obj = reader.decode(e.item, e.revision);
          if (e.type === 'PUT') index.upsert(kind, obj);
          else index.remove(kind, obj.metadata?.namespace ?? '', obj.metadata?.name ?? '');
        },
        () => undefined,
      ),
    );
    for (const item of readableItems(reader.cacher.range(reader.cacher.prefix), unreadable.skip)) index.upsert(kind, reader.decode(item));
  }
  return { index, stop: () => stops.forEach((s) => s()) };
}

/** Default ClusterRoles and ClusterRoleBindings (spec 5.8): create what is missing, add missing rules and subjects. */
export async function reconcileDefaultRbac(registry: Registry, log: (m: string) => void): Promise<void> {
  for (const wanted of defaultRbacObjects()) {
    const plural = (KINDS.find(([k]) => k === wanted.kind) as [RbacKind, string])[1];
    const store = rbacStore(registry, plural);
    const name = wanted.metadata?.name as string;
    const ns = wanted.metadata?.namespace; // set on the controllers' Roles and RoleBindings only
    // Unreadable (encrypted with a key no longer configured): neither compared nor overwritten, only logged.
    const cached = registry.reader(store.type).cacher.get(store.key(ns, name));
    if (cached && isUnreadable(cached)) {
      log(`rbac: cannot reconcile the default ${plural}.${RBAC_GROUP} ${ns ? `${ns}/` : ''}${name}: ${cached.unreadable.message}`);
      continue;
    }
    const existing = await store.get(ns, name).catch((e: { code?: number }) => {
      if (e.code === 404) return undefined;
      throw e;
    });
    if (existing && plural.endsWith('bindings') && roleRefChanged(existing, wanted)) {
      log(`rbac: ${name} has a different roleRef than the default; recreating it`);
      await store.delete(ns, name);
      await store.create(ns, wanted);
      continue;
    }
    const next = reconcile(existing, wanted);
    if (!next) continue;
    if (existing) await store.update(ns, name, next);
    else await store.create(ns, next).catch((e: { code?: number }) => {
      if (e.code !== 409) throw e; // another server created it first
    });
  }
}

/**
 * Escalation prevention (spec 5.8) as admission for RBAC writes: a role needs every permission it grants
 * (or the `escalate` verb); a binding needs the referenced role's permissions (or the `bind` verb on it).
 */
export function rbacAdmission(user: UserInfo, authorizer: Authorizer, index: RbacIndex, plural: string) {
  const allowedVerb = async (verb: 'escalate' | 'bind', resource: string, namespace: string, name: string) => {
    const a: Attributes = { user, verb, isResourceRequest: true, path: '', apiGroup: RBAC_GROUP, apiVersion: 'v1', resource, subresource: '', namespace, name };
    return (await authorizer.authorize(a)).decision === 'allow';
  };
  return async (obj: ApiObject): Promise<void> => {
    const ns = obj.metadata?.namespace ?? '';
    const name = obj.metadata?.name ?? '';
    let rules: Rule[];
    let what: string;
    if (plural === 'roles' || plural === 'clusterroles') {
      if (await allowedVerb('escalate', plural, ns, name)) return;
      rules = (Array.isArray(obj.rules) ? obj.rules : []) as Rule[];
      what = `${plural === 'roles' ? 'roles' : 'clusterroles'}.${RBAC_GROUP} "${name}"`;
    } else {
      const ref = (isObject(obj.roleRef) ? obj.roleRef : {}) as unknown as RoleRef;
      const refPlural = ref.kind === 'Role' ? 'roles' : 'clusterroles';
      if (await allowedVerb('bind', refPlural, ref.kind === 'Role' ? ns : '', ref.name)) return;
      rules = roleRefRules(index, ref, ns).rules;
      what = `${plural}.${RBAC_GROUP} "${name}"`;
    }
    const verdict = confirmNoEscalation(index, user, ns, rules);
    if (!verdict.allowed) throw forbidden(`${what} is forbidden: ${verdict.message}`, { group: RBAC_GROUP, kind: plural, name });
  };
}

export type { GenericStore };
