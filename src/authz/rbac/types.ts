/**
 * Shapes of the access-control objects (spec 2.7) as the authorizer reads them. Objects stay plain JSON
 * (architecture rule 4); these types only name the fields RBAC looks at, and the accessors tolerate
 * missing fields because stored objects come from validated but arbitrary JSON.
 */
import type { ApiObject } from '../../api/types.js';
import type { Attributes } from '../index.js';
import type { LabelSelectorObject } from '../../selectors/index.js';

export interface Rule {
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  verbs: string[];
  nonResourceURLs?: string[];
}

export interface Subject {
  kind: string;
  name: string;
  apiGroup?: string;
  namespace?: string;
}

export interface RoleRef {
  kind: string;
  name: string;
  apiGroup?: string;
}

export interface Role extends ApiObject {
  rules?: Rule[];
}

export interface ClusterRole extends Role {
  aggregationRule?: { clusterRoleSelectors?: LabelSelectorObject[] } | null;
}

export interface Binding extends ApiObject {
  subjects?: Subject[];
  roleRef: RoleRef;
}

export type RoleBinding = Binding;
export type ClusterRoleBinding = Binding;

export type UserInfo = Attributes['user'];

/** The request attributes a rule is matched against. */
export type RuleAttributes = Pick<Attributes, 'verb' | 'isResourceRequest' | 'path' | 'apiGroup' | 'resource' | 'subresource' | 'name'>;

export const EMPTY: readonly string[] = Object.freeze([]);

export const rulesOf = (o: ApiObject | undefined): Rule[] => (o && Array.isArray(o.rules) ? (o.rules as Rule[]) : []);
export const subjectsOf = (o: ApiObject): Subject[] => (Array.isArray(o.subjects) ? (o.subjects as Subject[]) : []);
export const nameOf = (o: ApiObject): string => o.metadata?.name ?? '';
export const namespaceOf = (o: ApiObject): string => o.metadata?.namespace ?? '';

/** The service account user name (spec 2.7 reserved identity names). */
export const serviceAccountUsername = (namespace: string, name: string) => `system:serviceaccount:${namespace}:${name}`;

/** Order-sensitive equality of two rules, with an absent list equal to an empty one. */
export function ruleEquals(a: Rule, b: Rule): boolean {
  const same = (x: readonly string[] | undefined, y: readonly string[] | undefined) => {
    const [p, q] = [x ?? EMPTY, y ?? EMPTY];
    return p.length === q.length && p.every((v, i) => v === q[i]);
  };
  return (
    same(a.verbs, b.verbs) &&
    same(a.apiGroups, b.apiGroups) &&
    same(a.resources, b.resources) &&
    same(a.resourceNames, b.resourceNames) &&
    same(a.nonResourceURLs, b.nonResourceURLs)
  );
}
