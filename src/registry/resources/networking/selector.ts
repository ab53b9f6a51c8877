/**
 * Structured label selectors inside specs (NetworkPolicy pod and namespace selectors, CSIStorageCapacity
 * node topology): the reference's field rules, and the string form its tables print.
 */
import { fieldError, type FieldError } from '../../../errors/index.js';
import { isLabelValue, isQualifiedName, validateLabels } from '../../validation/index.js';
import { isRec } from '../events/fields.js';

const OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'];

/** Field errors of a `metav1.LabelSelector` at `path` (absent is fine: callers decide if it is required). */
export function validateLabelSelector(sel: unknown, path: string): FieldError[] {
  if (sel === undefined || sel === null) return [];
  if (!isRec(sel)) return [fieldError.typeInvalid(path, sel, 'must be of type object')];
  const errs = validateLabels(sel.matchLabels, `${path}.matchLabels`);
  const exprs = sel.matchExpressions;
  if (exprs === undefined || exprs === null) return errs;
  if (!Array.isArray(exprs)) return [...errs, fieldError.typeInvalid(`${path}.matchExpressions`, exprs, 'must be of type array')];
  exprs.forEach((expr: unknown, i) => {
    const at = `${path}.matchExpressions[${i}]`;
    if (!isRec(expr)) {
      errs.push(fieldError.typeInvalid(at, expr, 'must be of type object'));
      return;
    }
    const values = Array.isArray(expr.values) ? expr.values : [];
    if (expr.values !== undefined && expr.values !== null && !Array.isArray(expr.values)) {
      errs.push(fieldError.typeInvalid(`${at}.values`, expr.values, 'must be of type array'));
    }
    if (expr.operator === 'In' || expr.operator === 'NotIn') {
      if (values.length === 0) errs.push(fieldError.required(`${at}.values`, "Required value: must be specified when `operator` is 'In' or 'NotIn'"));
    } else if (expr.operator === 'Exists' || expr.operator === 'DoesNotExist') {
      if (values.length > 0) errs.push(fieldError.forbidden(`${at}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    } else {
      errs.push(fieldError.notSupported(`${at}.operator`, expr.operator ?? '', OPERATORS));
    }
    const key = typeof expr.key === 'string' ? expr.key : '';
    if (expr.key !== undefined && typeof expr.key !== 'string') errs.push(fieldError.typeInvalid(`${at}.key`, expr.key, 'must be of type string'));
    for (const msg of isQualifiedName(key)) errs.push(fieldError.invalid(`${at}.key`, key, msg));
    values.forEach((v: unknown, j) => {
      if (typeof v !== 'string') errs.push(fieldError.typeInvalid(`${at}.values[${j}]`, v, 'must be of type string'));
      else for (const msg of isLabelValue(v)) errs.push(fieldError.invalid(`${at}.values[${j}]`, v, msg));
    });
  });
  return errs;
}

/**
 * The reference's FormatLabelSelector: requirements sorted by key (`a=b`, `k in (x,y)`, `k notin (x)`,
 * `k`, `!k`), `<none>` when it selects everything or nothing.
 */
export function formatLabelSelector(sel: unknown): string {
  if (!isRec(sel)) return '<none>';
  const reqs: { key: string; text: string }[] = [];
  for (const [k, v] of Object.entries(isRec(sel.matchLabels) ? sel.matchLabels : {})) reqs.push({ key: k, text: `${k}=${String(v)}` });
  for (const e of Array.isArray(sel.matchExpressions) ? sel.matchExpressions : []) {
    if (!isRec(e) || typeof e.key !== 'string') continue;
    const values = (Array.isArray(e.values) ? e.values.map(String) : []).sort();
    if (e.operator === 'In') reqs.push({ key: e.key, text: `${e.key} in (${values.join(',')})` });
    else if (e.operator === 'NotIn') reqs.push({ key: e.key, text: `${e.key} notin (${values.join(',')})` });
    else if (e.operator === 'Exists') reqs.push({ key: e.key, text: e.key });
    else if (e.operator === 'DoesNotExist') reqs.push({ key: e.key, text: `!${e.key}` });
    else return '<error>';
  }
  reqs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return reqs.length === 0 ? '<none>' : reqs.map((r) => r.text).join(',');
}
