/**
 * Wires admission into the server: what plugins may read (stored objects, through the watch caches), the
 * internal plugins that always run (RBAC escalation prevention, bootstrap-token Secret rules), and the
 * per-request `WriteAdmission` the write path hands to the store.
 */
import { RBAC_GROUP } from '../api/naming.js';
import type { ApiObject } from '../api/types.js';
import {
  AdmissionChain,
  buildAdmissionChain,
  WriteAdmission,
  type AdmissionDeps,
  type AdmissionOptions,
  type AdmissionPlugin,
  type AdmissionRequest,
  type GroupVersionKind,
  type GroupVersionResource,
  type ObjectReader,
  type WriteOptionFields,
} from '../admission/index.js';
import { validateBootstrapTokenSecret, type UserInfo } from '../authn/index.js';
import type { Authorizer } from '../authz/index.js';
import type { RbacIndex } from '../authz/rbac/index.js';
import type { CachedItem, Cacher } from '../cacher/index.js';
import { invalid } from '../errors/index.js';
import type { GenericStore, Registry, ResourceType } from '../registry/index.js';
import { collectionPrefix } from '../registry/keys.js';
import { readable } from '../registry/readable.js';
import { rbacAdmission } from './rbac-setup.js';

const NOTHING: readonly ApiObject[] = Object.freeze([]);
/** Tries of a status compare-and-swap before the conflict is the caller's. */
const STATUS_WRITE_ATTEMPTS = 8;

/**
 * Stored objects for plugins, read from the watch caches; decoded once per cached version. An object no
 * encryption provider can read fails the admission that needs it with a 500 naming it (nothing is stored).
 * That includes the lists of webhook configurations and policies: skipping one would admit what it exists
 * to refuse, so admission fails closed, as the reference's never-synced informer does.
 */
export class CachedObjectReader implements ObjectReader {
  private readonly decoded = new WeakMap<CachedItem, ApiObject>();
  /** Caches known to have loaded their first list (`peekList` answers from them without waiting). */
  private readonly loaded = new WeakSet<Cacher>();
  /** Found once per group/resource: plugins ask on every write. */
  private readonly stores = new Map<string, GenericStore | undefined>();

  constructor(private readonly registry: Registry) {
    // Custom types come and go: a resource not served a moment ago may be now, and the reverse.
    registry.onTypesChange(() => this.stores.clear());
  }

  peek(group: string, resource: string, namespace: string | undefined, name: string): ApiObject | undefined {
    const store = this.storeOf(group, resource);
    if (!store) return undefined;
    const reader = this.registry.reader(store.type);
    const item = reader.cacher.get(store.key(namespace, name));
    return item ? this.decode(store.type, readable(item)) : undefined;
  }

  /** Consistent: the cache once it has caught up with storage, else storage itself. */
  async get(group: string, resource: string, namespace: string | undefined, name: string): Promise<ApiObject | undefined> {
    const store = this.storeOf(group, resource);
    if (!store) return undefined;
    const reader = this.registry.reader(store.type);
    if (await reader.consistent()) {
      const item = reader.cacher.get(store.key(namespace, name));
      return item ? this.decode(store.type, readable(item)) : undefined;
    }
    return store.get(namespace, name).catch((e: { code?: number }) => {
      if (e.code === 404) return undefined;
      throw e;
    });
  }

  /** What the cache holds now, as an informer would answer (no wait for storage's revision). */
  async list(group: string, resource: string, namespace?: string): Promise<ApiObject[]> {
    const store = this.storeOf(group, resource);
    if (!store) return [];
    const reader = this.registry.reader(store.type);
    await reader.cacher.ready;
    const t = store.type;
    const prefix = collectionPrefix(t.storageKey, t.namespaced ? namespace : undefined);
    const out: ApiObject[] = [];
    for (const item of reader.cacher.range(prefix)) out.push(this.decode(t, readable(item)));
    return out;
  }

  private decode(t: ResourceType, item: CachedItem): ApiObject {
    let obj = this.decoded.get(item);
    if (!obj) this.decoded.set(item, (obj = this.registry.reader(t).decode(item)));
    return obj;
  }

