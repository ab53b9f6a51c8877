/** OpenAPI schemas of the access-control objects (spec 2.7), field names per the public API reference. */
import { obj, objectSchema, str, stringMap } from '../../schema.js';
import type { Schema } from '../../types.js';

const atomicList = (items: Schema, description: string): Schema => ({
  type: 'array',
  description,
  items,
  'x-kubernetes-list-type': 'atomic',
});
const atomicObject = (schema: Schema): Schema => ({ ...schema, 'x-kubernetes-map-type': 'atomic' });

const policyRule = obj(
  {
    apiGroups: atomicList(str(), 'APIGroups is the name of the APIGroup that contains the resources. "" represents the core API group and "*" represents all API groups.'),
    nonResourceURLs: atomicList(str(), 'NonResourceURLs is a set of partial urls that a user should have access to. *s are allowed, but only as the full, final step in the path. Only valid in ClusterRoles.'),
    resourceNames: atomicList(str(), 'ResourceNames is an optional white list of names that the rule applies to. An empty set means that everything is allowed.'),
    resources: atomicList(str(), 'Resources is a list of resources this rule applies to. \'*\' represents all resources; subresources are written "<resource>/<subresource>".'),
    verbs: atomicList(str(), 'Verbs is a list of Verbs that apply to ALL the ResourceKinds contained in this rule. \'*\' represents all verbs.'),
  },
  'PolicyRule holds information that describes a policy rule, but does not contain information about who the rule applies to or which namespace the rule applies to.',
  ['verbs'],
);

const rules = (description: string) => atomicList(policyRule, description);

const labelSelectorRequirement = obj(
  {
    key: str('key is the label key that the selector applies to.'),
    operator: str("operator represents a key's relationship to a set of values. Valid operators are In, NotIn, Exists and DoesNotExist."),
    values: atomicList(str(), 'values is an array of string values. Non-empty for In and NotIn, empty for Exists and DoesNotExist.'),
  },
  'A label selector requirement is a selector that contains values, a key, and an operator that relates the key and values.',
  ['key', 'operator'],
);

export const labelSelector = atomicObject(
  obj(
    {
      matchExpressions: atomicList(labelSelectorRequirement, 'matchExpressions is a list of label selector requirements. The requirements are ANDed.'),
      matchLabels: stringMap('matchLabels is a map of {key,value} pairs; each is equivalent to a matchExpressions element with operator "In". The requirements are ANDed.'),
    },
    'A label selector is a label query over a set of resources. An empty label selector matches all objects.',
  ),
);

const roleRef = atomicObject(
  obj(
    {
      apiGroup: str('APIGroup is the group for the resource being referenced.'),
      kind: str('Kind is the type of resource being referenced: Role or ClusterRole.'),
      name: str('Name is the name of resource being referenced.'),
    },
    'RoleRef contains information that points to the role being used. It cannot be updated.',
    ['apiGroup', 'kind', 'name'],
  ),
);

const subject = atomicObject(
  obj(
    {
      apiGroup: str('APIGroup holds the API group of the referenced subject. "" for ServiceAccount subjects, the RBAC group for User and Group subjects.'),
      kind: str('Kind of object being referenced: "User", "Group", or "ServiceAccount".'),
      name: str('Name of the object being referenced.'),
      namespace: str('Namespace of the referenced object. Required for a ServiceAccount in a cluster-wide binding.'),
    },
    'Subject contains a reference to the object or user identities a role binding applies to.',
    ['kind', 'name'],
  ),
);

export const roleSchema = objectSchema(
  'Role is a namespaced, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding.',
  { rules: rules('Rules holds all the PolicyRules for this Role') },
);

export const clusterRoleSchema = objectSchema(
  'ClusterRole is a cluster level, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding or ClusterRoleBinding.',
  {
    aggregationRule: obj(
      {
        clusterRoleSelectors: atomicList(
          labelSelector,
          'ClusterRoleSelectors holds a list of selectors which will be used to find ClusterRoles and create the rules. If any of the selectors match, then the ClusterRole\'s permissions will be added.',
        ),
      },
      'AggregationRule is an optional field that describes how to build the Rules for this ClusterRole. If set, the controller manages the Rules and direct changes to Rules will be stomped.',
    ),
    rules: rules('Rules holds all the PolicyRules for this ClusterRole'),
  },
);

const bindingFields = (what: string) => ({
  roleRef: { ...roleRef, description: `RoleRef can reference ${what}. This field is immutable.` },
  subjects: atomicList(subject, 'Subjects holds references to the objects the role applies to.'),
});

export const roleBindingSchema = objectSchema(
  'RoleBinding references a role, but does not contain it. It adds who information via Subjects and namespace information by which namespace it exists in.',
  bindingFields('a Role in the current namespace or a ClusterRole in the global namespace'),
  ['roleRef'],
);

export const clusterRoleBindingSchema = objectSchema(
  'ClusterRoleBinding references a ClusterRole, but not contain it. It can reference a ClusterRole in the global namespace, and adds who information via Subject.',
  bindingFields('a ClusterRole in the global namespace'),
  ['roleRef'],
);
