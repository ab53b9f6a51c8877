/**
 * pods/eviction (`POST .../pods/<name>/eviction` with a policy/v1 Eviction): deletes the pod unless that
 * would break the one PodDisruptionBudget guarding it (429, which clients such as `kubectl drain` retry).
 */
import type { ApiObject } from '../../api/types.js';
import { badRequest, internalError, StatusError } from '../../errors/index.js';
import { listObjects, type Registry } from '../../registry/index.js';
import { nowTimestamp } from '../../registry/object-meta.js';
import { disruptionStatus } from '../../registry/resources/policy/index.js';
import { budgetsFor, canIgnoreBudget, isPodReady, statusAfterEviction, unreadyPodMayGo } from './pod-budget.js';
import {
  checkNamespace,
  checkPreconditions,
  dryRunValues,
  isStaleWrite,
  MAX_WRITE_RETRIES,
  podsStore,
  readKindBody,
  rec,
  setPodCondition,
  successStatus,
  text,
} from './pod-common.js';
import type { ResourceContext } from './resource.js';
import { admitSubresourceObject } from '../admission-setup.js';

const EVICTION_VERSIONS = ['policy/v1', 'policy/v1beta1'];
const PROPAGATION_POLICIES = ['Orphan', 'Background', 'Foreground'];

interface EvictionOptions {
  dryRun: boolean;
  preconditions: { uid?: string; resourceVersion?: string };
  propagationPolicy?: string;
}

/**
 * The delete options of an eviction: those in the body, with the request's dryRun when the body has none
 * (the two must agree when both are given).
 */
export function evictionOptions(body: Record<string, unknown>, query: URLSearchParams): EvictionOptions {
  const fromQuery = dryRunValues(query);
  const opts = rec(body.deleteOptions);
  const inBody = Array.isArray(opts.dryRun) ? opts.dryRun.map(String) : [];
  for (const v of inBody) if (v !== 'All') throw badRequest(`Invalid dry run value: "${v}": supported values: "All"`);
  if (inBody.length > 0 && fromQuery.length > 0 && inBody.join(',') !== fromQuery.join(',')) {
    throw badRequest(`Non-matching dry-run options in request and content: [${fromQuery.join(' ')}] and [${inBody.join(' ')}]`);
  }
  const pre = rec(opts.preconditions);
  const policyName = text(opts.propagationPolicy);
  // Checked before anything is written: a rejected eviction changes nothing.
  if (policyName && !PROPAGATION_POLICIES.includes(policyName)) {
    throw badRequest(`propagationPolicy: Unsupported value: ${JSON.stringify(policyName)}: supported values: ${PROPAGATION_POLICIES.map((p) => `"${p}"`).join(', ')}`);
  }
  return {
    dryRun: inBody.length > 0 || fromQuery.length > 0,
    preconditions: { ...(text(pre.uid) ? { uid: text(pre.uid) } : {}), ...(text(pre.resourceVersion) ? { resourceVersion: text(pre.resourceVersion) } : {}) },
    ...(policyName ? { propagationPolicy: policyName } : {}),
  };
}

/** The reference's 429: no disruption left in the budget (details name the budget and its counts). */
export function budgetViolation(pdbName: string, needs: number, has: number): StatusError {
  return new StatusError(429, 'TooManyRequests', "Cannot evict pod as it would violate the pod's disruption budget.", {
    causes: [{ reason: 'DisruptionBudget', message: `The disruption budget ${pdbName} needs ${needs} healthy pods and has ${has} currently` }],
  });
}

async function namespaceObjects(registry: Registry, group: string, plural: string, namespace: string): Promise<ApiObject[]> {
  const store = registry.store(group, 'v1', plural);
  if (!store) return [];
  return (await listObjects(store.type, registry.backend, namespace, { labelSelector: '', fieldSelector: '' })).items;
}

/**
 * Throws when the budget guarding the pod forbids evicting it now. Otherwise (unless a dry run) the budget
 * pays for the eviction first, in its status, so that concurrent evictions cannot both spend the last
 * allowed disruption: the status write conflicts and the loser looks again.
 */
