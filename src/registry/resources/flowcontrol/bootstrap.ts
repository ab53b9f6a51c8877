/**
 * The flow-control objects the server creates at start when missing: the reference's mandatory ones
 * (`exempt` and `catch-all`, whose specs are fixed) and its suggested defaults, in the stored version
 * (v1), each annotated so that a later reconciler may keep its spec current.
 */
import { APF_AUTOUPDATE_ANNOTATION, COORDINATION_GROUP, SYSTEM_NAMESPACE } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import type { Rec } from '../events/fields.js';
import { FLOWCONTROL_GROUP, V1_API_VERSION } from './convert.js';

// User and group names the reference's components and authenticators use.
const MASTERS = 'system:masters';
const NODES = 'system:nodes';
const AUTHENTICATED = 'system:authenticated';
const UNAUTHENTICATED = 'system:unauthenticated';
const SERVICE_ACCOUNTS = 'system:serviceaccounts';
const CONTROLLER_MANAGER = 'system:kube-controller-manager';
const SCHEDULER = 'system:kube-scheduler';

const groups = (...names: string[]): Rec[] => names.map((name) => ({ kind: 'Group', group: { name } }));
const users = (...names: string[]): Rec[] => names.map((name) => ({ kind: 'User', user: { name } }));
const systemServiceAccounts = (...names: string[]): Rec[] =>
  names.map((name) => ({ kind: 'ServiceAccount', serviceAccount: { namespace: SYSTEM_NAMESPACE, name } }));

function resourceRule(verbs: string[], apiGroups: string[], resources: string[], clusterScope: boolean): Rec {
  return { verbs, apiGroups, resources, ...(clusterScope ? { clusterScope } : {}), namespaces: ['*'] };
}
const everyResource = () => resourceRule(['*'], ['*'], ['*'], true);
const everyNonResource = () => ({ verbs: ['*'], nonResourceURLs: ['*'] });
const LEADER_VERBS = ['get', 'create', 'update'];

function flowSchema(name: string, priorityLevel: string, matchingPrecedence: number, distinguisher: string, rules: Rec): ApiObject {
  return {
    apiVersion: V1_API_VERSION,
    kind: 'FlowSchema',
    metadata: { name, annotations: { [APF_AUTOUPDATE_ANNOTATION]: 'true' } },
    spec: {
      priorityLevelConfiguration: { name: priorityLevel },
      matchingPrecedence,
      ...(distinguisher ? { distinguisherMethod: { type: distinguisher } } : {}),
      rules: [rules],
    },
  };
}

function priorityLevel(name: string, spec: Rec): ApiObject {
  return {
    apiVersion: V1_API_VERSION,
    kind: 'PriorityLevelConfiguration',
    metadata: { name, annotations: { [APF_AUTOUPDATE_ANNOTATION]: 'true' } },
    spec,
  };
}

function queued(nominalConcurrencyShares: number, lendablePercent: number, queues: number, handSize: number): Rec {
  return {
    type: 'Limited',
    limited: {
      nominalConcurrencyShares,
      limitResponse: { type: 'Queue', queuing: { queues, handSize, queueLengthLimit: 50 } },
      lendablePercent,
    },
  };
}

export const MANDATORY_PRIORITY_LEVELS: readonly ApiObject[] = [
  priorityLevel('exempt', { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } }),
  priorityLevel('catch-all', { type: 'Limited', limited: { nominalConcurrencyShares: 5, limitResponse: { type: 'Reject' }, lendablePercent: 0 } }),
];

export const SUGGESTED_PRIORITY_LEVELS: readonly ApiObject[] = [
  priorityLevel('system', queued(30, 33, 64, 6)),
  priorityLevel('node-high', queued(40, 25, 64, 6)),
  priorityLevel('leader-election', queued(10, 0, 16, 4)),
  priorityLevel('workload-high', queued(40, 50, 128, 6)),
  priorityLevel('workload-low', queued(100, 90, 128, 6)),
  priorityLevel('global-default', queued(20, 50, 128, 6)),
];

