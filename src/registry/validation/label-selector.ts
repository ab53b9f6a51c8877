/**
 * The reference's `ValidateLabelSelector` for structured selectors inside specs (workload, budget, network
 * policy and topology selectors): valid keys and values, values only where the operator takes them.
 */
import { isObject } from '../../api/types.js';
import { fieldError, type FieldError } from '../../errors/index.js';
import { validateLabels } from './metadata.js';
import { isLabelValue, isQualifiedName } from './names.js';

/** Field errors of a `LabelSelector` at `path`; an absent selector is fine (callers decide if it is required). */
export function validateLabelSelector(sel: unknown, path: string): FieldError[] {
  if (sel === undefined || sel === null) return [];
  if (!isObject(sel)) return [fieldError.typeInvalid(path, sel, 'must be of type object')];
  const errs = validateLabels(sel.matchLabels, `${path}.matchLabels`);
  const exprs = sel.matchExpressions;
  if (exprs === undefined || exprs === null) return errs;
  if (!Array.isArray(exprs)) return [...errs, fieldError.typeInvalid(`${path}.matchExpressions`, exprs, 'must be of type array')];
  exprs.forEach((expr: unknown, i) => {
    const at = `${path}.matchExpressions[${i}]`;
    if (!isObject(expr)) {
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
      errs.push(fieldError.invalid(`${at}.operator`, expr.operator ?? '', 'not a valid selector operator'));
    }
    if (expr.key !== undefined && typeof expr.key !== 'string') errs.push(fieldError.typeInvalid(`${at}.key`, expr.key, 'must be of type string'));
    const key = typeof expr.key === 'string' ? expr.key : '';
    for (const msg of isQualifiedName(key)) errs.push(fieldError.invalid(`${at}.key`, key, msg));
    values.forEach((v: unknown, j) => {
      if (typeof v !== 'string') errs.push(fieldError.typeInvalid(`${at}.values[${j}]`, v, 'must be of type string'));
      else for (const msg of isLabelValue(v)) errs.push(fieldError.invalid(`${at}.values[${j}]`, v, msg));
    });
  });
  return errs;
}
