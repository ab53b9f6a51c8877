/**
 * The default ClusterRoles and ClusterRoleBindings the server creates at start (spec 5.8), modelled on
 * the reference's bootstrap policy and limited to the resources this server serves (plus the review and
 * component APIs their clients call). Every call returns fresh objects, so callers may mutate them.
 */
import {
  AUTHENTICATION_GROUP,
  AUTHORIZATION_GROUP,
  BOOTSTRAPPING_LABEL,
  COORDINATION_GROUP,
  EVENTS_GROUP,
  GROUP_SUFFIX,
  RBAC_AUTOUPDATE_ANNOTATION,
  RBAC_GROUP,
} from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { aggregateRules } from './aggregation.js';
import { controllerClusterRoleBindings, controllerClusterRoles, controllerNamespacedRbac } from './controller-roles.js';
import type { Binding, ClusterRole, Rule, Subject } from './types.js';

export { reconcile } from './reconcile.js';

export const RBAC_API_VERSION = `${RBAC_GROUP}/v1`;
export const BOOTSTRAPPING_VALUE = 'rbac-defaults';
export const AGGREGATE_TO_ADMIN_LABEL = `${RBAC_GROUP}/aggregate-to-admin`;
export const AGGREGATE_TO_EDIT_LABEL = `${RBAC_GROUP}/aggregate-to-edit`;
export const AGGREGATE_TO_VIEW_LABEL = `${RBAC_GROUP}/aggregate-to-view`;

const CORE = '';
const CERTIFICATES_GROUP = `certificates.${GROUP_SUFFIX}`;
const STORAGE_GROUP = `storage.${GROUP_SUFFIX}`;
const DISCOVERY_GROUP = `discovery.${GROUP_SUFFIX}`;

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'update', 'patch', 'delete', 'deletecollection'];
const READ_WRITE = [...READ, ...WRITE];

const r = (verbs: string[], groups: string[], resources: string[], resourceNames?: string[]): Rule => ({
  apiGroups: groups,
  resources,
  ...(resourceNames ? { resourceNames } : {}),
  verbs,
});
const urls = (verbs: string[], ...paths: string[]): Rule => ({ nonResourceURLs: paths, verbs });
/** Components report what they do through both event APIs. */
const eventsRules = (): Rule[] => [r(['create', 'update', 'patch'], [CORE, EVENTS_GROUP], ['events'])];

function meta(name: string, labels: Record<string, string> = {}) {
  return {
    name,
    labels: { ...labels, [BOOTSTRAPPING_LABEL]: BOOTSTRAPPING_VALUE },
    annotations: { [RBAC_AUTOUPDATE_ANNOTATION]: 'true' },
  };
}

function clusterRole(name: string, rules: Rule[], labels?: Record<string, string>, aggregateFrom?: string): ClusterRole {
  return {
    apiVersion: RBAC_API_VERSION,
    kind: 'ClusterRole',
    metadata: meta(name, labels),
    ...(aggregateFrom ? { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [aggregateFrom]: 'true' } }] } } : {}),
    rules,
  };
}

const user = (name: string): Subject => ({ kind: 'User', apiGroup: RBAC_GROUP, name });
const group = (name: string): Subject => ({ kind: 'Group', apiGroup: RBAC_GROUP, name });

function clusterBinding(roleName: string, subjects: Subject[]): Binding {
  return {
    apiVersion: RBAC_API_VERSION,
    kind: 'ClusterRoleBinding',
    metadata: meta(roleName),
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: roleName },
    subjects,
  };
}

const onAdmin = { [AGGREGATE_TO_ADMIN_LABEL]: 'true' };
const onEdit = { [AGGREGATE_TO_EDIT_LABEL]: 'true' };
const onView = { [AGGREGATE_TO_VIEW_LABEL]: 'true' };