  /** What the cache holds now; undefined until it has loaded (then `list` waits for it). */
  peekList(group: string, resource: string, namespace?: string): readonly ApiObject[] | undefined {
    const store = this.storeOf(group, resource);
    if (!store) return NOTHING;
    const cacher = this.registry.reader(store.type).cacher;
    if (!this.loaded.has(cacher)) {
      void cacher.ready.then(() => this.loaded.add(cacher));
      return undefined;
    }
    // The common answer on a hot write, without building a key or an array.
    if (cacher.size === 0) return NOTHING;
    const t = store.type;
    const out: ApiObject[] = [];
    for (const item of cacher.range(collectionPrefix(t.storageKey, t.namespaced ? namespace : undefined))) out.push(this.decode(t, readable(item)));
    return out;
  }

  /** The store of a resource in any served version (the first registered: they share one storage). */
  storeOf(group: string, resource: string): GenericStore | undefined {
    const key = `${group}/${resource}`;
    if (this.stores.has(key)) return this.stores.get(key);
    const t = this.registry.typesOf(group, resource)[0];
    const store = t ? this.registry.store(t.group, t.version, t.plural) : undefined;
    this.stores.set(key, store);
    return store;
  }
}

/** The dependencies plugin factories get from this server; `authorizer` answers the plugins' permission checks. */
export function admissionDeps(registry: Registry, log: (m: string) => void, authorizer?: Authorizer, chainOf?: () => AdmissionChain | undefined): AdmissionDeps {
  const typeAt = (r: GroupVersionResource) => {
    const [plural] = r.resource.split('/');
    return registry.typeAt(r.group, r.version, plural as string);
  };
  const objects = new CachedObjectReader(registry);
  return {
    objects,
    updateStatus: (group, resource, namespace, name, mutate) => updateStatusOf(objects.storeOf(group, resource), namespace, name, mutate),
    createNamespace: (name) => provisionNamespace(registry, chainOf?.(), name),
    equivalentResources(r) {
      const t = typeAt(r);
      if (!t) return [r];
      const sub = r.resource.includes('/') ? r.resource.slice(r.resource.indexOf('/')) : '';
      const same = registry.typesOfStorage(t.storageKey).filter((x) => sub === '' || x.subresources.includes(sub.slice(1)));
      return same.map((x) => ({ group: x.group, version: x.version, resource: x.plural + sub }));
    },
    kindOf(r): GroupVersionKind | undefined {
      const t = typeAt(r);
      if (!t) return undefined;
      // The scale subresource speaks autoscaling/v1 Scale; other subresources the parent's kind.
      if (r.resource.endsWith('/scale')) return { group: 'autoscaling', version: 'v1', kind: 'Scale' };
      return { group: t.group, version: t.version, kind: t.kind };
    },
    convertObject(obj, from, to) {
      const a = typeAt(from);
      const b = typeAt(to);
      // Only views of one stored resource convert, each through the stored form (ResourceType.toStorage/fromStorage).
      if (!a || !b || a.storageKey !== b.storageKey) return undefined;
      const copy = structuredClone(obj);
      // A conversion that calls out (a CRD's webhook): asynchronous, and only for the requests that need it.
      const calling = b.asyncConversion ?? a.asyncConversion;
      if (calling) return calling.convert([copy], b.group === '' ? b.version : `${b.group}/${b.version}`).then(([out]) => out as ApiObject);
      const stored = a.toStorage ? a.toStorage(copy) : copy;
      const out = b.fromStorage ? b.fromStorage(stored) : stored;
      const { apiVersion: _apiVersion, kind: _kind, ...rest } = out;
      return { apiVersion: b.group === '' ? b.version : `${b.group}/${b.version}`, kind: b.kind, ...rest };
    },
    log,
    resourcesOfKind(k) {
      return registry
        .typesOfKind(k.group, k.version, k.kind)
        .map((t) => ({ resource: { group: t.group, version: t.version, resource: t.plural }, namespaced: t.namespaced }));
    },
    ...(authorizer ? { authorize: authorizeWith(authorizer), authorizeDecision: decisionOf(authorizer) } : {}),
  };
}

