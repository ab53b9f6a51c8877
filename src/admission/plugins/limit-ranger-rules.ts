/**
 * The pure rules of LimitRanger: which defaults one LimitRange gives containers, how they are merged into
 * a pod (and what the pod's annotation then says), and the min / max / limit-to-request-ratio checks on
 * containers, whole pods and claims, worded as the reference words them.
 */
import type { ApiObject } from '../../api/types.js';
import { isObject } from '../../api/types.js';
import { addQuantity, formatQuantity, parseQuantity, type Quantity } from './quantity.js';

type Obj = Record<string, unknown>;
type ResourceList = Map<string, Quantity>;

export const CONTAINER_LIMIT = 'Container';
export const POD_LIMIT = 'Pod';
export const CLAIM_LIMIT = 'PersistentVolumeClaim';

const NANO_PER_UNIT = 1_000_000_000n;
const NANO_PER_MILLI = 1_000_000n;
/** The reference compares thousandths while every value fits them in 64 bits (2^63-1 / 1000). */
const MAX_MILLI_VALUE = 9_223_372_036_854_775n;

const ceilDiv = (a: bigint, b: bigint): bigint => (a > 0n && a % b !== 0n ? a / b + 1n : a / b);
/** The reference's Value() and MilliValue(): whole units or thousandths, rounded up. */
export const unitValue = (q: Quantity): bigint => ceilDiv(q.nano, NANO_PER_UNIT);
export const milliValue = (q: Quantity): bigint => ceilDiv(q.nano, NANO_PER_MILLI);
const fitsMilli = (q: Quantity): boolean => unitValue(q) <= MAX_MILLI_VALUE;

/**
 * The values the reference compares: thousandths when every value is small enough, else whole units.
 * An absent quantity counts as zero.
 */
export function comparableValues(...qs: (Quantity | undefined)[]): bigint[] {
  const precise = qs.every((q) => q === undefined || fitsMilli(q));
  return qs.map((q) => (q === undefined ? 0n : precise ? milliValue(q) : unitValue(q)));
}

const obj = (v: unknown): Obj => (isObject(v) ? v : {});
const objects = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObject) : []);

/** The items (`spec.limits[]`) of a LimitRange. */
export const limitItems = (lr: ApiObject): Obj[] => objects(obj(lr.spec).limits);

/** A quantity as the reference stores it: canonical text when it parses, else as given. */
const canonical = (v: unknown): unknown => {
  const q = parseQuantity(v);
  return q ? formatQuantity(q) : v;
};

export interface ContainerDefaults {
  requests: Obj;
  limits: Obj;
}

/**
 * The defaults one LimitRange gives containers. The reference defaults a Container item when it is stored:
 * a missing `default` comes from `max`, a missing `defaultRequest` from `default`, then from `min`; that is
 * applied here too, so a range that states only bounds still defaults containers to them.
 */
export function containerDefaults(lr: ApiObject): ContainerDefaults {
  const requests: Obj = {};
  const limits: Obj = {};
  for (const item of limitItems(lr)) {
    if (item.type !== CONTAINER_LIMIT) continue;
    const def = { ...obj(item.max), ...obj(item.default) };
    const defRequest = { ...obj(item.min), ...def, ...obj(item.defaultRequest) };
    for (const [k, v] of Object.entries(defRequest)) requests[k] = canonical(v);
    for (const [k, v] of Object.entries(def)) limits[k] = canonical(v);
  }
  return { requests, limits };
}

export const hasDefaults = (d: ContainerDefaults): boolean => Object.keys(d.requests).length > 0 || Object.keys(d.limits).length > 0;

