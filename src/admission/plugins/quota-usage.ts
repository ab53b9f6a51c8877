/**
 * What one object costs against a ResourceQuota, as the reference's quota evaluators count it: object counts
 * (`count/<resource>[.<group>]` and the legacy core names), pod compute (requests, limits, hugepages, extended
 * resources), services' load balancers and node ports, claims' storage (also per storage class), and which
 * quotas a pod falls under by its scopes. Pure functions over plain objects.
 */
import { BETA_STORAGE_CLASS_ANNOTATION, LABEL_DOMAIN, STORAGE_GROUP } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { isObject } from '../../api/types.js';
import { addQuantity, compareQuantity, count, parseQuantity, type Quantity } from './quantity.js';

type Obj = Record<string, unknown>;
export type ResourceList = Map<string, Quantity>;

const obj = (v: unknown): Obj => (isObject(v) ? v : {});
const objects = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObject) : []);

/** The object-count name of a resource: `count/pods`, `count/deployments.apps`. */
export const objectCountName = (group: string, resource: string): string => (group === '' ? `count/${resource}` : `count/${resource}.${group}`);

/** Core resources that a quota may also count under their bare name. */
const LEGACY_COUNTS: ReadonlySet<string> = new Set(['configmaps', 'secrets', 'replicationcontrollers', 'resourcequotas', 'services', 'persistentvolumeclaims', 'pods']);

/** `<class>.storageclass.storage.<suffix>/<resource>`: claim usage charged to one storage class. */
const STORAGE_CLASS_INFIX = `.storageclass.${STORAGE_GROUP}/`;

const POD_RESOURCES: ReadonlySet<string> = new Set([
  'count/pods', 'pods', 'cpu', 'memory', 'ephemeral-storage',
  'requests.cpu', 'requests.memory', 'requests.ephemeral-storage',
  'limits.cpu', 'limits.memory', 'limits.ephemeral-storage',
]);
const SERVICE_RESOURCES: ReadonlySet<string> = new Set(['count/services', 'services', 'services.loadbalancers', 'services.nodeports']);
const CLAIM_RESOURCES: ReadonlySet<string> = new Set(['count/persistentvolumeclaims', 'persistentvolumeclaims', 'requests.storage']);
/** Pod compute that every container must state once a quota limits it (the reference's compatibility rule). */
const MUST_STATE: readonly string[] = ['cpu', 'limits.cpu', 'limits.memory', 'memory', 'requests.cpu', 'requests.memory'];

const isHugePages = (name: string) => name.startsWith('hugepages-');
/** Outside the maker's own domain and qualified: a vendor resource a pod may request. */
function isExtended(name: string): boolean {
  if (!name.includes('/') || name.includes(`${LABEL_DOMAIN}/`) || name.startsWith('requests.')) return false;
  return /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)\/[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(name);
}
const isExtendedForQuota = (name: string) => name.startsWith('requests.') && isExtended(name.slice('requests.'.length));

/** The storage class and resource of a per-class claim name, or undefined. */
export function storageClassResource(name: string): { storageClass: string; resource: string } | undefined {
  const at = name.indexOf(STORAGE_CLASS_INFIX);
  if (at <= 0) return undefined;
  return { storageClass: name.slice(0, at), resource: name.slice(at + STORAGE_CLASS_INFIX.length) };
}

/**
 * Which stored resource a quota name is counted from: its group and plural (`count/...` names any resource;
 * the rest belong to pods, services or claims). Undefined for names nothing counts.
 */
export function resourceOfQuotaName(name: string): { group: string; resource: string } | undefined {
  if (name.startsWith('count/')) {
    const gr = name.slice('count/'.length);
    const dot = gr.indexOf('.');
    return dot < 0 ? { group: '', resource: gr } : { group: gr.slice(dot + 1), resource: gr.slice(0, dot) };
  }
  if (POD_RESOURCES.has(name) || isHugePages(name) || name.startsWith('requests.hugepages-') || isExtendedForQuota(name)) return { group: '', resource: 'pods' };
  if (SERVICE_RESOURCES.has(name)) return { group: '', resource: 'services' };
  if (CLAIM_RESOURCES.has(name)) return { group: '', resource: 'persistentvolumeclaims' };
  const byClass = storageClassResource(name);
  if (byClass && CLAIM_RESOURCES.has(byClass.resource)) return { group: '', resource: 'persistentvolumeclaims' };
  if (LEGACY_COUNTS.has(name)) return { group: '', resource: name };
  return undefined;
}

