/**
 * Structured label selectors (`matchLabels` + `matchExpressions`) of webhook namespace and object
 * selectors, compiled once per configuration version into a predicate. The configuration was validated
 * when it was stored; what still fails here (a hand-edited store) is reported, never thrown at match time.
 */
import { isObject } from '../../api/types.js';

export type Labels = Readonly<Record<string, string>> | undefined;

export interface LabelSelector {
  /** `{}` or unset: matches everything, so callers skip fetching labels at all. */
  readonly empty: boolean;
  matches(labels: Labels): boolean;
}

type Requirement = (labels: Labels) => boolean;

const has = (labels: Labels, key: string) => labels !== undefined && Object.prototype.hasOwnProperty.call(labels, key);

function requirement(expr: unknown, at: string): Requirement {
  if (!isObject(expr)) throw new Error(`${at}: must be an object`);
  const { key, operator, values } = expr;
  if (typeof key !== 'string' || key === '') throw new Error(`${at}.key: must be a non-empty string`);
  const list = values === undefined || values === null ? [] : values;
  if (!Array.isArray(list) || !list.every((v) => typeof v === 'string')) throw new Error(`${at}.values: must be a list of strings`);
  const set = new Set(list as string[]);
  switch (operator) {
    case 'In':
      if (set.size === 0) throw new Error(`${at}.values: must be non-empty for operator In`);
      return (l) => has(l, key) && set.has((l as Record<string, string>)[key] as string);
    case 'NotIn':
      if (set.size === 0) throw new Error(`${at}.values: must be non-empty for operator NotIn`);
      return (l) => !has(l, key) || !set.has((l as Record<string, string>)[key] as string);
    case 'Exists':
      return (l) => has(l, key);
    case 'DoesNotExist':
      return (l) => !has(l, key);
    default:
      throw new Error(`${at}.operator: unsupported operator ${JSON.stringify(operator)}`);
  }
}

const MATCH_ALL: LabelSelector = { empty: true, matches: () => true };

/** Compiles a selector; throws an Error naming the bad field (relative to `path`). */
export function compileLabelSelector(sel: unknown, path: string): LabelSelector {
  if (sel === undefined || sel === null) return MATCH_ALL;
  if (!isObject(sel)) throw new Error(`${path}: must be an object`);
  const reqs: Requirement[] = [];
  const { matchLabels, matchExpressions } = sel;
  if (matchLabels !== undefined && matchLabels !== null) {
    if (!isObject(matchLabels)) throw new Error(`${path}.matchLabels: must be an object`);
    for (const [k, v] of Object.entries(matchLabels)) {
      if (typeof v !== 'string') throw new Error(`${path}.matchLabels[${k}]: must be a string`);
      reqs.push((l) => has(l, k) && (l as Record<string, string>)[k] === v);
    }
  }
  if (matchExpressions !== undefined && matchExpressions !== null) {
    if (!Array.isArray(matchExpressions)) throw new Error(`${path}.matchExpressions: must be a list`);
    matchExpressions.forEach((e, i) => reqs.push(requirement(e, `${path}.matchExpressions[${i}]`)));
  }
  if (reqs.length === 0) return MATCH_ALL;
  return { empty: false, matches: (labels) => reqs.every((r) => r(labels)) };
}
