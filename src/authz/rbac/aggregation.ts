/**
 * ClusterRole aggregation (spec 2.7): an aggregated role's rules are the union of the rules of every
 * ClusterRole its selectors match. Pure, so the aggregation controller and the defaults share it.
 */
import { labelSelectorFromObject, matchesLabels, nothing, type LabelSelector } from '../../selectors/index.js';
import { nameOf, ruleEquals, rulesOf, type ClusterRole, type Rule } from './types.js';

// An invalid stored selector selects nothing rather than failing the whole aggregation.
function selector(obj: unknown): LabelSelector {
  try {
    return labelSelectorFromObject(obj as Parameters<typeof labelSelectorFromObject>[0]);
  } catch {
    return nothing;
  }
}

/**
 * The rules `role` should hold: deduplicated, ordered by source role name and then rule order (so the
 * result is stable and rewrites happen only on real changes); undefined when the role is not aggregated.
 */
export function aggregateRules(role: ClusterRole, allClusterRoles: readonly ClusterRole[]): Rule[] | undefined {
  const agg = role.aggregationRule;
  if (agg === undefined || agg === null) return undefined;
  const selectors = (Array.isArray(agg.clusterRoleSelectors) ? agg.clusterRoleSelectors : []).map(selector);
  const self = nameOf(role);
  const sources = allClusterRoles
    .filter((r) => nameOf(r) !== self && selectors.some((s) => matchesLabels(s, r.metadata?.labels)))
    .sort((a, b) => (nameOf(a) < nameOf(b) ? -1 : nameOf(a) > nameOf(b) ? 1 : 0));
  const out: Rule[] = [];
  for (const r of sources) {
    for (const rule of rulesOf(r)) if (!out.some((o) => ruleEquals(o, rule))) out.push(rule);
  }
  return out;
}

/** Whether two rule lists are the same, in order (the controller writes only when they differ). */
export const sameRules = (a: readonly Rule[], b: readonly Rule[]) => a.length === b.length && a.every((r, i) => ruleEquals(r, b[i] as Rule));
