/**
 * The `scale` subresource (autoscaling/v1 Scale) of every type with ScaleRules: GET reads the replica counts
 * and selector of the parent object; PUT and PATCH change only the parent's desired replicas, through the
 * parent's own update (its validation, generation and managed fields apply).
 */
import type { ApiObject } from '../../api/types.js';
import { isObject } from '../../api/types.js';
import { decodeBody } from '../../encoding/index.js';
import { conflict, fieldError, invalid, methodNotAllowed } from '../../errors/index.js';
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch, JSON_PATCH, STRATEGIC_MERGE_PATCH } from '../../patch/index.js';
import type { GenericStore } from '../../registry/index.js';
import { definitionSchema } from '../../registry/reference-schema.js';
import { pathValue } from '../../registry/schema.js';
import type { ScaleRules } from '../../registry/types.js';
import { header, readBody } from '../http.js';
import { fieldManagerOf, patchMediaType, patchOptionsOf } from './write-options.js';

const SCALE_API_VERSION = 'autoscaling/v1';
const INT32_MAX = 2 ** 31 - 1;


function setAt(o: ApiObject, path: string, v: unknown): void {
  const keys = path.split('.');
  let cur: Record<string, unknown> = o;
  for (const k of keys.slice(0, -1)) {
    if (!isObject(cur[k])) cur[k] = {};
    cur = cur[k] as Record<string, unknown>;
  }
  cur[keys[keys.length - 1]!] = v;
}

/** The Scale view of a parent object (pure). */
export function scaleOf(parent: ApiObject, rules: ScaleRules): ApiObject {
  const meta = parent.metadata ?? {};
  const spec = pathValue(parent, rules.specReplicasPath);
  const status = pathValue(parent, rules.statusReplicasPath);
  const selector = rules.selector(parent);
  return {
    kind: 'Scale',
    apiVersion: SCALE_API_VERSION,
    metadata: {
      name: meta.name,
      ...(meta.namespace ? { namespace: meta.namespace } : {}),
      uid: meta.uid,
      resourceVersion: meta.resourceVersion,
      creationTimestamp: meta.creationTimestamp,
    },
    spec: typeof spec === 'number' && spec !== 0 ? { replicas: spec } : {},
    status: { replicas: typeof status === 'number' ? status : 0, ...(selector ? { selector } : {}) },
  };
}

/** Field errors of a Scale written by a client (the reference's Scale validation). */
export function validateScale(scale: unknown): ReturnType<typeof fieldError.invalid>[] {
  const r = pathValue(scale as ApiObject, 'spec.replicas');
  if (r === undefined || r === null) return [];
  if (typeof r !== 'number' || !Number.isInteger(r) || r > INT32_MAX) return [fieldError.invalid('spec.replicas', r, 'must be an integer')];
  if (r < 0) return [fieldError.invalid('spec.replicas', r, 'must be greater than or equal to 0')];
  return [];
}

export interface ScaleRequest {
  method: string;
  req: Parameters<typeof readBody>[0];
  query: URLSearchParams;
  dryRun: boolean;
  /** Admission of the Scale write (UPDATE of `<resource>/scale`): answers the Scale after mutating plugins. */
  admit?(next: ApiObject, current: ApiObject): Promise<ApiObject>;
}

/**
 * GET, PUT or PATCH of `<item>/scale`; returns the Scale to answer. An apply patch is merged like a merge
 * patch: the Scale's managed fields are those of the parent, recorded by the parent's update.
 */
export async function serveScale(store: GenericStore, rules: ScaleRules, namespace: string | undefined, name: string, r: ScaleRequest): Promise<ApiObject> {
  const target = { group: 'autoscaling', kind: 'Scale', name };
  if (r.method === 'GET' || r.method === 'HEAD') return scaleOf(await store.get(namespace, name), rules);
  if (r.method !== 'PUT' && r.method !== 'PATCH') throw methodNotAllowed(r.method, 'scale');
  const patchType = r.method === 'PATCH' ? patchMediaType(header(r.req, 'content-type')) : undefined;
  // The same write options as a write of the parent: a patch's, or an update's.
  const fieldManager = patchType ? patchOptionsOf(r.query, patchType, header(r.req, 'user-agent')).fieldManager : fieldManagerOf(r.query, header(r.req, 'user-agent'), 'UpdateOptions');
  const body = decodeBody(patchType ?? header(r.req, 'content-type'), await readBody(r.req), patchType ? [patchType] : undefined);
  for (let attempt = 0; attempt < 8; attempt++) {
    const parent = await store.get(namespace, name);
    const current = scaleOf(parent, rules);
    let next: unknown;
    if (patchType === undefined) next = body;
    else if (patchType === JSON_PATCH) next = applyJsonPatch(current, body);
    else if (patchType === STRATEGIC_MERGE_PATCH) next = applyStrategicMergePatch(current, body, definitionSchema('api.autoscaling.v1.Scale'));
    else next = applyMergePatch(current, body);
    if (r.admit) next = await r.admit(next as ApiObject, current);
    const errs = validateScale(next);
    if (errs.length > 0) throw invalid(target, errs);
    const wantRV = pathValue(next as ApiObject, 'metadata.resourceVersion');
    // A PUT with a resourceVersion is a precondition on the parent, as for any update.
    if (typeof wantRV === 'string' && wantRV !== '' && wantRV !== parent.metadata?.resourceVersion) {
      throw conflict({ group: store.type.group, kind: store.type.kind, resource: store.type.plural, name }, 'the object has been modified; please apply your changes to the latest version and try again');
    }
    const replicas = pathValue(next as ApiObject, 'spec.replicas');
    const updated = structuredClone(parent);
    setAt(updated, rules.specReplicasPath, typeof replicas === 'number' ? replicas : 0);
    try {
      const { object } = await store.update(namespace, name, updated, { dryRun: r.dryRun, fieldManager });
      return scaleOf(object, rules);
    } catch (e) {
      // Someone else changed the parent between our read and write: a client that sent no resourceVersion
      // did not ask for a precondition, so read again.
      if ((e as { code?: number }).code === 409 && !(typeof wantRV === 'string' && wantRV !== '')) continue;
      throw e;
    }
  }
  throw conflict({ group: store.type.group, kind: store.type.kind, resource: store.type.plural, name }, 'too many concurrent updates; try again');
}