async function spendBudget(registry: Registry, pod: ApiObject, namespace: string, dryRun: boolean): Promise<void> {
  const budgetStore = registry.store('policy', 'v1', 'poddisruptionbudgets');
  if (!budgetStore) return;
  for (let attempt = 0; ; attempt++) {
    const budgets = budgetsFor(pod, await namespaceObjects(registry, 'policy', 'poddisruptionbudgets', namespace));
    if (budgets.length === 0) return;
    if (budgets.length > 1) throw internalError('This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
    const pdb = budgets[0] as ApiObject;
    const pods = await namespaceObjects(registry, '', 'pods', namespace);
    const budget = disruptionStatus(pdb, pods);
    if (!isPodReady(pod) && unreadyPodMayGo(pdb, budget)) return;
    const pdbName = text(pdb.metadata?.name);
    if (budget.disruptionsAllowed <= 0) throw budgetViolation(pdbName, budget.desiredHealthy, budget.currentHealthy);
    if (dryRun) return;
    const live = new Set(pods.map((p) => text(p.metadata?.name)));
    const status = statusAfterEviction(pdb, budget.disruptionsAllowed, text(pod.metadata?.name), nowTimestamp(), live);
    try {
      await budgetStore.update(namespace, pdbName, { ...pdb, status }, { subresource: 'status' });
      return;
    } catch (e) {
      if (isStaleWrite(e) && attempt < MAX_WRITE_RETRIES) continue;
      throw e;
    }
  }
}

/**
 * Marks the pod as about to be disrupted (a DisruptionTarget condition, so its owner learns why it went)
 * and deletes it. A resourceVersion precondition moves to the version this write made.
 */
async function deletePod(registry: Registry, namespace: string, name: string, opts: EvictionOptions): Promise<void> {
  const store = podsStore(registry);
  const pre = { ...opts.preconditions };
  if (!opts.dryRun) {
    const pod = await store.get(namespace, name);
    checkPreconditions(pod, pre, 'pods', name);
    const status = rec(pod.status);
    setPodCondition(status, { type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting' }, nowTimestamp());
    const { object } = await store.update(namespace, name, { ...pod, status }, { subresource: 'status' });
    if (pre.resourceVersion) pre.resourceVersion = text(object.metadata?.resourceVersion);
  }
  await store.delete(namespace, name, {
    dryRun: opts.dryRun,
    ...(pre.uid || pre.resourceVersion ? { preconditions: pre } : {}),
    ...(opts.propagationPolicy ? { propagationPolicy: opts.propagationPolicy } : {}),
  });
}

export async function serveEviction(ctx: ResourceContext, respond: (code: number, obj: unknown) => void): Promise<void> {
  const { namespace, name } = ctx.info;
  const body = await readKindBody(ctx.req, 'Eviction');
  ctx.audit?.requestObject(body);
  if (body.apiVersion !== undefined && !EVICTION_VERSIONS.includes(String(body.apiVersion))) {
    throw badRequest(`unsupported Eviction version ${JSON.stringify(body.apiVersion)}: supported versions: ${EVICTION_VERSIONS.join(', ')}`);
  }
  const meta = rec(body.metadata);
  checkNamespace(meta, namespace);
  if (text(meta.name) !== name) throw badRequest('name in URL does not match name in Eviction object');
  const opts = evictionOptions(body, ctx.query);
  // The eviction itself is admitted (a CREATE of pods/eviction), as the reference does, before anything is spent.
  const version = typeof body.apiVersion === 'string' && body.apiVersion.includes('/') ? body.apiVersion.split('/')[1]! : 'v1';
  await admitSubresourceObject(ctx.admission, {
    operation: 'CREATE',
    kind: { group: 'policy', version, kind: 'Eviction' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    subresource: 'eviction',
    namespace,
    name,
    object: body as ApiObject,
    user: ctx.user,
    dryRun: opts.dryRun,
    ...(ctx.warnings ? { warnings: ctx.warnings } : {}),
  });
  const userRV = Boolean(opts.preconditions.resourceVersion);
  for (let attempt = 0; ; attempt++) {
    const pod = await podsStore(ctx.registry).get(namespace, name);
    checkPreconditions(pod, opts.preconditions, 'pods', name);
    if (!canIgnoreBudget(pod)) {
      await spendBudget(ctx.registry, pod, namespace, opts.dryRun);
      await deletePod(ctx.registry, namespace, name, opts);
      break;
    }
    // A pending pod may start meanwhile and come under its budget: delete exactly the version looked at.
    const pinned = text(rec(pod.status).phase) === 'Pending' && !userRV;
    const pre = pinned ? { ...opts, preconditions: { ...opts.preconditions, resourceVersion: text(pod.metadata?.resourceVersion) } } : opts;
    try {
      await deletePod(ctx.registry, namespace, name, pre);
      break;
    } catch (e) {
      if (isStaleWrite(e) && pinned && attempt < MAX_WRITE_RETRIES) continue;
      throw e;
    }
  }
  respond(201, successStatus(201));
}
