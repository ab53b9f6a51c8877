/**
 * Escalation prevention (spec 5.8): a caller may write a role only if it already holds every permission
 * in it at the same scope. Requested rules are broken into atomic permissions and each must be covered
 * by one of the owner's rules, as the reference's Covers does.
 */
import { visitRulesFor, type RbacSource } from './authorizer.js';
import { EMPTY, type Rule, type UserInfo } from './types.js';

/** One permission per apiGroup × resource × verb (× resourceName), and per nonResourceURL × verb. */
export function breakdownRule(rule: Rule): Rule[] {
  const out: Rule[] = [];
  for (const group of rule.apiGroups ?? EMPTY) {
    for (const resource of rule.resources ?? EMPTY) {
      for (const verb of rule.verbs ?? EMPTY) {
        const names = rule.resourceNames ?? EMPTY;
        if (names.length === 0) out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
        for (const n of names) out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [n] });
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? EMPTY) {
    for (const verb of rule.verbs ?? EMPTY) out.push({ nonResourceURLs: [url], verbs: [verb] });
  }
  return out;
}

const hasAll = (set: readonly string[], wanted: readonly string[]) => wanted.every((w) => set.includes(w));
const starOrAll = (set: readonly string[] | undefined, wanted: readonly string[] | undefined) =>
  (set ?? EMPTY).includes('*') || hasAll(set ?? EMPTY, wanted ?? EMPTY);

/** A resource is covered by `*`, by itself, or (a subresource) by `*\/<sub>` or `<resource>/*`. */
function resourcesCovered(owner: readonly string[], wanted: readonly string[]): boolean {
  if (owner.includes('*')) return true;
  return wanted.every((path) => {
    if (owner.includes(path)) return true;
    const slash = path.indexOf('/');
    if (slash < 0) return false;
    return owner.includes(`*/${path.slice(slash + 1)}`) || owner.includes(`${path.slice(0, slash)}/*`);
  });
}

const urlCovers = (owner: string, path: string) =>
  owner === path || (owner.endsWith('*') && path.startsWith(owner.replace(/\*+$/, '')));

/** Whether one owner rule covers every permission of `sub` (reference ruleCovers). */
export function ruleCovers(owner: Rule, sub: Rule): boolean {
  const ownerNames = owner.resourceNames ?? EMPTY;
  const subNames = sub.resourceNames ?? EMPTY;
  // An owner limited to names cannot grant the unrestricted permission; an unrestricted owner covers any name.
  const namesOk = subNames.length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, subNames);
  return (
    starOrAll(owner.verbs, sub.verbs) &&
    starOrAll(owner.apiGroups, sub.apiGroups) &&
    resourcesCovered(owner.resources ?? EMPTY, sub.resources ?? EMPTY) &&
    namesOk &&
    (sub.nonResourceURLs ?? EMPTY).every((p) => (owner.nonResourceURLs ?? EMPTY).some((o) => urlCovers(o, p)))
  );
}

/** Checks requested rules against the owner's; `uncovered` lists the missing atomic permissions. */
export function coveringRules(ownerRules: readonly Rule[], requestedRules: readonly Rule[]): { covered: boolean; uncovered: Rule[] } {
  const uncovered: Rule[] = [];
  for (const rule of requestedRules) {
    for (const atom of breakdownRule(rule)) {
      if (!ownerRules.some((o) => ruleCovers(o, atom))) uncovered.push(atom);
    }
  }
  return { covered: uncovered.length === 0, uncovered };
}

/** All rules granted to the user in `namespace` plus cluster-wide ones, with role resolution errors. */
export function resolveRulesForUser(source: RbacSource, user: UserInfo, namespace: string): { rules: Rule[]; errors: string[] } {
  const rules: Rule[] = [];
  const errors: string[] = [];
  visitRulesFor(source, user, namespace, (_origin, rule, error) => {
    if (rule) rules.push(rule);
    if (error !== undefined) errors.push(error);
    return true;
  });
  return { rules, errors };
}

/** All rules granted to the user in `namespace` plus cluster-wide (also what SelfSubjectRulesReview lists). */
export function rulesForUser(source: RbacSource, user: UserInfo, namespace: string): Rule[] {
  return resolveRulesForUser(source, user, namespace).rules;
}

const goQuoted = (list: readonly string[]) => `[${list.map((s) => JSON.stringify(s)).join(' ')}]`;

/** The reference's PolicyRule.CompactString, used in the escalation message. */
export function compactString(r: Rule): string {
  const parts: string[] = [];
  if (r.apiGroups?.length) parts.push(`APIGroups:${goQuoted(r.apiGroups)}`);
  if (r.resources?.length) parts.push(`Resources:${goQuoted(r.resources)}`);
  if (r.nonResourceURLs?.length) parts.push(`NonResourceURLs:${goQuoted(r.nonResourceURLs)}`);
  if (r.resourceNames?.length) parts.push(`ResourceNames:${goQuoted(r.resourceNames)}`);
  if (r.verbs?.length) parts.push(`Verbs:${goQuoted(r.verbs)}`);
  return `{${parts.join(', ')}}`;
}

/**
 * The whole check for a role write at `namespace` ('' for a ClusterRole). The caller skips it for holders
 * of the `escalate` verb on the role (spec 5.8); the message is the reference's Forbidden text.
 */
export function confirmNoEscalation(
  source: RbacSource,
  user: UserInfo,
  namespace: string,
  requested: readonly Rule[],
): { allowed: true } | { allowed: false; message: string } {
  const { rules, errors } = resolveRulesForUser(source, user, namespace);
  const { covered, uncovered } = coveringRules(rules, requested);
  if (covered) return { allowed: true };
  const missing = uncovered.map(compactString).sort().join('\n');
  let message = `user ${JSON.stringify(user.username)} (groups=${goQuoted(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${missing}`;
  if (errors.length) message += `; resolution errors: [${[...new Set(errors)].join(' ')}]`;
  return { allowed: false, message };
}
