/**
 * NodeRestriction (reference plugin, 1.31): limits what a node identity (user `system:node:<name>` in
 * group `system:nodes`) may write, beyond what its authorizer grants: only its own Node (without labels
 * that steer workloads, taint changes or a config source), only mirror pods bound to itself that name no
 * other API object, status of and evictions for its own pods, tokens bound to its own pods, PVC status
 * only, and only its own Lease and CSINode. Other users pass untouched. It only reads and refuses, but
 * runs in the mutating stage as the reference's does, so it judges what the client sent.
 */
import { isDeepStrictEqual } from 'node:util';
import {
  COORDINATION_GROUP,
  KUBELET_LABEL_DOMAINS,
  KUBELET_LABELS,
  MIRROR_POD_ANNOTATION,
  NODE_LEASE_NAMESPACE,
  NODE_RESTRICTION_LABEL_DOMAIN,
  RESERVED_DOMAINS,
  STORAGE_GROUP,
} from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { isObject } from '../../api/types.js';
import { badRequest, notFound } from '../../errors/index.js';
import { visitPodConfigMapNames, visitPodSecretNames } from '../../util/pod-references.js';
import type { AdmissionDeps, AdmissionOperation, AdmissionPlugin, AdmissionRequest, AdmissionUser, ObjectReader } from '../types.js';
import { forbiddenFor, noConfiguration } from './common.js';

export const NODE_RESTRICTION = 'NodeRestriction';
const NODE_USER_PREFIX = 'system:node:';
const NODES_GROUP = 'system:nodes';

