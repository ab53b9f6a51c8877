/**
 * Role, ClusterRole, RoleBinding and ClusterRoleBinding (spec 2.7). Roles use the default table
 * (Name, Created At); bindings show the role they grant and, wide, who gets it.
 */
import { RBAC_GROUP } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import { column } from '../../schema.js';
import type { ResourceType, Schema, Strategy, TableColumn } from '../../types.js';
import { isRec } from '../events/fields.js';
import { definitionSchema } from '../../reference-schema.js';
import { defaultBinding, validateBinding, validateBindingUpdate, validateClusterRole, validateRole } from './validation.js';

const roleSchema = definitionSchema('api.rbac.v1.Role');
const clusterRoleSchema = definitionSchema('api.rbac.v1.ClusterRole');
const roleBindingSchema = definitionSchema('api.rbac.v1.RoleBinding');
const clusterRoleBindingSchema = definitionSchema('api.rbac.v1.ClusterRoleBinding');

// No spec, so nothing for generation to track; create-on-update and last-write-wins updates are what
// the reference allows and what bootstrap reconciliation of the default roles relies on.
const common = {
  nameRule: 'path-segment',
  tracksGeneration: false,
  allowUnconditionalUpdate: true,
  allowCreateOnUpdate: true,
} as const;

const bindingStrategy = (namespaced: boolean): Strategy => ({
  ...common,
  prepareForCreate: defaultBinding,
  prepareForUpdate: (o) => defaultBinding(o),
  validate: (o) => validateBinding(o, namespaced),
  validateUpdate: validateBindingUpdate,
});

const subjects = (o: ApiObject): Record<string, unknown>[] => (Array.isArray(o.subjects) ? o.subjects.filter(isRec) : []);
const text = (v: unknown) => (typeof v === 'string' ? v : '');

/** Subjects of one kind, as kubectl lists them; service accounts as "namespace/name". */
function subjectList(kind: string) {
  return (o: ApiObject) =>
    subjects(o)
      .filter((s) => s.kind === kind)
      .map((s) => (kind === 'ServiceAccount' ? `${text(s.namespace)}/${text(s.name)}` : text(s.name)))
      .join(', ');
}

export const bindingColumns: TableColumn[] = [
  column('Role', 'string', 'The bound role.', (o) => {
    const ref = isRec(o.roleRef) ? o.roleRef : {};
    return `${text(ref.kind)}/${text(ref.name)}`;
  }),
  column('Users', 'string', 'Users in the binding', subjectList('User'), 1),
  column('Groups', 'string', 'Groups in the binding', subjectList('Group'), 1),
  column('ServiceAccounts', 'string', 'ServiceAccounts in the binding', subjectList('ServiceAccount'), 1),
];

function rbacType(kind: string, plural: string, namespaced: boolean, schema: Schema, strategy: Strategy, tableColumns: TableColumn[]): ResourceType {
  return {
    group: RBAC_GROUP,
    version: 'v1',
    kind,
    listKind: `${kind}List`,
    plural,
    singular: kind.toLowerCase(),
    shortNames: [],
    namespaced,
    subresources: [],
    schema,
    strategy,
    tableColumns,
    storageKey: `${RBAC_GROUP}/${plural}`,
  };
}

export const role = rbacType('Role', 'roles', true, roleSchema, { ...common, validate: validateRole }, []);
export const clusterRole = rbacType('ClusterRole', 'clusterroles', false, clusterRoleSchema, { ...common, validate: validateClusterRole }, []);
export const roleBinding = rbacType('RoleBinding', 'rolebindings', true, roleBindingSchema, bindingStrategy(true), bindingColumns);
export const clusterRoleBinding = rbacType(
  'ClusterRoleBinding',
  'clusterrolebindings',
  false,
  clusterRoleBindingSchema,
  bindingStrategy(false),
  bindingColumns,
);

export const rbacTypes: ResourceType[] = [role, clusterRole, roleBinding, clusterRoleBinding];
