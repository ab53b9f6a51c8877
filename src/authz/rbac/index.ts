/** RBAC (spec 2.7, 5.7, 5.8): the authorizer, its in-memory index, and the pure helpers around it. */
export { ruleAllows, rulesAllow, verbMatches, apiGroupMatches, resourceMatches, resourceNameMatches, nonResourceURLMatches } from './rules.js';
export {
  RbacAuthorizer,
  visitRulesFor,
  subjectFor,
  roleRefRules,
  describeOrigin,
  aggregateErrors,
  type RbacSource,
  type RuleOrigin,
  type RuleVisitor,
} from './authorizer.js';
export { RbacIndex, type RbacKind } from './rbac-index.js';
export {
  coveringRules,
  breakdownRule,
  ruleCovers,
  rulesForUser,
  resolveRulesForUser,
  confirmNoEscalation,
  compactString,
} from './escalation.js';
export { aggregateRules, sameRules } from './aggregation.js';
export {
  defaultClusterRoles,
  defaultClusterRoleBindings,
  defaultRbacObjects,
  RBAC_API_VERSION,
  BOOTSTRAPPING_VALUE,
  AGGREGATE_TO_ADMIN_LABEL,
  AGGREGATE_TO_EDIT_LABEL,
  AGGREGATE_TO_VIEW_LABEL,
} from './defaults.js';
export { reconcile, roleRefChanged } from './reconcile.js';
export { benchAuthorize, type BenchResult } from './bench.js';
export {
  ruleEquals,
  serviceAccountUsername,
  type Rule,
  type Subject,
  type RoleRef,
  type Role,
  type ClusterRole,
  type Binding,
  type RoleBinding,
  type ClusterRoleBinding,
  type UserInfo,
  type RuleAttributes,
} from './types.js';
