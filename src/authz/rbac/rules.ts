/**
 * Matching one policy rule against request attributes (spec 2.7, 5.7), the way the reference's RuleAllows
 * does, so rules written for the reference mean the same here. Loops instead of array helpers: this runs
 * for every rule of every binding a request's user has.
 */
import { EMPTY, type Rule, type RuleAttributes } from './types.js';

function hasOrStar(list: readonly string[] | undefined, value: string): boolean {
  for (const v of list ?? EMPTY) if (v === '*' || v === value) return true;
  return false;
}

export const verbMatches = (rule: Rule, verb: string) => hasOrStar(rule.verbs, verb);
export const apiGroupMatches = (rule: Rule, group: string) => hasOrStar(rule.apiGroups, group);

/**
 * `*`, the exact `<resource>` or `<resource>/<subresource>`, `*\/<subresource>` (that subresource of any
 * resource) and `<resource>/*` (any subresource of that resource; not the resource itself).
 */
export function resourceMatches(rule: Rule, resource: string, subresource: string): boolean {
  const combined = subresource ? `${resource}/${subresource}` : resource;
  for (const r of rule.resources ?? EMPTY) {
    if (r === '*' || r === combined) return true;
    if (!subresource) continue;
    if (r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)) return true;
    if (r.length === resource.length + 2 && r.endsWith('/*') && r.startsWith(resource)) return true;
  }
  return false;
}

/** An empty list places no restriction; otherwise the request must name one of them (so list/create never match). */
export function resourceNameMatches(rule: Rule, name: string): boolean {
  const names = rule.resourceNames ?? EMPTY;
  if (names.length === 0) return true;
  return name !== '' && names.includes(name);
}

/** `*` alone is every path; a trailing `*` is a prefix match; anything else must be exact. */
export function nonResourceURLMatches(rule: Rule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? EMPTY) {
    if (u === '*' || u === path) return true;
    if (u.endsWith('*') && path.startsWith(u.replace(/\*+$/, ''))) return true;
  }
  return false;
}

export function ruleAllows(rule: Rule, a: RuleAttributes): boolean {
  if (!verbMatches(rule, a.verb)) return false;
  if (!a.isResourceRequest) return nonResourceURLMatches(rule, a.path);
  return apiGroupMatches(rule, a.apiGroup) && resourceMatches(rule, a.resource, a.subresource) && resourceNameMatches(rule, a.name);
}

export const rulesAllow = (rules: readonly Rule[], a: RuleAttributes) => rules.some((r) => ruleAllows(r, a));
