/**
 * Tolerations read from text the API did not validate (a namespace annotation, a plugin configuration):
 * decoded into the fields a toleration has, and checked with the rules the API applies to a pod's
 * tolerations, each problem reported with its field path.
 */
import { isObject } from '../../api/types.js';
import { labelKeyErrors, labelValueErrors } from '../../selectors/index.js';
import type { Obj } from './pod-request.js';

const STRING_FIELDS = ['key', 'operator', 'value', 'effect'] as const;
const FIELDS: ReadonlySet<string> = new Set([...STRING_FIELDS, 'tolerationSeconds']);
const OPERATORS = ['Equal', 'Exists'];
const EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];
const quoted = (values: readonly string[]) => values.map((v) => `"${v}"`).join(', ');

/**
 * One toleration from decoded JSON: only the fields a toleration has, empty strings left out (as the API
 * writes them). Wrong types are reported into `errs`; `strict` also reports unknown fields.
 */
export function decodeToleration(raw: unknown, at: string, errs: string[], strict: boolean): Obj | undefined {
  if (!isObject(raw)) {
    errs.push(`${at}: must be an object`);
    return undefined;
  }
  const before = errs.length;
  const t: Obj = {};
  for (const [k, v] of Object.entries(raw)) {
    if (!FIELDS.has(k)) {
      if (strict) errs.push(`${at}.${k}: unknown field`);
      continue;
    }
    if (v === null || v === undefined) continue;
    if (k === 'tolerationSeconds') {
      if (typeof v !== 'number' || !Number.isSafeInteger(v)) errs.push(`${at}.tolerationSeconds: must be an integer`);
      else t.tolerationSeconds = v;
    } else if (typeof v !== 'string') errs.push(`${at}.${k}: must be a string`);
    else if (v !== '') t[k] = v;
  }
  return errs.length > before ? undefined : t;
}

/** The API's rules for a toleration (the ones a pod's `spec.tolerations[i]` must keep). */
export function tolerationErrors(t: Obj, at: string): string[] {
  const errs: string[] = [];
  const key = typeof t.key === 'string' ? t.key : '';
  const operator = typeof t.operator === 'string' ? t.operator : '';
  const value = typeof t.value === 'string' ? t.value : '';
  const effect = typeof t.effect === 'string' ? t.effect : '';
  if (key !== '') {
    const keyErrs = labelKeyErrors(key);
    if (keyErrs.length > 0) errs.push(`${at}.key: Invalid value: ${JSON.stringify(key)}: ${keyErrs.join('; ')}`);
  } else if (operator !== 'Exists') {
    errs.push(`${at}.operator: Invalid value: ${JSON.stringify(operator)}: operator must be Exists when \`key\` is empty, which means "match all values and all keys"`);
  }
  if (t.tolerationSeconds !== undefined && effect !== 'NoExecute') {
    errs.push(`${at}.effect: Invalid value: ${JSON.stringify(effect)}: effect must be 'NoExecute' when \`tolerationSeconds\` is set`);
  }
  if (operator === '' || operator === 'Equal') {
    const valueErrs = labelValueErrors(value);
    if (valueErrs.length > 0) errs.push(`${at}.value: Invalid value: ${JSON.stringify(value)}: ${valueErrs.join('; ')}`);
  } else if (operator === 'Exists') {
    if (value !== '') errs.push(`${at}.operator: Invalid value: ${JSON.stringify(value)}: value must be empty when \`operator\` is 'Exists'`);
  } else {
    errs.push(`${at}.operator: Unsupported value: ${JSON.stringify(operator)}: supported values: ${quoted(OPERATORS)}`);
  }
  if (effect !== '' && !EFFECTS.includes(effect)) errs.push(`${at}.effect: Unsupported value: ${JSON.stringify(effect)}: supported values: ${quoted(EFFECTS)}`);
  return errs;
}

/**
 * A list of tolerations from decoded JSON; throws an Error listing every problem. `strict` (configuration
 * files) refuses fields a toleration does not have and applies the API's rules; otherwise (annotations, which
 * the reference reads leniently) only wrong types are refused and the pod's own validation judges the rest.
 */
export function decodeTolerations(raw: unknown, at: string, strict: boolean): Obj[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new Error(`${at}: must be a list of tolerations`);
  const errs: string[] = [];
  const out: Obj[] = [];
  raw.forEach((item: unknown, i) => {
    const t = decodeToleration(item, `${at}[${i}]`, errs, strict);
    if (!t) return;
    if (strict) errs.push(...tolerationErrors(t, `${at}[${i}]`));
    out.push(t);
  });
  if (errs.length > 0) throw new Error(errs.join(', '));
  return out;
}
