/**
 * The Node authorizer (reference behaviour, 1.31): for node identities only (user `system:node:<name>` in
 * group `system:nodes`). Object kinds a node needs only for its own pods are decided through the
 * NodeGraph; everything else against the reference's fixed list of node rules. It never denies: a request
 * it does not allow is "no opinion", so a later mode (RBAC) may still allow it.
 */
import {
  AUTHENTICATION_GROUP,
  AUTHORIZATION_GROUP,
  CERTIFICATES_GROUP,
  COORDINATION_GROUP,
  EVENTS_GROUP,
  NODE_GROUP,
  NODE_LEASE_NAMESPACE,
  RESOURCE_GROUP,
  STORAGE_GROUP,
} from '../../api/naming.js';
import type { Attributes, Authorizer, Decision } from '../index.js';
import { rulesAllow } from '../rbac/rules.js';
import type { Rule } from '../rbac/types.js';
import type { NodeGraph, NodeGraphKind } from './graph.js';

export const NODE_USER_PREFIX = 'system:node:';
export const NODES_GROUP = 'system:nodes';

const rule = (verbs: string[], apiGroups: string[], resources: string[]): Rule => ({ verbs, apiGroups, resources });
const READ = ['get', 'list', 'watch'];

/** The reference's node rules (its `system:node` policy), for requests the graph does not decide. */
export const NODE_RULES: readonly Rule[] = [
  rule(['create'], [AUTHENTICATION_GROUP], ['tokenreviews']),
  rule(['create'], [AUTHORIZATION_GROUP], ['subjectaccessreviews', 'localsubjectaccessreviews']),
  rule(READ, [''], ['services']),
  rule(['create', ...READ], [''], ['nodes']),
  rule(['update', 'patch'], [''], ['nodes/status']),
  rule(['update', 'patch', 'delete'], [''], ['nodes']),
  rule(['create', 'update', 'patch'], ['', EVENTS_GROUP], ['events']),
  rule(READ, [''], ['pods']),
  rule(['create', 'delete'], [''], ['pods']),
  rule(['update', 'patch'], [''], ['pods/status']),
  rule(['create'], [''], ['pods/eviction']),
  rule(READ, [''], ['secrets', 'configmaps']),
  rule(['get'], [''], ['persistentvolumeclaims', 'persistentvolumes']),
  rule(['get'], [''], ['endpoints']),
  rule(['create', ...READ], [CERTIFICATES_GROUP], ['certificatesigningrequests']),
  rule(['get', 'create', 'update', 'patch', 'delete'], [COORDINATION_GROUP], ['leases']),
  rule(['get'], [STORAGE_GROUP], ['volumeattachments']),
  rule(['create'], [''], ['serviceaccounts/token']),
  rule(['get', 'update', 'patch'], [''], ['persistentvolumeclaims/status']),
  rule(READ, [STORAGE_GROUP], ['csidrivers']),
  rule(['get', 'create', 'update', 'patch', 'delete'], [STORAGE_GROUP], ['csinodes']),
  rule(READ, [NODE_GROUP], ['runtimeclasses']),
];

/** The node's name when the user is a node identity ('' for a node user without a name), else undefined. */
export function nodeIdentity(user: Attributes['user']): string | undefined {
  if (!user.username.startsWith(NODE_USER_PREFIX)) return undefined;
  if (!user.groups.includes(NODES_GROUP)) return undefined;
  return user.username.slice(NODE_USER_PREFIX.length);
}

const ALLOW: Decision = { decision: 'allow' };
const noOpinion = (reason: string): Decision => ({ decision: 'noOpinion', reason });
const NO_OPINION: Decision = { decision: 'noOpinion' };
const LEASE_AND_CSINODE_VERBS = new Set(['get', 'create', 'update', 'patch', 'delete']);

export class NodeAuthorizer implements Authorizer {
  constructor(private readonly graph: NodeGraph) {}

  async authorize(a: Attributes): Promise<Decision> {
    return this.decide(a);
  }

  /** Synchronous core (nothing here waits): the graph is in memory. */
  decide(a: Attributes): Decision {
    const node = nodeIdentity(a.user);
    if (node === undefined) return NO_OPINION;
    if (node === '') return noOpinion(`unknown node for user "${a.user.username}"`);
    if (a.isResourceRequest) {
      const subdivided = this.subdivided(node, a);
      if (subdivided) return subdivided;
    }
    return rulesAllow(NODE_RULES, a) ? ALLOW : NO_OPINION;
  }