/** The quota names among `names` that an object of group/resource is charged under. */
export function matchingResources(group: string, resource: string, names: Iterable<string>): string[] {
  const out: string[] = [];
  for (const n of names) {
    const r = resourceOfQuotaName(n);
    if (r && r.group === group && r.resource === resource) out.push(n);
  }
  return out;
}

/** Whether the reference charges this operation on this resource (pods and plain counts on create only). */
export function chargesOperation(group: string, resource: string, operation: string): boolean {
  if (operation === 'CREATE') return true;
  return operation === 'UPDATE' && group === '' && (resource === 'services' || resource === 'persistentvolumeclaims');
}

function addInto(into: ResourceList, name: string, q: Quantity): void {
  const had = into.get(name);
  into.set(name, had ? addQuantity(had, q) : q);
}

function resourceList(v: unknown): ResourceList {
  const out: ResourceList = new Map();
  for (const [k, raw] of Object.entries(obj(v))) {
    const q = parseQuantity(raw);
    if (q) out.set(k, q);
  }
  return out;
}

function addList(into: ResourceList, add: ResourceList): void {
  for (const [k, q] of add) addInto(into, k, q);
}

function maxList(into: ResourceList, other: ResourceList): void {
  for (const [k, q] of other) {
    const had = into.get(k);
    if (!had || compareQuantity(q, had) > 0) into.set(k, q);
  }
}

/**
 * A pod's requests or limits as the reference totals them: containers and sidecars (restartable init
 * containers) add up; a plain init container needs its own amount beside the sidecars started before it;
 * the pod needs the larger of the two. Overhead adds to every request, and to limits that are set.
 */
export function podTotal(spec: Obj, key: 'requests' | 'limits'): ResourceList {
  const total: ResourceList = new Map();
  for (const c of objects(spec.containers)) addList(total, resourceList(obj(c.resources)[key]));
  const sidecars: ResourceList = new Map();
  const initPeak: ResourceList = new Map();
  for (const c of objects(spec.initContainers)) {
    const own = resourceList(obj(c.resources)[key]);
    if (c.restartPolicy === 'Always') {
      addList(total, own);
      addList(sidecars, own);
      maxList(initPeak, sidecars);
    } else {
      const running: ResourceList = new Map(own);
      addList(running, sidecars);
      maxList(initPeak, running);
    }
  }
  maxList(total, initPeak);
  for (const [k, q] of resourceList(spec.overhead)) if (key === 'requests' || total.has(k)) addInto(total, k, q);
  return total;
}

/** Compute usage from requests and limits (a pod's totals, or one container's for the must-state rule). */
function computeUsage(requests: ResourceList, limits: ResourceList): ResourceList {
  const out: ResourceList = new Map([['pods', count(1)]]);
  for (const r of ['cpu', 'memory', 'ephemeral-storage']) {
    const req = requests.get(r);
    if (req) {
      out.set(r, req);
      out.set(`requests.${r}`, req);
    }
    const lim = limits.get(r);
    if (lim) out.set(`limits.${r}`, lim);
  }
  for (const [name, q] of requests) {
    if (isHugePages(name)) {
      out.set(name, q);
      out.set(`requests.${name}`, q);
    }
    if (isExtended(name)) out.set(`requests.${name}`, q);
  }
  return out;
}

/** Terminal pods, and pods past their deletion grace period, no longer use compute (nor `pods`). */
export function podUsesCompute(pod: ApiObject, now: number): boolean {
  const phase = obj(pod.status).phase;
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  const m = pod.metadata ?? {};
  if (typeof m.deletionTimestamp === 'string' && typeof m.deletionGracePeriodSeconds === 'number') {
    if (now > Date.parse(m.deletionTimestamp) + m.deletionGracePeriodSeconds * 1000) return false;
  }
  return true;
}

