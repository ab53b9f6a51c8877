/**
 * The default roles of the controller manager (spec 5.8), after the reference's bootstrap policy: the
 * manager's own ClusterRole, one `system:controller:<account>` ClusterRole per built-in controller here,
 * bound to that controller's ServiceAccount in the system namespace (used with
 * `--use-service-account-credentials`), and the namespaced Roles the bootstrap signer and token cleaner get
 * in the system and public namespaces. The rules grant the controllers' writes; their informers list and
 * watch as the manager, whose role reads everything.
 */
import {
  AUTHENTICATION_GROUP,
  AUTHORIZATION_GROUP,
  BOOTSTRAPPING_LABEL,
  CERTIFICATES_GROUP,
  CONTROLLER_MANAGER_LEASE_NAME,
  CONTROLLER_MANAGER_USER,
  COORDINATION_GROUP,
  EVENTS_GROUP,
  KUBE_APISERVER_CLIENT_KUBELET_SIGNER,
  KUBE_APISERVER_CLIENT_SIGNER,
  KUBELET_SERVING_SIGNER,
  LEGACY_UNKNOWN_SIGNER,
  PUBLIC_NAMESPACE,
  RBAC_AUTOUPDATE_ANNOTATION,
  RBAC_GROUP,
  SYSTEM_NAMESPACE,
} from '../../api/naming.js';
import type { Binding, ClusterRole, Role, Rule, Subject } from './types.js';

/** Prefix of the controllers' role names; the rest is the controller's ServiceAccount name. */
export const CONTROLLER_ROLE_PREFIX = 'system:controller:';
/** The ConfigMap the bootstrap signer signs (spec 2.9), in the public namespace. */
const CLUSTER_INFO = 'cluster-info';

const CORE = '';
const BATCH = 'batch';
const READ = ['get', 'list', 'watch'];
const API_VERSION = `${RBAC_GROUP}/v1`;

const r = (verbs: string[], groups: string[], resources: string[], resourceNames?: string[]): Rule => ({
  apiGroups: groups,
  resources,
  ...(resourceNames ? { resourceNames } : {}),
  verbs,
});
const events = (): Rule => r(['create', 'update', 'patch'], [CORE, EVENTS_GROUP], ['events']);

function meta(name: string, namespace?: string) {
  return {
    name,
    ...(namespace ? { namespace } : {}),
    labels: { [BOOTSTRAPPING_LABEL]: 'rbac-defaults' },
    annotations: { [RBAC_AUTOUPDATE_ANNOTATION]: 'true' },
  };
}

const account = (name: string): Subject => ({ kind: 'ServiceAccount', name, namespace: SYSTEM_NAMESPACE });

/** Each controller's ServiceAccount and the rules its ClusterRole grants. */
const CONTROLLER_RULES: [string, () => Rule[]][] = [
  ['clusterrole-aggregation-controller', () => [r(['escalate', 'get', 'list', 'watch', 'update', 'patch'], [RBAC_GROUP], ['clusterroles'])]],
  [
    'namespace-controller',
    () => [
      r(['get', 'list', 'watch', 'delete'], [CORE], ['namespaces']),
      r(['update'], [CORE], ['namespaces/finalize', 'namespaces/status']),
      r(['get', 'list', 'delete', 'deletecollection'], ['*'], ['*']),
    ],
  ],
  ['generic-garbage-collector', () => [r(['get', 'list', 'watch', 'patch', 'update', 'delete'], ['*'], ['*']), events()]],
  ['service-account-controller', () => [r(['create'], [CORE], ['serviceaccounts']), events()]],
  ['root-ca-cert-publisher', () => [r(['create', 'update'], [CORE], ['configmaps']), events()]],
  [
    'certificate-controller',
    () => [
      r(['get', 'list', 'watch', 'delete'], [CERTIFICATES_GROUP], ['certificatesigningrequests']),
      r(['update'], [CERTIFICATES_GROUP], ['certificatesigningrequests/status', 'certificatesigningrequests/approval']),
      r(['approve'], [CERTIFICATES_GROUP], ['signers'], [KUBE_APISERVER_CLIENT_KUBELET_SIGNER]),
      r(['sign'], [CERTIFICATES_GROUP], ['signers'], [LEGACY_UNKNOWN_SIGNER, KUBE_APISERVER_CLIENT_SIGNER, KUBE_APISERVER_CLIENT_KUBELET_SIGNER, KUBELET_SERVING_SIGNER]),
      r(['create'], [AUTHORIZATION_GROUP], ['subjectaccessreviews']),
      events(),
    ],
  ],
  ['ttl-after-finished-controller', () => [r(['get', 'list', 'watch', 'delete'], [BATCH], ['jobs']), events()]],
  [
    'pod-garbage-collector',
    () => [r(['list', 'watch', 'delete'], [CORE], ['pods']), r(['get', 'list'], [CORE], ['nodes']), r(['patch'], [CORE], ['pods/status'])],
  ],
];

