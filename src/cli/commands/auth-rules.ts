/**
 * Pure helpers of `auth can-i --list` and `auth whoami`: the rules a SelfSubjectRulesReview answers, broken
 * down to one group/resource (or one URL) each, merged again by verb and sorted the way the reference client
 * prints them, and the tab-aligned text both commands print.
 */

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** `status` of a SelfSubjectRulesReview. */
export interface RulesReviewStatus {
  resourceRules?: { verbs?: string[]; apiGroups?: string[]; resources?: string[]; resourceNames?: string[] }[];
  nonResourceRules?: { verbs?: string[]; nonResourceURLs?: string[] }[];
  incomplete?: boolean;
  evaluationError?: string;
}

export function rulesOfStatus(status: RulesReviewStatus): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const r of status.resourceRules ?? []) {
    out.push({ verbs: r.verbs ?? [], apiGroups: r.apiGroups ?? [], resources: r.resources ?? [], resourceNames: r.resourceNames ?? [] });
  }
  for (const r of status.nonResourceRules ?? []) out.push({ verbs: r.verbs ?? [], nonResourceURLs: r.nonResourceURLs ?? [] });
  return out;
}

/** One rule per group x resource (x resource name), and one per non-resource URL. */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      const names = rule.resourceNames ?? [];
      if (names.length === 0) out.push({ verbs: rule.verbs, apiGroups: [group], resources: [resource] });
      else for (const name of names) out.push({ verbs: rule.verbs, apiGroups: [group], resources: [resource], resourceNames: [name] });
    }
  }
  for (const url of rule.nonResourceURLs ?? []) out.push({ verbs: rule.verbs, nonResourceURLs: [url] });
  return out;
}

/**
 * Merges the verbs of rules that name the same single group, resource and (at most one) resource name;
 * other rules pass through unchanged. Merged rules follow the others, as in the reference.
 */
export function compactRules(rules: PolicyRule[]): PolicyRule[] {
  const passed: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const rule of rules) {
    const names = rule.resourceNames ?? [];
    const isSimple = names.length <= 1 && (rule.nonResourceURLs ?? []).length === 0 && rule.apiGroups?.length === 1 && rule.resources?.length === 1;
    if (!isSimple) {
      passed.push(rule);
      continue;
    }
    const key = JSON.stringify([rule.apiGroups![0], rule.resources![0], names.length > 0, names[0] ?? '']);
    const existing = simple.get(key);
    if (!existing) {
      simple.set(key, { ...rule, verbs: [...rule.verbs] });
      continue;
    }
    for (const verb of rule.verbs) if (!existing.verbs.includes(verb)) existing.verbs.push(verb);
  }
  return [...passed, ...simple.values()];
}

/** Go's `%v` of a string slice: `[a b c]`. */
export const goList = (items: readonly string[] | undefined): string => `[${(items ?? []).join(' ')}]`;

/** The sort key the reference uses: the rule's generated String() form, verbs first. */
function ruleSortKey(r: PolicyRule): string {
  return `&PolicyRule{Verbs:${goList(r.verbs)},APIGroups:${goList(r.apiGroups)},Resources:${goList(r.resources)},ResourceNames:${goList(r.resourceNames)},NonResourceURLs:${goList(r.nonResourceURLs)},}`;
}

/** Byte-wise comparison, as Go's strings.Compare. */
const compareStrings = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export function sortRules(rules: PolicyRule[]): PolicyRule[] {
  return rules
    .map((rule, index) => ({ rule, index, key: ruleSortKey(rule) }))
    .sort((a, b) => compareStrings(a.key, b.key) || a.index - b.index)
    .map((x) => x.rule);
}

/** `pods`, `deployments.apps`, `pods/log`, `deployments.apps/scale`: the first resource with its group. */
export function combineResourceGroup(resources: readonly string[] | undefined, groups: readonly string[] | undefined): string {
  if (!resources || resources.length === 0) return '';
  const [resource, sub] = splitOnce(resources[0]!, '/');
  let out = resource;
  if (groups && groups.length > 0 && groups[0] !== '') out += `.${groups[0]}`;
  if (sub !== undefined) out += `/${sub}`;
  return out;
}

function splitOnce(s: string, sep: string): [string, string | undefined] {
  const i = s.indexOf(sep);
  return i < 0 ? [s, undefined] : [s.slice(0, i), s.slice(i + 1)];
}

/** The rows of `auth can-i --list`, header first unless `noHeaders`. */
export function accessRows(status: RulesReviewStatus, noHeaders: boolean): string[][] {
  const broken = rulesOfStatus(status).flatMap(breakdownRule);
  const rows = sortRules(compactRules(broken)).map((r) => [combineResourceGroup(r.resources, r.apiGroups), goList(r.nonResourceURLs), goList(r.resourceNames), goList(r.verbs)]);
  return noHeaders ? rows : [['Resources', 'Non-Resource URLs', 'Resource Names', 'Verbs'], ...rows];
}

export interface UserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** The rows of `auth whoami`: only the attributes the server filled in, extras by sorted key. */
export function whoamiRows(user: UserInfo): string[][] {
  const rows: string[][] = [['ATTRIBUTE', 'VALUE']];
  if (user.username) rows.push(['Username', user.username]);
  if (user.uid) rows.push(['UID', user.uid]);
  if (user.groups && user.groups.length > 0) rows.push(['Groups', goList(user.groups)]);
  for (const key of Object.keys(user.extra ?? {}).sort(compareStrings)) rows.push([`Extra: ${key}`, goList(user.extra![key])]);
  return rows;
}

/**
 * Aligns rows as the reference's tab writer does (padding 3, the last cell never padded): each column is as
 * wide as its widest cell plus three spaces. Widths count characters, not UTF-16 units.
 */
export function alignColumns(rows: readonly (readonly string[])[]): string {
  const width = (s: string) => [...s].length;
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      if (i < row.length - 1) widths[i] = Math.max(widths[i] ?? 0, width(cell));
    });
  }
  return rows.map((row) => row.map((cell, i) => (i < row.length - 1 ? cell + ' '.repeat(widths[i]! - width(cell) + 3) : cell)).join('') + '\n').join('');
}