function podUsage(pod: ApiObject, now: number): ResourceList {
  const usage: ResourceList = new Map([['count/pods', count(1)]]);
  if (!podUsesCompute(pod, now)) return usage;
  const spec = obj(pod.spec);
  for (const [k, q] of computeUsage(podTotal(spec, 'requests'), podTotal(spec, 'limits'))) usage.set(k, q);
  return usage;
}

function serviceUsage(svc: ApiObject): ResourceList {
  const spec = obj(svc.spec);
  const ports = objects(spec.ports);
  const usage: ResourceList = new Map([['count/services', count(1)], ['services', count(1)], ['services.loadbalancers', count(0)], ['services.nodeports', count(0)]]);
  if (spec.type === 'NodePort') usage.set('services.nodeports', count(ports.length));
  if (spec.type === 'LoadBalancer') {
    // Without allocated node ports only the ports that name one explicitly use one.
    const explicit = spec.allocateLoadBalancerNodePorts === false;
    usage.set('services.nodeports', count(explicit ? ports.filter((p) => typeof p.nodePort === 'number' && p.nodePort !== 0).length : ports.length));
    usage.set('services.loadbalancers', count(1));
  }
  return usage;
}

/** The claim's class: the beta annotation first, then `spec.storageClassName`. */
function claimClass(pvc: ApiObject): string {
  const annotated = obj(pvc.metadata?.annotations)[BETA_STORAGE_CLASS_ANNOTATION];
  if (typeof annotated === 'string') return annotated;
  const named = obj(pvc.spec).storageClassName;
  return typeof named === 'string' ? named : '';
}

function claimUsage(pvc: ApiObject): ResourceList {
  const usage: ResourceList = new Map([['persistentvolumeclaims', count(1)], ['count/persistentvolumeclaims', count(1)]]);
  const cls = claimClass(pvc);
  if (cls) usage.set(`${cls}${STORAGE_CLASS_INFIX}persistentvolumeclaims`, count(1));
  const storage = parseQuantity(obj(obj(obj(pvc.spec).resources).requests).storage);
  if (storage) {
    // Storage is charged in whole bytes.
    const bytes: Quantity = { nano: ((storage.nano + 999_999_999n) / 1_000_000_000n) * 1_000_000_000n, format: storage.format };
    usage.set('requests.storage', bytes);
    if (cls) usage.set(`${cls}${STORAGE_CLASS_INFIX}requests.storage`, bytes);
  }
  return usage;
}

/** Everything one object of group/resource is charged, under every name a quota could use. */
export function usageOf(group: string, resource: string, o: ApiObject, now: number): ResourceList {
  if (group === '' && resource === 'pods') return podUsage(o, now);
  if (group === '' && resource === 'services') return serviceUsage(o);
  if (group === '' && resource === 'persistentvolumeclaims') return claimUsage(o);
  const usage: ResourceList = new Map([[objectCountName(group, resource), count(1)]]);
  if (group === '' && LEGACY_COUNTS.has(resource)) usage.set(resource, count(1));
  return usage;
}

/**
 * The reference's must-state rule: once a quota limits cpu or memory (requests or limits), every container
 * must state that amount. Answers `must specify <resource> for: <containers>; ...`, or undefined.
 */
export function missingComputeStatement(pod: ApiObject, limited: Iterable<string>): string | undefined {
  const required = new Set([...limited].filter((n) => MUST_STATE.includes(n)));
  if (required.size === 0) return undefined;
  const spec = obj(pod.spec);
  const missing = new Map<string, Set<string>>();
  for (const c of [...objects(spec.containers), ...objects(spec.initContainers)]) {
    const res = obj(c.resources);
    const stated = computeUsage(resourceList(res.requests), resourceList(res.limits));
    for (const r of required) {
      if (stated.has(r)) continue;
      const names = missing.get(r) ?? new Set<string>();
      names.add(String(c.name ?? ''));
      missing.set(r, names);
    }
  }
  if (missing.size === 0) return undefined;
  const parts = [...missing.keys()].sort().map((r) => `${r} for: ${[...missing.get(r)!].sort().join(',')}`);
  return `must specify ${parts.join('; ')}`;
}
