/**
 * ResourceQuota (reference plugin, on by default, runs last). A create, or an update that grows usage, in a
 * namespace with ResourceQuotas is refused when it would take a quota past `spec.hard`; otherwise the new
 * usage is written to the quota's `status.used` (and `status.hard`). With no quota controller yet, usage is
 * counted from the objects the watch cache holds (so deletes give usage back), plus the writes this server
 * admitted that the cache does not show yet. Requests that charge the same quota are checked one at a time,
 * and the status write is a compare-and-swap, so servers sharing the store see each other's charges.
 * The configuration's `limitedResources` (quota-limited.ts) also refuse consumption no quota covers.
 */
import type { ApiObject } from '../../api/types.js';
import { isObject } from '../../api/types.js';
import { forbiddenFor, PluginConfigurationError } from './common.js';
import { parseResourceQuotaConfiguration, uncoveredConsumption, type LimitedResource } from './quota-limited.js';
import { addQuantity, compareQuantity, formatQuantity, parseQuantity, subtractQuantity, ZERO } from './quantity.js';
import { KeyedLock, PendingCharges } from './quota-ledger.js';
import { matchesScopes, quotaScopes, type ScopeRequirement } from './quota-scopes.js';
import { chargesOperation, matchingResources, missingComputeStatement, resourceOfQuotaName, usageOf, type ResourceList } from './quota-usage.js';
import type { AdmissionDeps, AdmissionOperation, AdmissionPlugin, AdmissionRequest, ObjectReader } from '../types.js';

export const RESOURCE_QUOTA = 'ResourceQuota';
const QUOTAS = 'resourcequotas';
/** How long an admitted write may take to show up in the cache before its charge is dropped. */
const PENDING_TTL_MS = 15_000;

type Obj = Record<string, unknown>;
export type StatusWriter = NonNullable<AdmissionDeps['updateStatus']>;

const obj = (v: unknown): Obj => (isObject(v) ? v : {});
const nameOf = (o: ApiObject) => String(o.metadata?.name ?? '');
const byName = (a: ApiObject, b: ApiObject) => (nameOf(a) < nameOf(b) ? -1 : nameOf(a) > nameOf(b) ? 1 : 0);

function parseList(v: unknown): ResourceList {
  const out: ResourceList = new Map();
  for (const [k, raw] of Object.entries(obj(v))) {
    const q = parseQuantity(raw);
    if (q) out.set(k, q);
  }
  return out;
}

/** `a=1,b=2`, sorted by name: the reference's way of listing amounts in its messages. */
export function listText(list: ResourceList): string {
  return [...list.keys()].sort().map((k) => `${k}=${formatQuantity(list.get(k)!)}`).join(',');
}

const mask = (list: ResourceList, names: Iterable<string>): ResourceList => {
  const out: ResourceList = new Map();
  for (const n of names) {
    const q = list.get(n);
    if (q) out.set(n, q);
  }
  return out;
};

/** What `usage` adds over `before`, never negative, zero amounts left out. */
export function growth(usage: ResourceList, before: ResourceList | undefined): ResourceList {
  const out: ResourceList = new Map();
  for (const [k, q] of usage) {
    const was = before?.get(k);
    const d = was ? subtractQuantity(q, was) : q;
    if (d.nano > 0n) out.set(k, d);
  }
  return out;
}

/**
 * The check of one quota: `used` plus what the request adds must stay within `hard` for every resource it
 * adds to. Answers the new usage (every hard resource), or the reference's "exceeded quota" message.
 */
export function chargeQuota(quotaName: string, hard: ResourceList, used: ResourceList, delta: ResourceList): { used: ResourceList } | { exceeded: string } {
  const requested = mask(delta, hard.keys());
  const next: ResourceList = new Map();
  const exceeded: string[] = [];
  for (const [k, limit] of hard) {
    const now = used.get(k) ?? ZERO;
    const add = requested.get(k);
    // A sum from nothing takes the added amount's notation, as a recount would show it.
    const total = add ? (now.nano === 0n ? add : addQuantity(now, add)) : now;
    next.set(k, total);
    if (add && compareQuantity(total, limit) > 0) exceeded.push(k);
  }
  if (exceeded.length === 0) return { used: next };
  return {
    exceeded: `exceeded quota: ${quotaName}, requested: ${listText(mask(requested, exceeded))}, used: ${listText(mask(used, exceeded))}, limited: ${listText(mask(hard, exceeded))}`,
  };
}

