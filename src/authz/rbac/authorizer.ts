/**
 * The RBAC authorizer (spec 5.7, 5.8): allow when a ClusterRoleBinding, or a RoleBinding in the request's
 * namespace, grants a matching rule to the user; otherwise no opinion, so later modes may still decide.
 * It reads through RbacSource, a small synchronous interface the wiring backs with an RbacIndex kept
 * current from storage watches; there is no I/O on the request path.
 */
import { RBAC_GROUP } from '../../api/naming.js';
import type { Attributes, Authorizer, Decision } from '../index.js';
import { ruleAllows } from './rules.js';
import {
  nameOf,
  namespaceOf,
  rulesOf,
  serviceAccountUsername,
  subjectsOf,
  type Binding,
  type ClusterRole,
  type ClusterRoleBinding,
  type Role,
  type RoleBinding,
  type RoleRef,
  type Rule,
  type Subject,
  type UserInfo,
} from './types.js';

export interface RbacSource {
  getRole(namespace: string, name: string): Role | undefined;
  getClusterRole(name: string): ClusterRole | undefined;
  listRoleBindings(namespace: string): RoleBinding[];
  listClusterRoleBindings(): ClusterRoleBinding[];
  /**
   * Optional fast paths: only the bindings that may name this user or one of its groups. When absent,
   * the full lists are scanned; either way each candidate is still checked subject by subject.
   */
  roleBindingsFor?(namespace: string, user: UserInfo): Iterable<RoleBinding>;
  clusterRoleBindingsFor?(user: UserInfo): Iterable<ClusterRoleBinding>;
}

/** Where a visited rule came from; described lazily because only an allow needs the text. */
export interface RuleOrigin {
  bindingKind: 'ClusterRoleBinding' | 'RoleBinding';
  binding: Binding;
  subject: Subject;
}

/** Return false to stop visiting. `error` is set (and `rule` not) when a binding's role cannot be resolved. */
export type RuleVisitor = (origin: RuleOrigin, rule: Rule | undefined, error?: string) => boolean;

/** The subject of the binding that names this user, if any (reference appliesToUser). */
export function subjectFor(user: UserInfo, subjects: readonly Subject[], bindingNamespace: string): Subject | undefined {
  for (const s of subjects) {
    if (s.kind === 'User') {
      if (s.name === user.username) return s;
    } else if (s.kind === 'Group') {
      if (user.groups.includes(s.name)) return s;
    } else if (s.kind === 'ServiceAccount') {
      // A RoleBinding may leave the namespace out to mean its own; a ClusterRoleBinding cannot.
      const ns = s.namespace || bindingNamespace;
      if (ns && user.username === serviceAccountUsername(ns, s.name)) return s;
    }
  }
  return undefined;
}

/** The rules a role reference resolves to, or the reference's not-found message. */
export function roleRefRules(source: RbacSource, ref: RoleRef, bindingNamespace: string): { rules: Rule[]; error?: string } {
  if (ref.kind === 'ClusterRole') {
    const r = source.getClusterRole(ref.name);
    return r ? { rules: rulesOf(r) } : { rules: [], error: `clusterrole.${RBAC_GROUP} ${JSON.stringify(ref.name)} not found` };
  }
  if (ref.kind === 'Role') {
    const r = bindingNamespace ? source.getRole(bindingNamespace, ref.name) : undefined;
    return r ? { rules: rulesOf(r) } : { rules: [], error: `role.${RBAC_GROUP} ${JSON.stringify(ref.name)} not found` };
  }
  return { rules: [], error: `unsupported role reference kind: ${JSON.stringify(ref.kind)}` };
}

/**
 * Visits every rule granted to the user: cluster-wide bindings first, then RoleBindings of `namespace`
 * (none when it is empty). Returns how many bindings were examined, which the tests use to prove that
 * an indexed source touches only the user's own bindings.
 */
export function visitRulesFor(source: RbacSource, user: UserInfo, namespace: string, visit: RuleVisitor): number {
  let examined = 0;
  const walk = (bindingKind: RuleOrigin['bindingKind'], bindings: Iterable<Binding>, ns: string): boolean => {
    for (const binding of bindings) {
      examined++;
      const subject = subjectFor(user, subjectsOf(binding), ns);
      if (!subject) continue;
      const origin: RuleOrigin = { bindingKind, binding, subject };
      const { rules, error } = roleRefRules(source, binding.roleRef ?? { kind: '', name: '' }, ns);
      if (error !== undefined && !visit(origin, undefined, error)) return false;
      for (const rule of rules) if (!visit(origin, rule)) return false;
    }
    return true;
  };
  const cluster = source.clusterRoleBindingsFor?.(user) ?? source.listClusterRoleBindings();
  if (!walk('ClusterRoleBinding', cluster, '')) return examined;
  if (namespace) walk('RoleBinding', source.roleBindingsFor?.(namespace, user) ?? source.listRoleBindings(namespace), namespace);
  return examined;
}

function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === 'ServiceAccount') return `${s.kind} ${JSON.stringify(`${s.name}/${s.namespace || bindingNamespace}`)}`;
  return `${s.kind} ${JSON.stringify(s.name)}`;
}

/** The reference's "allowed by" text, e.g. `RoleBinding "b/ns" of ClusterRole "edit" to User "alice"`. */
export function describeOrigin(o: RuleOrigin): string {
  const ns = namespaceOf(o.binding);
  const name = o.bindingKind === 'RoleBinding' ? `${nameOf(o.binding)}/${ns}` : nameOf(o.binding);
  const ref = o.binding.roleRef ?? { kind: '', name: '' };
  return `${o.bindingKind} ${JSON.stringify(name)} of ${ref.kind} ${JSON.stringify(ref.name)} to ${describeSubject(o.subject, ns)}`;
}

/** Go's utilerrors aggregate text: one message alone, several (deduplicated) in brackets. */
export function aggregateErrors(errors: readonly string[]): string {
  const unique = [...new Set(errors)];
  return unique.length === 1 ? (unique[0] ?? '') : `[${unique.join(', ')}]`;
}

export class RbacAuthorizer implements Authorizer {
  /** Bindings examined since construction; a cheap observable for tests and benchmarks. */
  bindingsExamined = 0;

  constructor(private readonly source: RbacSource) {}

  async authorize(a: Attributes): Promise<Decision> {
    return this.authorizeSync(a);
  }

  /** The same decision without a promise, for callers (reviews, benchmarks) already off the request path. */
  authorizeSync(a: Attributes): Decision {
    let allowedBy: RuleOrigin | undefined;
    const errors: string[] = [];
    this.bindingsExamined += visitRulesFor(this.source, a.user, a.namespace, (origin, rule, error) => {
      if (rule && ruleAllows(rule, a)) {
        allowedBy = origin;
        return false;
      }
      if (error !== undefined) errors.push(error);
      return true;
    });
    if (allowedBy) return { decision: 'allow', reason: `RBAC: allowed by ${describeOrigin(allowedBy)}` };
    return errors.length ? { decision: 'noOpinion', reason: `RBAC: ${aggregateErrors(errors)}` } : { decision: 'noOpinion' };
  }
}