type Json = Record<string, unknown>;
const rec = (v: unknown): Json => (isObject(v) ? v : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The node name of a node identity ('' when the name part is empty), undefined for anyone else. */
export function nodeNameOf(user: AdmissionUser): string | undefined {
  if (!user.username.startsWith(NODE_USER_PREFIX) || !user.groups.includes(NODES_GROUP)) return undefined;
  return user.username.slice(NODE_USER_PREFIX.length);
}

const domainOf = (key: string) => (key.includes('/') ? key.slice(0, key.indexOf('/')) : '');
const inDomain = (domain: string, of: string) => domain === of || domain.endsWith(`.${of}`);

/** Keys added, removed or changed between two label maps. */
export function modifiedLabels(next: Record<string, unknown>, prev: Record<string, unknown>): string[] {
  const out = new Set<string>();
  for (const [k, v] of Object.entries(next)) if (prev[k] !== v) out.add(k);
  for (const [k, v] of Object.entries(prev)) if (next[k] !== v) out.add(k);
  return [...out];
}

/** Labels a node may not add, remove or change on itself, sorted (the reference lists them in order). */
export function forbiddenNodeLabels(keys: readonly string[]): string[] {
  const out = new Set<string>();
  for (const key of keys) {
    const domain = domainOf(key);
    if (inDomain(domain, NODE_RESTRICTION_LABEL_DOMAIN)) out.add(key);
    const kubeletLabel = KUBELET_LABELS.includes(key) || KUBELET_LABEL_DOMAINS.some((d) => inDomain(domain, d));
    if (RESERVED_DOMAINS.some((d) => inDomain(domain, d)) && !kubeletLabel) out.add(key);
  }
  return [...out].sort();
}

/** Equality that, like the reference's, does not tell an absent field from null or an empty list/map. */
function sameJson(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(normalised(a), normalised(b));
}
function normalised(v: unknown): unknown {
  if (Array.isArray(v)) return v.length === 0 ? undefined : v.map(normalised);
  if (!isObject(v)) return v === null ? undefined : v;
  const out: Json = {};
  for (const [k, x] of Object.entries(v)) {
    const n = normalised(x);
    if (n !== undefined) out[k] = n;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

export class NodeRestrictionPlugin implements AdmissionPlugin {
  readonly name = NODE_RESTRICTION;

  constructor(private readonly objects: ObjectReader) {}

  handles(op: AdmissionOperation): boolean {
    return op === 'CREATE' || op === 'UPDATE' || op === 'DELETE';
  }

  admit(req: AdmissionRequest): Promise<void> | void {
    const node = nodeNameOf(req.user);
    if (node === undefined) return;
    if (node === '') throw forbiddenFor(req, `could not determine node from user "${req.user.username}"`);
    const { group, resource } = req.resource;
    if (group === '') {
      switch (resource) {
        case 'pods':
          if (req.subResource === '') return this.pod(node, req);
          if (req.subResource === 'status') return this.podStatus(node, req);
          if (req.subResource === 'eviction') return this.eviction(node, req);
          throw forbiddenFor(req, `unexpected subresource "${req.subResource}", only 'status' and 'eviction' are allowed`);
        case 'nodes':
          return this.node(node, req);
        case 'persistentvolumeclaims':
          if (req.subResource !== 'status') throw forbiddenFor(req, 'may only update PVC status');
          return this.claimStatus(node, req);
        case 'serviceaccounts':
          return this.token(node, req);
        default:
          return;
      }
    }
    if (group === COORDINATION_GROUP && resource === 'leases') return this.ownNamed(node, req, req.namespace === NODE_LEASE_NAMESPACE, 'node lease');
    if (group === STORAGE_GROUP && resource === 'csinodes') return this.ownNamed(node, req, true, 'CSINode');
  }

  private async pod(node: string, req: AdmissionRequest): Promise<void> {
    if (req.operation === 'CREATE') return this.mirrorPod(node, req, rec(req.object));
    if (req.operation === 'DELETE') {
      const existing = req.oldObject ?? (await this.podNamed(req, req.name));
      if (str(rec(existing.spec).nodeName) !== node) throw forbiddenFor(req, `node "${node}" can only delete pods with spec.nodeName set to itself`);
      return;
    }
    throw forbiddenFor(req, `unexpected operation "${req.operation}", node "${node}" can only create and delete mirror pods`);
  }

  private async mirrorPod(node: string, req: AdmissionRequest, pod: Json): Promise<void> {
    const meta = rec(pod.metadata);
    const spec = rec(pod.spec);
    if (!Object.hasOwn(rec(meta.annotations), MIRROR_POD_ANNOTATION)) {
      throw forbiddenFor(req, `pod does not have "${MIRROR_POD_ANNOTATION}" annotation, node "${node}" can only create mirror pods`);
    }
    if (str(spec.nodeName) !== node) throw forbiddenFor(req, `node "${node}" can only create pods with spec.nodeName set to itself`);
    const owners = Array.isArray(meta.ownerReferences) ? meta.ownerReferences : [];
    if (owners.length > 1) throw forbiddenFor(req, `node "${node}" can only create pods with a single owner reference set to itself`);
    if (owners.length === 1) await this.ownerIsSelf(node, req, rec(owners[0]));
    if (str(spec.serviceAccountName) !== '') throw forbiddenFor(req, `node "${node}" can not create pods that reference a service account`);
    let secrets = false;
    visitPodSecretNames(pod, () => (secrets = true));
    if (secrets) throw forbiddenFor(req, `node "${node}" can not create pods that reference secrets`);
    let configMaps = false;
    visitPodConfigMapNames(pod, () => (configMaps = true));
    if (configMaps) throw forbiddenFor(req, `node "${node}" can not create pods that reference configmaps`);
    const volumes = Array.isArray(spec.volumes) ? spec.volumes.map(rec) : [];
    if (volumes.some((v) => isObject(v.persistentVolumeClaim))) throw forbiddenFor(req, `node "${node}" can not create pods that reference persistentvolumeclaims`);
    if (volumes.some((v) => (Array.isArray(rec(v.projected).sources) ? (rec(v.projected).sources as unknown[]) : []).some((s) => isObject(rec(s).clusterTrustBundle)))) {
      throw forbiddenFor(req, `node "${node}" can not create pods that use clustertrustbundles`);
    }
    if (Array.isArray(spec.resourceClaims) && spec.resourceClaims.length > 0) throw forbiddenFor(req, `node "${node}" can not create pods that reference resourceclaims`);
  }

  /** A mirror pod's one owner must be this node, as a controller, without blocking its deletion. */
  private async ownerIsSelf(node: string, req: AdmissionRequest, owner: Json): Promise<void> {
    if (owner.apiVersion !== 'v1' || owner.kind !== 'Node' || owner.name !== node) {
      throw forbiddenFor(req, `node "${node}" can only create pods with an owner reference set to itself`);
    }
    if (owner.controller !== true) throw forbiddenFor(req, `node "${node}" can only create pods with a controller owner reference set to itself`);
    if (owner.blockOwnerDeletion === true) throw forbiddenFor(req, `node "${node}" must not set blockOwnerDeletion on an owner reference`);
    const self = await this.objects.get('', 'nodes', undefined, node);
    if (!self) throw notFound({ resource: 'nodes', name: node });
    const uid = self.metadata?.uid ?? '';
    if (str(owner.uid) !== uid) throw forbiddenFor(req, `node ${node} UID mismatch: expected ${uid} got ${str(owner.uid)}`);
  }

  private podStatus(node: string, req: AdmissionRequest): void {
    if (req.operation !== 'UPDATE') throw forbiddenFor(req, `unexpected operation "${req.operation}"`);
    const old = rec(req.oldObject);
    if (str(rec(old.spec).nodeName) !== node) throw forbiddenFor(req, `node "${node}" can only update pod status for pods with spec.nodeName set to itself`);
    const next = rec(req.object);
    if (!sameJson(rec(old.metadata).labels, rec(next.metadata).labels)) throw forbiddenFor(req, `node "${node}" cannot update labels through pod status`);
    if (!sameJson(rec(old.status).resourceClaimStatuses, rec(next.status).resourceClaimStatuses)) {
      throw forbiddenFor(req, `node "${node}" cannot update resource claim statues`);
    }
  }

  private async eviction(node: string, req: AdmissionRequest): Promise<void> {
    if (req.operation !== 'CREATE') throw forbiddenFor(req, `unexpected operation ${req.operation}`);
    // The name in the URL wins over the one in the Eviction body.
    const podName = req.name || str(rec(rec(req.object).metadata).name);
    if (podName === '') throw badRequest('could not determine pod from request data');
    const pod = await this.podNamed(req, podName);
    if (str(rec(pod.spec).nodeName) !== node) throw forbiddenFor(req, `node ${node} can only evict pods with spec.nodeName set to itself`);
  }

  private node(node: string, req: AdmissionRequest): void {
    const name = req.name || str(rec(rec(req.object).metadata).name);
    if (name !== node) throw forbiddenFor(req, `node "${node}" is not allowed to modify node "${name}"`);
    if (req.operation === 'DELETE') return;
    const next = rec(req.object);
    const nextSpec = rec(next.spec);
    const nextLabels = rec(rec(next.metadata).labels);
    if (req.operation === 'CREATE') {
      // Access through the Node authorizer follows the node's spec: a config source would widen it.
      if (isObject(nextSpec.configSource)) throw forbiddenFor(req, `node "${node}" is not allowed to create pods with a non-nil configSource`);
      const bad = forbiddenNodeLabels(modifiedLabels(nextLabels, {}));
      if (bad.length > 0) throw forbiddenFor(req, `node "${node}" is not allowed to set the following labels: ${bad.join(', ')}`);
      return;
    }
    const old = rec(req.oldObject);
    const oldSpec = rec(old.spec);
    if (isObject(nextSpec.configSource) && !sameJson(nextSpec.configSource, oldSpec.configSource)) {
      throw forbiddenFor(req, `node "${node}" is not allowed to update configSource to a new non-nil configSource`);
    }
    if (!sameJson(nextSpec.taints, oldSpec.taints)) throw forbiddenFor(req, `node "${node}" is not allowed to modify taints`);
    const bad = forbiddenNodeLabels(modifiedLabels(nextLabels, rec(rec(old.metadata).labels)));
    if (bad.length > 0) throw forbiddenFor(req, `is not allowed to modify labels: ${bad.join(', ')}`);
  }

  /** Only the claim's status capacity and conditions may change. */
  private claimStatus(node: string, req: AdmissionRequest): void {
    if (req.operation !== 'UPDATE') throw forbiddenFor(req, `unexpected operation "${req.operation}"`);
    const strip = (o: ApiObject | undefined) => {
      const { resourceVersion: _rv, managedFields: _mf, ...metadata } = rec(o?.metadata);
      const { capacity: _c, conditions: _cond, ...status } = rec(o?.status);
      return { ...rec(o), metadata, status };
    };
    if (!sameJson(strip(req.oldObject), strip(req.object))) {
      throw forbiddenFor(req, `node "${node}" is not allowed to update fields other than status.capacity and status.conditions`);
    }
  }

  /** A node's TokenRequest must be bound to a pod (by uid) that runs on that node. */
  private async token(node: string, req: AdmissionRequest): Promise<void> {
    if (req.operation !== 'CREATE' || req.subResource !== 'token') return;
    const ref = rec(rec(rec(req.object).spec).boundObjectRef);
    if (ref.apiVersion !== 'v1' || ref.kind !== 'Pod' || str(ref.name) === '') throw forbiddenFor(req, 'node requested token not bound to a pod');
    if (str(ref.uid) === '') throw forbiddenFor(req, 'node requested token with a pod binding without a uid');
    const pod = await this.podNamed(req, str(ref.name));
    if (str(ref.uid) !== (pod.metadata?.uid ?? '')) {
      throw forbiddenFor(req, `the UID in the bound object reference (${str(ref.uid)}) does not match the UID in record. The object might have been deleted and then recreated`);
    }
    if (str(rec(pod.spec).nodeName) !== node) throw forbiddenFor(req, 'node requested token bound to a pod scheduled on a different node');
  }

  /** Leases in the node-lease namespace and CSINodes: only the one named after the node. */
  private ownNamed(node: string, req: AdmissionRequest, applies: boolean, what: string): void {
    if (!applies) return;
    const name = req.operation === 'CREATE' ? str(rec(rec(req.object).metadata).name) : req.name;
    if (name !== node) throw forbiddenFor(req, `can only access ${what} with the same name as the requesting node`);
  }

  private async podNamed(req: AdmissionRequest, name: string): Promise<ApiObject> {
    const pod = await this.objects.get('', 'pods', req.namespace, name);
    if (!pod) throw notFound({ resource: 'pods', name });
    return pod;
  }
}

export function nodeRestrictionPlugin(deps: AdmissionDeps, configuration: unknown): AdmissionPlugin {
  noConfiguration(NODE_RESTRICTION, configuration);
  return new NodeRestrictionPlugin(deps.objects);
}