function userFacingRoles(): ClusterRole[] {
  return [
    clusterRole('cluster-admin', [r(['*'], ['*'], ['*']), urls(['*'], '*')]),
    // admin, edit and view are filled by aggregation; edit feeds admin and view feeds edit, as in the reference.
    clusterRole('admin', [], {}, AGGREGATE_TO_ADMIN_LABEL),
    clusterRole('edit', [], onAdmin, AGGREGATE_TO_EDIT_LABEL),
    clusterRole('view', [], onEdit, AGGREGATE_TO_VIEW_LABEL),
    clusterRole(
      'system:aggregate-to-admin',
      [
        r(['create'], [AUTHORIZATION_GROUP], ['localsubjectaccessreviews']),
        r(READ_WRITE, [RBAC_GROUP], ['roles', 'rolebindings']),
      ],
      onAdmin,
    ),
    clusterRole(
      'system:aggregate-to-edit',
      [
        r(READ, [CORE], ['pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward', 'secrets', 'services/proxy']),
        r(['impersonate'], [CORE], ['serviceaccounts']),
        r(WRITE, [CORE], ['pods', 'pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward']),
        r(['create'], [CORE], ['pods/eviction']),
        r(WRITE, [CORE], ['serviceaccounts', 'services', 'services/proxy', 'endpoints', 'configmaps', 'secrets', 'events']),
        r(['create'], [CORE], ['serviceaccounts/token']),
        r(WRITE, [EVENTS_GROUP], ['events']),
        r(WRITE, [COORDINATION_GROUP], ['leases']),
      ],
      onEdit,
    ),
    clusterRole(
      'system:aggregate-to-view',
      [
        r(READ, [CORE], ['pods', 'serviceaccounts', 'services', 'services/status', 'endpoints', 'configmaps']),
        r(READ, [CORE], ['events', 'pods/status', 'pods/log', 'namespaces/status']),
        // Reading namespaces through a RoleBinding reads only that namespace: how users find theirs.
        r(READ, [CORE], ['namespaces']),
        r(READ, [EVENTS_GROUP], ['events']),
        r(READ, [COORDINATION_GROUP], ['leases']),
      ],
      onView,
    ),
    clusterRole('system:basic-user', [
      r(['create'], [AUTHENTICATION_GROUP], ['selfsubjectreviews']),
      r(['create'], [AUTHORIZATION_GROUP], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']),
    ]),
    clusterRole('system:discovery', [
      urls(['get'], '/api', '/api/*', '/apis', '/apis/*', '/openapi', '/openapi/*', '/version', '/version/', '/healthz', '/livez', '/readyz'),
    ]),
    clusterRole('system:public-info-viewer', [urls(['get'], '/healthz', '/livez', '/readyz', '/version', '/version/')]),
    clusterRole('system:monitoring', [urls(['get'], '/healthz', '/healthz/*', '/livez', '/livez/*', '/readyz', '/readyz/*', '/metrics')]),
    // Service account issuer discovery: lets workloads (and, when bound wider, relying parties) fetch the keys.
    clusterRole('system:service-account-issuer-discovery', [
      urls(['get'], '/.well-known/openid-configuration', '/.well-known/openid-configuration/', '/openid/v1/jwks', '/openid/v1/jwks/'),
    ]),
  ];
}

function componentRoles(): ClusterRole[] {
  const reviews = [r(['create'], [AUTHENTICATION_GROUP], ['tokenreviews']), r(['create'], [AUTHORIZATION_GROUP], ['subjectaccessreviews'])];
  return [
    clusterRole('system:auth-delegator', reviews),
    clusterRole('system:node', [
      ...reviews,
      r(['create'], [AUTHORIZATION_GROUP], ['localsubjectaccessreviews']),
      r(READ, [CORE], ['services', 'endpoints']),
      r(['create', ...READ], [CORE], ['nodes']),
      r(['update', 'patch'], [CORE], ['nodes/status']),
      r(['update', 'patch', 'delete'], [CORE], ['nodes']),
      ...eventsRules(),
      r(READ, [CORE], ['pods']),
      r(['create', 'delete'], [CORE], ['pods']),
      r(['update', 'patch'], [CORE], ['pods/status']),
      r(['create'], [CORE], ['pods/eviction']),
      r(READ, [CORE], ['secrets', 'configmaps']),
      r(['get'], [CORE], ['persistentvolumeclaims', 'persistentvolumes']),
      r(['get', 'create', 'update', 'patch', 'delete'], [COORDINATION_GROUP], ['leases']),
      r(['create'], [CORE], ['serviceaccounts/token']),
    ]),
    clusterRole('system:node-proxier', [
      r(['list', 'watch'], [CORE], ['services', 'endpoints']),
      r(READ, [CORE], ['nodes']),
      ...eventsRules(),
      r(['list', 'watch'], [DISCOVERY_GROUP], ['endpointslices']),
    ]),
    // The lock name is configurable (spec 2.12 resourceName), so lease access is not narrowed by name.
    clusterRole('system:scheduler', [
      ...eventsRules(),
      r(['create', 'get', 'update'], [COORDINATION_GROUP], ['leases']),
      r(READ, [CORE], ['nodes', 'namespaces', 'services', 'persistentvolumeclaims', 'persistentvolumes']),
      r(['get', 'list', 'watch', 'delete'], [CORE], ['pods']),
      r(['create'], [CORE], ['bindings', 'pods/binding']),
      r(['patch', 'update'], [CORE], ['pods/status']),
      ...reviews,
    ]),
    clusterRole('system:controller-manager', [
      ...eventsRules(),
      r(['create', 'get', 'update'], [COORDINATION_GROUP], ['leases']),
      r(['create'], [CORE], ['secrets', 'serviceaccounts']),
      r(['delete'], [CORE], ['secrets']),
      r(['get'], [CORE], ['configmaps', 'namespaces', 'secrets', 'serviceaccounts']),
      r(['update'], [CORE], ['secrets', 'serviceaccounts']),
      ...reviews,
      // Every controller's informers list and watch; the controllers' own roles narrow writes.
      r(['list', 'watch'], ['*'], ['*']),
      r(['create'], [CORE], ['serviceaccounts/token']),
    ]),
    clusterRole('system:node-bootstrapper', [r(['create', 'get', 'list', 'watch'], [CERTIFICATES_GROUP], ['certificatesigningrequests'])]),
    clusterRole('system:persistent-volume-provisioner', [
      r(['get', 'list', 'watch', 'create', 'delete'], [CORE], ['persistentvolumes']),
      r(['get', 'list', 'watch', 'update'], [CORE], ['persistentvolumeclaims']),
      r(READ, [STORAGE_GROUP], ['storageclasses']),
      ...eventsRules(),
    ]),
    clusterRole('system:dns', [r(['list', 'watch'], [CORE], ['endpoints', 'services']), r(READ, [DISCOVERY_GROUP], ['endpointslices'])]),
  ];
}

/**
 * The default ClusterRoles. admin, edit and view carry their aggregated rules already, so they work
 * before the aggregation controller first runs (it will compute the same lists).
 */
export function defaultClusterRoles(): ClusterRole[] {
  const roles = [...userFacingRoles(), ...componentRoles(), ...controllerClusterRoles()];
  // view feeds edit feeds admin: three passes reach the fixed point.
  for (let pass = 0; pass < 3; pass++) {
    for (const role of roles) {
      const rules = aggregateRules(role, roles);
      if (rules) role.rules = structuredClone(rules);
    }
  }
  return roles;
}

export function defaultClusterRoleBindings(): Binding[] {
  return [
    clusterBinding('cluster-admin', [group('system:masters')]),
    clusterBinding('system:basic-user', [group('system:authenticated')]),
    clusterBinding('system:discovery', [group('system:authenticated')]),
    clusterBinding('system:public-info-viewer', [group('system:authenticated'), group('system:unauthenticated')]),
    clusterBinding('system:monitoring', [group('system:monitoring')]),
    clusterBinding('system:service-account-issuer-discovery', [group('system:serviceaccounts')]),
    clusterBinding('system:node-proxier', [user('system:proxy')]),
    clusterBinding('system:scheduler', [user('system:scheduler')]),
    clusterBinding('system:controller-manager', [user('system:controller-manager')]),
    ...controllerClusterRoleBindings(),
  ];
}

/**
 * Both lists, roles first so that bindings never point at a role not yet written, then the namespaced
 * Roles and RoleBindings of the controllers (in namespaces the server creates before reconciling).
 */
export function defaultRbacObjects(): ApiObject[] {
  return [...defaultClusterRoles(), ...defaultClusterRoleBindings(), ...controllerNamespacedRbac()];
}