const textList = (list: ResourceList): Record<string, string> => Object.fromEntries([...list].map(([k, q]) => [k, formatQuantity(q)]));

export class ResourceQuotaPlugin implements AdmissionPlugin {
  readonly name = RESOURCE_QUOTA;
  private readonly locks = new KeyedLock();
  private readonly pending = new PendingCharges(PENDING_TTL_MS);
  /** Usage of cached objects, computed once per cached version (cached objects are shared and never change). */
  private readonly usageCache = new WeakMap<ApiObject, ResourceList>();

  constructor(
    private readonly objects: ObjectReader,
    private readonly writeStatus: StatusWriter,
    private readonly clock: () => number = Date.now,
    /** The configuration's `limitedResources`: consumption that needs a covering quota. */
    private readonly limited: readonly LimitedResource[] = [],
  ) {}

  handles(op: AdmissionOperation): boolean {
    return op === 'CREATE' || op === 'UPDATE' || op === 'DELETE';
  }

  validate(req: AdmissionRequest): Promise<void> | void {
    if (req.subResource !== '' || req.namespace === '') return;
    if (req.operation === 'DELETE') {
      // A deleted object's charge must not outlive it when the cache never showed it.
      if (this.pending.size > 0 && !req.dryRun && req.oldObject?.metadata?.uid) this.pending.forget(req.namespace, String(req.oldObject.metadata.uid));
      return;
    }
    if (!req.object || !chargesOperation(req.resource.group, req.resource.resource, req.operation)) return;
    const cached = this.objects.peekList?.('', QUOTAS, req.namespace);
    // With limited resources, a namespace without quotas is where a write may be refused.
    if (cached && cached.length === 0 && this.limited.length === 0) return;
    return this.check(req, cached);
  }

  private async check(req: AdmissionRequest, cached: readonly ApiObject[] | undefined): Promise<void> {
    const quotas = cached ?? (await this.objects.list('', QUOTAS, req.namespace));
    const { group, resource } = req.resource;
    const object = req.object!;
    const matched = quotas
      .filter((q) => matchingResources(group, resource, Object.keys(obj(obj(q.spec).hard))).length > 0 && matchesScopes(group, resource, object, quotaScopes(q)))
      .sort(byName);
    if (group === '' && resource === 'pods') {
      for (const q of matched) {
        const missing = missingComputeStatement(object, matchingResources('', 'pods', Object.keys(obj(obj(q.spec).hard))));
        if (missing) throw forbiddenFor(req, `failed quota: ${nameOf(q)}: ${missing}`);
      }
    }
    const now = this.clock();
    if (this.limited.length > 0) {
      const uncovered = uncoveredConsumption(this.limited, group, resource, object, quotas, () => usageOf(group, resource, object, now));
      if (uncovered) throw forbiddenFor(req, uncovered);
    }
    if (matched.length === 0) return;
    const usage = usageOf(group, resource, object, now);
    // An update pays only for what it adds (a create on update, with no stored version, pays in full).
    const old = req.operation === 'UPDATE' && req.oldObject?.metadata?.resourceVersion ? usageOf(group, resource, req.oldObject, now) : undefined;
    const delta = growth(usage, old);
    if (delta.size === 0) return;
    const release = await this.locks.acquire(matched.map((q) => `${req.namespace}/${nameOf(q)}`));
    try {
      for (const q of matched) await this.chargeOne(req, nameOf(q), delta);
      if (!req.dryRun) {
        this.pending.add(req.namespace, {
          group,
          resource,
          name: String(object.metadata?.name ?? req.name),
          uid: String(object.metadata?.uid ?? ''),
          replacedVersion: old ? String(req.oldObject!.metadata!.resourceVersion) : undefined,
          object,
          charged: delta,
        }, now);
      }
    } finally {
      release();
    }
  }