const everything = (subjects: Rec[]): Rec => ({ subjects, resourceRules: [everyResource()], nonResourceRules: [everyNonResource()] });

export const MANDATORY_FLOW_SCHEMAS: readonly ApiObject[] = [
  flowSchema('exempt', 'exempt', 1, '', everything(groups(MASTERS))),
  flowSchema('catch-all', 'catch-all', 10000, 'ByUser', everything(groups(UNAUTHENTICATED, AUTHENTICATED))),
];

export const SUGGESTED_FLOW_SCHEMAS: readonly ApiObject[] = [
  flowSchema('system-nodes', 'system', 500, 'ByUser', everything(groups(NODES))),
  flowSchema('system-node-high', 'node-high', 400, 'ByUser', {
    subjects: groups(NODES),
    resourceRules: [resourceRule(['*'], [''], ['nodes', 'nodes/status'], true), resourceRule(['*'], [COORDINATION_GROUP], ['leases'], false)],
  }),
  flowSchema('probes', 'exempt', 2, '', {
    subjects: groups(UNAUTHENTICATED, AUTHENTICATED),
    nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }],
  }),
  flowSchema('system-leader-election', 'leader-election', 100, 'ByUser', {
    subjects: [...users(CONTROLLER_MANAGER, SCHEDULER), ...systemServiceAccounts('*')],
    resourceRules: [resourceRule(LEADER_VERBS, [COORDINATION_GROUP], ['leases'], false)],
  }),
  flowSchema('endpoint-controller', 'workload-high', 150, 'ByUser', {
    subjects: [...users(CONTROLLER_MANAGER), ...systemServiceAccounts('endpoint-controller', 'endpointslicemirroring-controller')],
    resourceRules: [resourceRule(LEADER_VERBS, [''], ['endpoints'], false)],
  }),
  flowSchema('workload-leader-election', 'leader-election', 200, 'ByUser', {
    subjects: systemServiceAccounts('*'),
    resourceRules: [resourceRule(LEADER_VERBS, [''], ['endpoints', 'configmaps'], false), resourceRule(LEADER_VERBS, [COORDINATION_GROUP], ['leases'], false)],
  }),
  flowSchema('kube-controller-manager', 'workload-high', 800, 'ByNamespace', everything(users(CONTROLLER_MANAGER))),
  flowSchema('kube-scheduler', 'workload-high', 800, 'ByNamespace', everything(users(SCHEDULER))),
  flowSchema('kube-system-service-accounts', 'workload-high', 900, 'ByNamespace', everything(systemServiceAccounts('*'))),
  flowSchema('service-accounts', 'workload-low', 9000, 'ByUser', everything(groups(SERVICE_ACCOUNTS))),
  flowSchema('global-default', 'global-default', 9900, 'ByUser', everything(groups(UNAUTHENTICATED, AUTHENTICATED))),
];

/** The fixed spec of a mandatory object, by kind and name (undefined for any other object). */
export function mandatorySpec(kind: 'FlowSchema' | 'PriorityLevelConfiguration', name: unknown): Rec | undefined {
  const list = kind === 'FlowSchema' ? MANDATORY_FLOW_SCHEMAS : MANDATORY_PRIORITY_LEVELS;
  return list.find((o) => o.metadata?.name === name)?.spec as Rec | undefined;
}

/** Priority levels first, so that no FlowSchema is created while the level it names is missing. */
export function flowcontrolBootstrapObjects(served: readonly ResourceType[]): ApiObject[] {
  const has = (plural: string) => served.some((t) => t.group === FLOWCONTROL_GROUP && t.version === 'v1' && t.plural === plural);
  return [
    ...(has('prioritylevelconfigurations') ? [...MANDATORY_PRIORITY_LEVELS, ...SUGGESTED_PRIORITY_LEVELS] : []),
    ...(has('flowschemas') ? [...MANDATORY_FLOW_SCHEMAS, ...SUGGESTED_FLOW_SCHEMAS] : []),
  ].map((o) => structuredClone(o));
}
