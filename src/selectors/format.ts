/**
 * Label selectors as the reference prints them (`labels.Selector.String()`): the `status.selector` of a
 * Scale and the SELECTOR column of workload tables. Pure functions over the JSON forms.
 */
import { isObject } from '../api/types.js';

interface Requirement {
  key: string;
  text: string;
}

const byKey = (a: Requirement, b: Requirement) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** One matchExpressions entry; undefined for an operator the reference rejects. */
function expressionText(key: string, operator: unknown, values: string[]): string | undefined {
  const list = `(${[...values].sort().join(',')})`;
  switch (operator) {
    case 'In':
      return `${key} in ${list}`;
    case 'NotIn':
      return `${key} notin ${list}`;
    case 'Exists':
      return key;
    case 'DoesNotExist':
      return `!${key}`;
    default:
      return undefined;
  }
}

/**
 * A structured selector (`matchLabels` + `matchExpressions`) as a string, e.g. `app=web,tier in (a,b)`:
 * requirements sorted by key, values sorted. `''` for a missing or empty selector (the reference prints
 * both as empty) and undefined for one it could not convert (an unknown operator).
 */
export function labelSelectorString(selector: unknown): string | undefined {
  if (!isObject(selector)) return '';
  const reqs: Requirement[] = [];
  const matchLabels = isObject(selector.matchLabels) ? selector.matchLabels : {};
  for (const [key, value] of Object.entries(matchLabels)) reqs.push({ key, text: `${key}=${String(value)}` });
  const exprs = Array.isArray(selector.matchExpressions) ? selector.matchExpressions : [];
  for (const e of exprs) {
    if (!isObject(e)) return undefined;
    const key = typeof e.key === 'string' ? e.key : '';
    const text = expressionText(key, e.operator, strings(e.values));
    if (text === undefined) return undefined;
    reqs.push({ key, text });
  }
  return reqs.sort(byKey).map((r) => r.text).join(',');
}

/** A plain label map (ReplicationController selectors, node selectors) as `a=b,c=d`, sorted by key. */
export function labelMapString(labels: unknown): string {
  if (!isObject(labels)) return '';
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}=${String(labels[k])}`)
    .join(',');
}

/** The table form: `<none>` for an empty selector, `<error>` for one that does not convert. */
export function formatLabelSelector(selector: unknown): string {
  const s = labelSelectorString(selector);
  if (s === undefined) return '<error>';
  return s === '' ? '<none>' : s;
}

/** The table form of a label map: `<none>` when empty. */
export function formatLabelMap(labels: unknown): string {
  return labelMapString(labels) || '<none>';
}