/** A status write through the store, retried while someone else wrote the object in between. */
async function updateStatusOf(
  store: GenericStore | undefined,
  namespace: string | undefined,
  name: string,
  mutate: Parameters<NonNullable<AdmissionDeps['updateStatus']>>[4],
): Promise<ApiObject | undefined> {
  if (!store) return undefined;
  const code = (e: unknown) => (e as { code?: number }).code;
  for (let attempt = 0; ; attempt++) {
    let current: ApiObject;
    try {
      current = await store.get(namespace, name);
    } catch (e) {
      if (code(e) === 404) return undefined;
      throw e;
    }
    const resourceVersion = current.metadata?.resourceVersion;
    const next = await mutate(current, attempt);
    if (!next) return current;
    // The version read is the compare of the swap: the write fails with 409 if anyone wrote since.
    next.metadata = { ...next.metadata, resourceVersion };
    try {
      return (await store.update(namespace, name, next, { subresource: 'status' })).object;
    } catch (e) {
      if (code(e) === 409 && attempt + 1 < STATUS_WRITE_ATTEMPTS) continue;
      if (code(e) === 404) return undefined;
      throw e;
    }
  }
}

/** A resource or path check with the authorizer's decision and reason (policies' `authorizer` variable). */
function decisionOf(authorizer: Authorizer): NonNullable<AdmissionDeps['authorizeDecision']> {
  return async (user, check) => {
    const resource = 'resource' in check;
    const d = await authorizer.authorize({
      user: { username: user.username, groups: [...user.groups], ...(user.uid !== undefined ? { uid: user.uid } : {}), ...(user.extra ? { extra: Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]])) } : {}) },
      verb: check.verb,
      isResourceRequest: resource,
      path: resource ? '' : check.path,
      apiGroup: resource ? check.group : '',
      apiVersion: resource ? check.version : '',
      resource: resource ? check.resource : '',
      subresource: resource ? (check.subresource ?? '') : '',
      namespace: resource ? (check.namespace ?? '') : '',
      name: resource ? (check.name ?? '') : '',
    });
    return { decision: d.decision, reason: d.reason ?? '' };
  };
}

/** A plugin's permission check through the server's authorizer: only an explicit allow is a yes. */
function authorizeWith(authorizer: Authorizer): NonNullable<AdmissionDeps['authorize']> {
  return async (user, check) => {
    const d = await authorizer.authorize({
      user: { username: user.username, groups: [...user.groups], ...(user.uid !== undefined ? { uid: user.uid } : {}), ...(user.extra ? { extra: Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]])) } : {}) },
      verb: check.verb,
      isResourceRequest: true,
      path: '',
      apiGroup: check.group,
      apiVersion: check.version,
      resource: check.resource,
      subresource: check.subresource ?? '',
      namespace: check.namespace ?? '',
      name: check.name ?? '',
    });
    return d.decision === 'allow';
  };
}

const RBAC_PLURALS = new Set(['roles', 'clusterroles', 'rolebindings', 'clusterrolebindings']);

const userInfoOf = (req: AdmissionRequest): UserInfo => ({
  username: req.user.username,
  groups: [...req.user.groups],
  ...(req.user.uid !== undefined ? { uid: req.user.uid } : {}),
  ...(req.user.extra ? { extra: Object.fromEntries(Object.entries(req.user.extra).map(([k, v]) => [k, [...v]])) } : {}),
});

/** Escalation prevention (spec 5.8): not a reference admission plugin, so not configurable; always on with RBAC. */
export function rbacEscalationPlugin(authorizer: Authorizer, index: RbacIndex): AdmissionPlugin {
  return {
    name: 'orch:RBACEscalation',
    handles: (op) => op === 'CREATE' || op === 'UPDATE',
    validate(req) {
      if (req.resource.group !== RBAC_GROUP || req.subResource !== '' || !RBAC_PLURALS.has(req.resource.resource) || !req.object) return;
      return rbacAdmission(userInfoOf(req), authorizer, index, req.resource.resource)(req.object);
    },
  };
}