/** Fills the resources a container leaves out; returns what was set, in the reference's annotation wording. */
function mergeContainer(c: Obj, d: ContainerDefaults, what: string, out: string[]): void {
  if (c.resources !== undefined && !isObject(c.resources)) return; // malformed: validation refuses it later
  const res = (c.resources ?? {}) as Obj;
  const fill = (key: 'requests' | 'limits', defaults: Obj): string[] => {
    const current = res[key];
    if (current !== undefined && current !== null && !isObject(current)) return [];
    const set = Object.keys(defaults).filter((k) => !isObject(current) || !(k in current));
    if (set.length === 0) return set;
    const list: Obj = isObject(current) ? current : {};
    for (const k of set) list[k] = defaults[k];
    res[key] = list;
    return set.sort();
  };
  const setLimits = fill('limits', d.limits);
  const setRequests = fill('requests', d.requests);
  if (setRequests.length + setLimits.length > 0) c.resources = res;
  const name = String(c.name ?? '');
  if (setRequests.length > 0) out.push(`${setRequests.join(', ')} request for ${what} ${name}`);
  if (setLimits.length > 0) out.push(`${setLimits.join(', ')} limit for ${what} ${name}`);
}

/** Applies one range's defaults to every container and init container; the annotation parts, in order. */
export function applyContainerDefaults(spec: Obj, d: ContainerDefaults): string[] {
  const out: string[] = [];
  for (const c of objects(spec.containers)) mergeContainer(c, d, 'container', out);
  for (const c of objects(spec.initContainers)) mergeContainer(c, d, 'init container', out);
  return out;
}

/** The parsed entries of a resource list (requests or limits); entries that do not parse are left out. */
export function resourceList(v: unknown): ResourceList {
  const out: ResourceList = new Map();
  for (const [k, raw] of Object.entries(obj(v))) {
    const q = parseQuantity(raw);
    if (q) out.set(k, q);
  }
  return out;
}

const addInto = (into: ResourceList, add: ResourceList) => {
  for (const [k, q] of add) {
    const had = into.get(k);
    into.set(k, had ? addQuantity(had, q) : q);
  }
};
const maxInto = (into: ResourceList, other: ResourceList) => {
  for (const [k, q] of other) {
    const had = into.get(k);
    if (!had || q.nano > had.nano) into.set(k, q);
  }
};

/**
 * What a whole pod requests or limits, as the reference counts it: the sum over its containers and its
 * sidecars (init containers that keep running), or the most any one init container needs while it runs
 * beside the sidecars started before it, whichever is larger.
 */
export function podTotal(spec: Obj, key: 'requests' | 'limits'): ResourceList {
  const total: ResourceList = new Map();
  for (const c of objects(spec.containers)) addInto(total, resourceList(obj(c.resources)[key]));
  const sidecars: ResourceList = new Map();
  const initPeak: ResourceList = new Map();
  for (const c of objects(spec.initContainers)) {
    const own = resourceList(obj(c.resources)[key]);
    if (c.restartPolicy === 'Always') {
      addInto(total, own);
      addInto(sidecars, own);
      maxInto(initPeak, sidecars);
    } else {
      const running: ResourceList = new Map();
      addInto(running, own);
      addInto(running, sidecars);
      maxInto(initPeak, running);
    }
  }
  maxInto(total, initPeak);
  return total;
}

const fmt = formatQuantity;

export function minViolation(type: string, name: string, enforced: Quantity, requests: ResourceList, limits: ResourceList): string | undefined {
  const req = requests.get(name);
  const lim = limits.get(name);
  const [r, l, e] = comparableValues(req, lim, enforced) as [bigint, bigint, bigint];
  if (!req) return `minimum ${name} usage per ${type} is ${fmt(enforced)}.  No request is specified`;
  if (r < e) return `minimum ${name} usage per ${type} is ${fmt(enforced)}, but request is ${fmt(req)}`;
  if (lim && l < e) return `minimum ${name} usage per ${type} is ${fmt(enforced)}, but limit is ${fmt(lim)}`;
  return undefined;
}

export function maxViolation(type: string, name: string, enforced: Quantity, requests: ResourceList, limits: ResourceList): string | undefined {
  const req = requests.get(name);
  const lim = limits.get(name);
  const [r, l, e] = comparableValues(req, lim, enforced) as [bigint, bigint, bigint];
  if (!lim) return `maximum ${name} usage per ${type} is ${fmt(enforced)}.  No limit is specified`;
  if (l > e) return `maximum ${name} usage per ${type} is ${fmt(enforced)}, but limit is ${fmt(lim)}`;
  if (req && r > e) return `maximum ${name} usage per ${type} is ${fmt(enforced)}, but request is ${fmt(req)}`;
  return undefined;
}

