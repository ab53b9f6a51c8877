/** What the pod subresource handlers share: body reading, dry run, pod stores and the pod condition rule. */
import { isObject, type ApiObject } from '../../api/types.js';
import { decodeBody } from '../../encoding/index.js';
import { badRequest, conflict, notFoundMessage } from '../../errors/index.js';
import { GenericStore, type Registry, type ResourceType } from '../../registry/index.js';
import { header, readBody, type Req } from '../http.js';

export type Obj = Record<string, unknown>;
export const rec = (v: unknown): Obj => (isObject(v) ? v : {});
export const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The decoded request body, which must be an object whose kind (when given) is `kind`. */
export async function readKindBody(req: Req, kind: string): Promise<Obj> {
  const body = decodeBody(header(req, 'content-type'), await readBody(req));
  if (!isObject(body)) throw badRequest(`not a ${kind} object: the body must be a JSON or YAML object`);
  if (body.kind !== undefined && body.kind !== kind) throw badRequest(`not a ${kind} object: kind ${JSON.stringify(body.kind)}`);
  return body;
}

/** The `dryRun` query values; only `All` exists. */
export function dryRunValues(q: URLSearchParams): string[] {
  const values = q.getAll('dryRun');
  for (const v of values) if (v !== 'All') throw badRequest(`Invalid dry run value: "${v}": supported values: "All"`);
  return values;
}

/** The namespace in a body, when given, must be the request's. */
export function checkNamespace(meta: Obj, namespace: string): void {
  const ns = text(meta.namespace);
  if (ns !== '' && ns !== namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
}

/** The reference answers these operations with a bare success Status carrying the create code. */
export const successStatus = (code: number) => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code });

export function podsStore(registry: Registry): GenericStore {
  const store = registry.store('', 'v1', 'pods');
  if (!store) throw notFoundMessage('the server could not find the requested resource');
  return store;
}

const viewStores = new WeakMap<Registry, Map<ResourceType, GenericStore>>();

/** A store over the pods' storage with other write rules (one per registry and view, made on first use). */
export function podViewStore(registry: Registry, view: ResourceType): GenericStore {
  let byView = viewStores.get(registry);
  if (!byView) viewStores.set(registry, (byView = new Map()));
  let store = byView.get(view);
  if (!store) {
    store = new GenericStore(view, { backend: registry.backend });
    byView.set(view, store);
  }
  return store;
}

/**
 * Sets a pod condition the reference's way: added when missing; when present, replaced, keeping its
 * transition time unless the status changed.
 */
export function setPodCondition(status: Obj, condition: Obj, now: string): void {
  const next: Obj = { lastProbeTime: null, ...condition, lastTransitionTime: now };
  const conditions = Array.isArray(status.conditions) ? (status.conditions as unknown[]).map(rec) : [];
  const i = conditions.findIndex((c) => c.type === condition.type);
  if (i < 0) conditions.push(next);
  else {
    const old = conditions[i] as Obj;
    if (old.status === next.status) next.lastTransitionTime = old.lastTransitionTime ?? now;
    conditions[i] = next;
  }
  status.conditions = conditions;
}

/** Delete/update preconditions (uid, resourceVersion) against the live object, as a 409 on `target`. */
export function checkPreconditions(obj: ApiObject, pre: { uid?: string; resourceVersion?: string }, target: string, name: string): void {
  const uid = text(obj.metadata?.uid);
  const rv = text(obj.metadata?.resourceVersion);
  if (pre.uid && pre.uid !== uid) throw conflict({ resource: target, name }, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${uid}`);
  if (pre.resourceVersion && pre.resourceVersion !== rv) {
    throw conflict({ resource: target, name }, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${rv}`);
  }
}

/** True for the 409 the store raises when the object changed under a conditional write. */
export const isStaleWrite = (e: unknown): boolean => (e as { code?: number; reason?: string }).code === 409 && (e as { reason?: string }).reason === 'Conflict';

export const MAX_WRITE_RETRIES = 5;
