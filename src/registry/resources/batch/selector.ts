/**
 * Structured label selectors (`metav1.LabelSelector`) inside object specs: the reference's validation
 * wording and matching against a label set. Shared by the batch and policy types.
 */
import { isObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { labelSelectorFromObject, matchesLabels, type LabelSelectorObject } from '../../../selectors/index.js';
import { isLabelValue, isQualifiedName, validateLabels } from '../../validation/index.js';

/** `ValidateLabelSelector`: valid keys and values, values only where the operator takes them. */
export function validateLabelSelector(sel: unknown, path: string): FieldError[] {
  if (sel === undefined || sel === null) return [];
  if (!isObject(sel)) return [fieldError.typeInvalid(path, sel, 'must be an object')];
  const errs = validateLabels(sel.matchLabels, `${path}.matchLabels`);
  const exprs = sel.matchExpressions;
  if (exprs === undefined || exprs === null) return errs;
  if (!Array.isArray(exprs)) return [...errs, fieldError.typeInvalid(`${path}.matchExpressions`, exprs, 'must be an array')];
  exprs.forEach((e: unknown, i) => {
    const at = `${path}.matchExpressions[${i}]`;
    if (!isObject(e)) {
      errs.push(fieldError.typeInvalid(at, e, 'must be an object'));
      return;
    }
    const values = Array.isArray(e.values) ? e.values : [];
    if (e.operator === 'In' || e.operator === 'NotIn') {
      if (values.length === 0) errs.push(fieldError.required(`${at}.values`, "Required value: must be specified when `operator` is 'In' or 'NotIn'"));
    } else if (e.operator === 'Exists' || e.operator === 'DoesNotExist') {
      if (values.length > 0) errs.push(fieldError.forbidden(`${at}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    } else {
      errs.push(fieldError.invalid(`${at}.operator`, e.operator ?? '', 'not a valid selector operator'));
    }
    const key = typeof e.key === 'string' ? e.key : '';
    for (const msg of isQualifiedName(key)) errs.push(fieldError.invalid(`${at}.key`, key, msg));
    values.forEach((v: unknown, j) => {
      if (typeof v !== 'string') errs.push(fieldError.typeInvalid(`${at}.values[${j}]`, v, 'must be a string'));
      else for (const msg of isLabelValue(v)) errs.push(fieldError.invalid(`${at}.values[${j}]`, v, msg));
    });
  });
  return errs;
}

/**
 * Whether a structured selector selects `labels`: a missing selector selects nothing, `{}` everything.
 * An invalid selector (which validation reports) selects nothing.
 */
export function selectorMatches(sel: unknown, labels: unknown): boolean {
  if (!isObject(sel)) return false;
  try {
    const parsed = labelSelectorFromObject(sel as LabelSelectorObject);
    return matchesLabels(parsed, isObject(labels) ? (labels as Record<string, string>) : {});
  } catch {
    return false;
  }
}