/** The max check for claims, whose limits are not the user's to give: only the request counts. */
export function maxRequestViolation(type: string, name: string, enforced: Quantity, requests: ResourceList): string | undefined {
  const req = requests.get(name);
  const [r, , e] = comparableValues(req, undefined, enforced) as [bigint, bigint, bigint];
  if (!req) return `maximum ${name} usage per ${type} is ${fmt(enforced)}.  No request is specified`;
  if (r > e) return `maximum ${name} usage per ${type} is ${fmt(enforced)}, but request is ${fmt(req)}`;
  return undefined;
}

export function ratioViolation(type: string, name: string, enforced: Quantity, requests: ResourceList, limits: ResourceList): string | undefined {
  const req = requests.get(name);
  const lim = limits.get(name);
  const [r, l] = comparableValues(req, lim, enforced) as [bigint, bigint, bigint];
  const stated = `${name} max limit to request ratio per ${type} is ${fmt(enforced)}`;
  if (!req || r === 0n) return `${stated}, but no request is specified or request is 0`;
  if (!lim || l === 0n) return `${stated}, but no limit is specified or limit is 0`;
  const shown = Number(l) / Number(r);
  // Compared in thousandths when the bound allows, as the reference does.
  const precise = fitsMilli(enforced);
  const observed = precise ? shown * 1000 : shown;
  const bound = Number(precise ? milliValue(enforced) : unitValue(enforced));
  return observed > bound ? `${stated}, but provided ratio is ${shown.toFixed(6)}` : undefined;
}

type Check = (type: string, name: string, enforced: Quantity, requests: ResourceList, limits: ResourceList) => string | undefined;

/** Runs one item's min, max and ratio bounds against one set of requests and limits. */
function checkItem(item: Obj, requests: ResourceList, limits: ResourceList, out: string[]): void {
  const type = String(item.type);
  const bounds: [unknown, Check][] = [[item.min, minViolation], [item.max, maxViolation], [item.maxLimitRequestRatio, ratioViolation]];
  for (const [list, check] of bounds) {
    for (const [name, enforced] of resourceList(list)) {
      const why = check(type, name, enforced, requests, limits);
      if (why !== undefined) out.push(why);
    }
  }
}

/** Every way a pod breaks one LimitRange's Container and Pod bounds (empty when it keeps them). */
export function podViolations(lr: ApiObject, spec: Obj): string[] {
  const out: string[] = [];
  for (const item of limitItems(lr)) {
    if (item.type === CONTAINER_LIMIT) {
      for (const c of [...objects(spec.containers), ...objects(spec.initContainers)]) {
        const res = obj(c.resources);
        checkItem(item, resourceList(res.requests), resourceList(res.limits), out);
      }
    } else if (item.type === POD_LIMIT) {
      checkItem(item, podTotal(spec, 'requests'), podTotal(spec, 'limits'), out);
    }
  }
  return out;
}

/** Every way a claim's storage request breaks one LimitRange's PersistentVolumeClaim bounds. */
export function claimViolations(lr: ApiObject, spec: Obj): string[] {
  const out: string[] = [];
  const requests = resourceList(obj(spec.resources).requests);
  const none: ResourceList = new Map();
  for (const item of limitItems(lr)) {
    if (item.type !== CLAIM_LIMIT) continue;
    for (const [name, enforced] of resourceList(item.min)) {
      const why = minViolation(CLAIM_LIMIT, name, enforced, requests, none);
      if (why !== undefined) out.push(why);
    }
    for (const [name, enforced] of resourceList(item.max)) {
      const why = maxRequestViolation(CLAIM_LIMIT, name, enforced, requests);
      if (why !== undefined) out.push(why);
    }
  }
  return out;
}

/** The reference's aggregate of several errors: one stands alone; several, deduplicated, in brackets. */
export function aggregateMessage(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? (unique[0] as string) : `[${unique.join(', ')}]`;
}