  /** The kinds whose access depends on the node's own objects; undefined for the rest. */
  private subdivided(node: string, a: Attributes): Decision | undefined {
    if (a.apiGroup === '') {
      switch (a.resource) {
        case 'secrets':
          return this.readNamespaced(node, 'secret', a);
        case 'configmaps':
          return this.readNamespaced(node, 'configmap', a);
        case 'persistentvolumeclaims':
          return a.subresource === 'status' ? this.statusUpdate(node, 'persistentvolumeclaim', a) : this.getOnly(node, 'persistentvolumeclaim', a);
        case 'persistentvolumes':
          return this.getOnly(node, 'persistentvolume', a);
        case 'serviceaccounts':
          return this.createToken(node, a);
        default:
          return undefined;
      }
    }
    if (a.apiGroup === STORAGE_GROUP && a.resource === 'volumeattachments') return this.getOnly(node, 'volumeattachment', a);
    if (a.apiGroup === COORDINATION_GROUP && a.resource === 'leases') return this.lease(node, a);
    if (a.apiGroup === STORAGE_GROUP && a.resource === 'csinodes') return this.csiNode(node, a);
    if (a.apiGroup === RESOURCE_GROUP && a.resource === 'resourceclaims') return this.getOnly(node, 'resourceclaim', a);
    return undefined;
  }

  private readNamespaced(node: string, kind: NodeGraphKind, a: Attributes): Decision {
    if (a.verb !== 'get' && a.verb !== 'list' && a.verb !== 'watch') return noOpinion('can only read resources of this type');
    if (a.subresource !== '') return noOpinion('cannot read subresource');
    if (a.namespace === '') return noOpinion('can only read namespaced object of this type');
    return this.related(node, kind, a);
  }

  private getOnly(node: string, kind: NodeGraphKind, a: Attributes): Decision {
    if (a.verb !== 'get') return noOpinion('can only get individual resources of this type');
    if (a.subresource !== '') return noOpinion('cannot get subresource');
    return this.related(node, kind, a);
  }

  private statusUpdate(node: string, kind: NodeGraphKind, a: Attributes): Decision {
    if (a.verb !== 'update' && a.verb !== 'patch') return noOpinion('can only get/update/patch this type');
    return this.related(node, kind, a);
  }

  private createToken(node: string, a: Attributes): Decision {
    if (a.verb !== 'create' || a.name === '') return noOpinion('can only create tokens for individual service accounts');
    if (a.subresource !== 'token') return noOpinion('can only create token subresource of serviceaccount');
    return this.related(node, 'serviceaccount', a);
  }

  private related(node: string, kind: NodeGraphKind, a: Attributes): Decision {
    // A list or watch has no name, so a node never reads a whole collection of these kinds.
    if (a.name === '') return noOpinion('No Object name found');
    if (this.graph.hasPath(node, kind, a.namespace, a.name)) return ALLOW;
    return noOpinion(`no relationship found between node '${node}' and this object`);
  }

  private lease(node: string, a: Attributes): Decision {
    if (!LEASE_AND_CSINODE_VERBS.has(a.verb)) return noOpinion('can only get, create, update, patch, or delete a node lease');
    if (a.namespace !== NODE_LEASE_NAMESPACE) return noOpinion(`can only access leases in the "${NODE_LEASE_NAMESPACE}" system namespace`);
    // A create carries no name in its attributes: NodeRestriction checks the object's name.
    if (a.verb !== 'create' && a.name !== node) return noOpinion('can only access node lease with the same name as the requesting node');
    return ALLOW;
  }

  private csiNode(node: string, a: Attributes): Decision {
    if (!LEASE_AND_CSINODE_VERBS.has(a.verb)) return noOpinion('can only get, create, update, patch, or delete a CSINode');
    if (a.subresource !== '') return noOpinion('cannot authorize CSINode subresources');
    if (a.verb !== 'create' && a.name !== node) return noOpinion('can only access CSINode with the same name as the requesting node');
    return ALLOW;
  }
}