  /** Checks one quota against fresh usage and, unless a dry run, records the new usage in its status. */
  private async chargeOne(req: AdmissionRequest, quotaName: string, delta: ResourceList): Promise<void> {
    const evaluate = async (quota: ApiObject, recorded: ResourceList | undefined): Promise<ApiObject> => {
      const hard = parseList(obj(quota.spec).hard);
      const used = await this.usedBy(quota, req.namespace);
      // After a lost compare-and-swap another server charged the quota; its count may hold writes our cache lacks.
      if (recorded) for (const [k, q] of recorded) if (hard.has(k) && compareQuantity(q, used.get(k) ?? ZERO) > 0) used.set(k, q);
      const result = chargeQuota(quotaName, hard, used, delta);
      if ('exceeded' in result) throw forbiddenFor(req, result.exceeded);
      return { ...quota, status: { ...obj(quota.status), hard: textList(hard), used: textList(result.used) } };
    };
    if (req.dryRun) {
      const quota = await this.objects.get('', QUOTAS, req.namespace, quotaName);
      if (quota) await evaluate(quota, undefined);
      return;
    }
    await this.writeStatus('', QUOTAS, req.namespace, quotaName, (quota, attempt) => evaluate(quota, attempt > 0 ? parseList(obj(quota.status).used) : undefined));
  }

  /** Current usage of every resource a quota limits: the cached objects under its scopes plus pending charges. */
  private async usedBy(quota: ApiObject, namespace: string): Promise<ResourceList> {
    const names = Object.keys(obj(obj(quota.spec).hard));
    const scopes = quotaScopes(quota);
    const used: ResourceList = new Map();
    const byResource = new Map<string, { group: string; resource: string; names: string[] }>();
    for (const n of names) {
      const r = resourceOfQuotaName(n);
      if (!r) continue;
      const key = `${r.group}/${r.resource}`;
      const entry = byResource.get(key) ?? { ...r, names: [] };
      entry.names.push(n);
      byResource.set(key, entry);
    }
    const now = this.clock();
    for (const { group, resource, names: counted } of byResource.values()) {
      const current = await this.objects.list(group, resource, namespace);
      this.pending.settle(namespace, group, resource, current);
      for (const o of current) this.addUsage(used, counted, group, resource, o, scopes, now);
    }
    for (const p of this.pending.in(namespace, now)) {
      if (matchesScopes(p.group, p.resource, p.object, scopes)) for (const n of names) addTo(used, n, p.charged.get(n));
    }
    // Every limited resource has a used amount, zero when nothing counts towards it.
    for (const n of names) if (!used.has(n)) used.set(n, ZERO);
    return used;
  }

  private addUsage(used: ResourceList, names: readonly string[], group: string, resource: string, o: ApiObject, scopes: readonly ScopeRequirement[], now: number): void {
    if (!matchesScopes(group, resource, o, scopes)) return;
    let usage = this.usageCache.get(o);
    if (!usage) {
      usage = usageOf(group, resource, o, now);
      // What a terminating pod uses changes with time; everything else only with a new version.
      if (!o.metadata?.deletionTimestamp) this.usageCache.set(o, usage);
    }
    for (const n of names) addTo(used, n, usage.get(n));
  }
}

function addTo(used: ResourceList, name: string, q: ReturnType<typeof parseQuantity>): void {
  if (!q) return;
  const had = used.get(name);
  used.set(name, had ? addQuantity(had, q) : q);
}

/** The plugin with its optional configuration (`limitedResources`), checked at start-up. */
export function resourceQuotaPlugin(deps: AdmissionDeps, configuration: unknown): AdmissionPlugin {
  const limited = parseResourceQuotaConfiguration(configuration);
  if (!deps.updateStatus) throw new PluginConfigurationError(`plugin ${RESOURCE_QUOTA} needs a server that can write quota status`);
  return new ResourceQuotaPlugin(deps.objects, deps.updateStatus, Date.now, limited);
}
