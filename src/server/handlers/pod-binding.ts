/**
 * Binding (`POST .../bindings` and `.../pods/<name>/binding`): the scheduler's way to assign a pod to a
 * node. It sets `spec.nodeName` of a pod that has none, merges the binding's annotations into the pod and
 * marks it PodScheduled, in one compare-and-swap write, as the reference writes storage directly.
 */
import type { ApiObject } from '../../api/types.js';
import { badRequest, conflict, fieldError, invalid, type FieldError } from '../../errors/index.js';
import type { Registry, ResourceType } from '../../registry/index.js';
import { nowTimestamp } from '../../registry/object-meta.js';
import { pods } from '../../registry/resources/pods/index.js';
import {
  checkNamespace,
  checkPreconditions,
  dryRunValues,
  isStaleWrite,
  MAX_WRITE_RETRIES,
  podViewStore,
  podsStore,
  readKindBody,
  rec,
  setPodCondition,
  text,
  successStatus,
  type Obj,
} from './pod-common.js';
import type { ResourceContext } from './resource.js';
import { admitSubresourceObject } from '../admission-setup.js';

/** Pods as a binding writes them: no defaulting or validation of the rest of the pod, no generation bump. */
const bindingView: ResourceType = {
  ...pods,
  strategy: { ...pods.strategy, prepareForUpdate: undefined, validate: () => [], validateUpdate: undefined, tracksGeneration: false },
};

/** The reference's rules for a Binding: the target is a node, named. */
export function validateBinding(body: Obj): FieldError[] {
  const target = rec(body.target);
  const errs: FieldError[] = [];
  const kind = text(target.kind);
  if (kind !== '' && kind !== 'Node') errs.push(fieldError.notSupported('target.kind', target.kind, ['Node', '<empty>']));
  if (text(target.name) === '') errs.push(fieldError.required('target.name'));
  return errs;
}

/** The pod bound to `node`: node name set, annotations merged, PodScheduled true. */
export function boundPod(pod: ApiObject, node: string, annotations: Record<string, string>, now: string): ApiObject {
  const next = structuredClone(pod);
  next.spec = { ...rec(next.spec), nodeName: node };
  if (Object.keys(annotations).length > 0) next.metadata = { ...next.metadata, annotations: { ...next.metadata?.annotations, ...annotations } };
  const status = rec(next.status);
  setPodCondition(status, { type: 'PodScheduled', status: 'True' }, now);
  next.status = status;
  return next;
}

/** Why a pod cannot be bound now (the reference reports these as conflicts on pods/binding). */
function refusal(pod: ApiObject, name: string): string | undefined {
  const spec = rec(pod.spec);
  if (pod.metadata?.deletionTimestamp) return `pod ${name} is being deleted, cannot be assigned to a host`;
  if (text(spec.nodeName) !== '') return `pod ${name} is already assigned to node ${JSON.stringify(spec.nodeName)}`;
  if (Array.isArray(spec.schedulingGates) && spec.schedulingGates.length > 0) return `pod ${name} has non-empty .spec.schedulingGates`;
  return undefined;
}

async function assignPod(registry: Registry, namespace: string, name: string, body: Obj, dryRun: boolean): Promise<void> {
  const meta = rec(body.metadata);
  const pre = { uid: text(meta.uid), resourceVersion: text(meta.resourceVersion) };
  const node = text(rec(body.target).name);
  // Annotation values are checked as the pod's metadata when it is written.
  const annotations = rec(meta.annotations) as Record<string, string>;
  const store = podViewStore(registry, bindingView);
  for (let attempt = 0; ; attempt++) {
    const pod = await podsStore(registry).get(namespace, name);
    checkPreconditions(pod, pre, 'pods/binding', name);
    const why = refusal(pod, name);
    if (why) throw conflict({ resource: 'pods/binding', name }, why);
    try {
      await store.update(namespace, name, boundPod(pod, node, annotations, nowTimestamp()), { dryRun, subresource: 'binding' });
      return;
    } catch (e) {
      if (isStaleWrite(e) && attempt < MAX_WRITE_RETRIES) continue;
      throw e;
    }
  }
}

/** Serves both URL forms; `podName` is the name in a `pods/<name>/binding` URL. */
export async function serveBinding(ctx: ResourceContext, respond: (code: number, obj: unknown) => void, podName?: string): Promise<void> {
  const namespace = ctx.info.namespace;
  const dryRun = dryRunValues(ctx.query).length > 0;
  const body = await readKindBody(ctx.req, 'Binding');
  ctx.audit?.requestObject(body);
  const meta = rec(body.metadata);
  checkNamespace(meta, namespace);
  let name = text(meta.name);
  if (podName !== undefined) {
    if (name === '') name = podName;
    else if (name !== podName) throw badRequest('name in URL does not match name in Binding object');
  }
  const errs = name === '' ? [fieldError.required('metadata.name', 'name or generateName is required')] : [];
  errs.push(...validateBinding(body));
  if (errs.length > 0) throw invalid({ kind: 'Binding', name }, errs);
  const admitted = await admitSubresourceObject(ctx.admission, {
    operation: 'CREATE',
    kind: { group: '', version: 'v1', kind: 'Binding' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    subresource: 'binding',
    namespace,
    name,
    object: body as ApiObject,
    user: ctx.user,
    dryRun,
    ...(ctx.warnings ? { warnings: ctx.warnings } : {}),
  });
  await assignPod(ctx.registry, namespace, name, admitted as Obj, dryRun);
  respond(201, successStatus(201));
}