/** The ServiceAccount names the roles above are bound to (what the controllers' descriptors should use). */
export const CONTROLLER_SERVICE_ACCOUNTS: readonly string[] = CONTROLLER_RULES.map(([name]) => name);

function clusterRole(name: string, rules: Rule[]): ClusterRole {
  return { apiVersion: API_VERSION, kind: 'ClusterRole', metadata: meta(name), rules };
}

function clusterBinding(role: string, subjects: Subject[]): Binding {
  return { apiVersion: API_VERSION, kind: 'ClusterRoleBinding', metadata: meta(role), roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: role }, subjects };
}

/** The manager's own role (the reference's system:kube-controller-manager), bound to its user. */
function managerRole(): ClusterRole {
  return clusterRole(CONTROLLER_MANAGER_USER, [
    events(),
    // Leader election: any lease may be created; only the manager's own is read and renewed.
    r(['create'], [COORDINATION_GROUP], ['leases']),
    r(['get', 'update'], [COORDINATION_GROUP], ['leases'], [CONTROLLER_MANAGER_LEASE_NAME]),
    r(['create'], [CORE], ['secrets', 'serviceaccounts']),
    r(['delete'], [CORE], ['secrets']),
    r(['get'], [CORE], ['namespaces', 'secrets', 'serviceaccounts', 'configmaps']),
    r(['update'], [CORE], ['secrets', 'serviceaccounts']),
    r(['create'], [AUTHENTICATION_GROUP], ['tokenreviews']),
    r(['create'], [AUTHORIZATION_GROUP], ['subjectaccessreviews']),
    // The shared informers of every controller.
    r(['list', 'watch'], ['*'], ['*']),
    r(['create'], [CORE], ['serviceaccounts/token']),
  ]);
}

export function controllerClusterRoles(): ClusterRole[] {
  return [managerRole(), ...CONTROLLER_RULES.map(([name, rules]) => clusterRole(`${CONTROLLER_ROLE_PREFIX}${name}`, rules()))];
}

export function controllerClusterRoleBindings(): Binding[] {
  return [
    clusterBinding(CONTROLLER_MANAGER_USER, [{ kind: 'User', apiGroup: RBAC_GROUP, name: CONTROLLER_MANAGER_USER }]),
    ...CONTROLLER_RULES.map(([name]) => clusterBinding(`${CONTROLLER_ROLE_PREFIX}${name}`, [account(name)])),
  ];
}

function role(name: string, namespace: string, rules: Rule[]): Role {
  return { apiVersion: API_VERSION, kind: 'Role', metadata: meta(name, namespace), rules };
}

function roleBinding(name: string, namespace: string, subjects: Subject[]): Binding {
  return { apiVersion: API_VERSION, kind: 'RoleBinding', metadata: meta(name, namespace), roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name }, subjects };
}

/**
 * The namespaced defaults, roles before bindings: the bootstrap signer reads token secrets in the system
 * namespace and signs `cluster-info` in the public one; the token cleaner deletes expired token secrets.
 */
export function controllerNamespacedRbac(): (Role | Binding)[] {
  const signer = `${CONTROLLER_ROLE_PREFIX}bootstrap-signer`;
  const cleaner = `${CONTROLLER_ROLE_PREFIX}token-cleaner`;
  return [
    role(signer, SYSTEM_NAMESPACE, [r(READ, [CORE], ['secrets'])]),
    role(cleaner, SYSTEM_NAMESPACE, [r(['delete'], [CORE], ['secrets']), r(READ, [CORE], ['secrets']), events()]),
    role(signer, PUBLIC_NAMESPACE, [r(READ, [CORE], ['configmaps']), r(['update'], [CORE], ['configmaps'], [CLUSTER_INFO]), events()]),
    roleBinding(signer, SYSTEM_NAMESPACE, [account('bootstrap-signer')]),
    roleBinding(cleaner, SYSTEM_NAMESPACE, [account('token-cleaner')]),
    roleBinding(signer, PUBLIC_NAMESPACE, [account('bootstrap-signer')]),
  ];
}