/** The bootstrap-token Secret rules (spec 2.9), on every write of a Secret of that type. */
export function bootstrapTokenSecretPlugin(): AdmissionPlugin {
  return {
    name: 'orch:BootstrapTokenSecret',
    handles: (op) => op === 'CREATE' || op === 'UPDATE',
    validate(req) {
      if (req.resource.group !== '' || req.resource.resource !== 'secrets' || req.subResource !== '' || !req.object) return;
      const errs = validateBootstrapTokenSecret(req.object as Record<string, unknown>);
      if (errs.length > 0) throw invalid({ kind: 'Secret', name: req.object.metadata?.name ?? '' }, errs);
    },
  };
}

/** Who the server is when it writes on its own behalf (the reference's loopback identity). */
const SERVER_USER: UserInfo = { username: 'system:apiserver', groups: ['system:masters', 'system:authenticated'] };

/** A namespace created for a plugin (NamespaceAutoProvision): a create through the registry, admitted as the server's own. */
async function provisionNamespace(registry: Registry, chain: AdmissionChain | undefined, name: string): Promise<void> {
  const store = registry.namespaces;
  const admission = chain
    ? writeAdmission(chain, store.type, { namespace: undefined, subresource: '', user: SERVER_USER, fields: { dryRun: false }, warnings: [] })
    : undefined;
  await store.create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, admission ? { admission } : {});
}

/** The server's chain: the internal plugins, then what the flags enable. */
export function serverAdmissionChain(
  opts: AdmissionOptions,
  registry: Registry,
  auth: { authorizer: Authorizer; rbac: RbacIndex | undefined },
  log: (m: string) => void,
  egress?: AdmissionDeps['egress'],
  observeWebhook?: AdmissionDeps['observeWebhook'],
): AdmissionChain {
  const internal = [bootstrapTokenSecretPlugin(), ...(auth.rbac ? [rbacEscalationPlugin(auth.authorizer, auth.rbac)] : [])];
  // Namespaces a plugin creates pass this same chain, which exists only once the plugins are built.
  let chain: AdmissionChain | undefined;
  const deps = admissionDeps(registry, log, auth.authorizer, () => chain);
  if (observeWebhook) deps.observeWebhook = observeWebhook;
  chain = buildAdmissionChain(opts, egress ? { ...deps, egress } : deps, internal);
  return chain;
}

/** One write's admission, for the store (`WriteOptions.admission`). */
export function writeAdmission(
  chain: AdmissionChain,
  t: ResourceType,
  r: { namespace: string | undefined; subresource: string; user: UserInfo; fields: WriteOptionFields; patch?: boolean; warnings: string[] },
): WriteAdmission {
  return new WriteAdmission(chain, {
    kind: { group: t.group, version: t.version, kind: t.kind },
    resource: { group: t.group, version: t.version, resource: t.plural },
    subResource: r.subresource,
    namespace: t.namespaced ? (r.namespace ?? '') : '',
    user: r.user,
    fields: r.fields,
    ...(r.patch ? { patch: true } : {}),
    warn: (m) => void r.warnings.push(m),
  });
}

/**
 * Admission of a request whose object is not the stored one (a Binding, an Eviction, a Scale): the chain sees
 * the request's own kind at `<resource>/<subresource>`, as the reference admits it. Answers the object after
 * the mutating stage, once the validating stage has passed too.
 */
export async function admitSubresourceObject(
  chain: AdmissionChain,
  r: {
    operation: 'CREATE' | 'UPDATE';
    kind: GroupVersionKind;
    resource: GroupVersionResource;
    subresource: string;
    namespace: string;
    name: string;
    object: ApiObject;
    oldObject?: ApiObject;
    user: UserInfo;
    dryRun: boolean;
    warnings?: string[];
  },
): Promise<ApiObject> {
  const admission = new WriteAdmission(chain, {
    kind: r.kind,
    resource: r.resource,
    subResource: r.subresource,
    namespace: r.namespace,
    user: r.user,
    fields: { dryRun: r.dryRun },
    warn: (m) => void r.warnings?.push(m),
  });
  const mutated = (await admission.mutate(r.operation, r.object, r.oldObject, r.name)) ?? r.object;
  await admission.validate();
  return mutated;
}
