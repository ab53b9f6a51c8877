/**
 * Rules shared by the workload types (Deployment, ReplicaSet, StatefulSet, DaemonSet, ReplicationController):
 * numeric fields, structured label selectors and their match with the template labels, int-or-percent
 * rollout limits, and the pod template rules of controllers whose pods always restart.
 */
import { isObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { jsonEqual } from '../../../patch/json.js';
import { labelSelectorFromObject, labelSelectorString, matchesLabels, type LabelSelector, type LabelSelectorObject } from '../../../selectors/index.js';
import type { ScaleRules } from '../../types.js';
import { regexError, validateLabelSelector } from '../../validation/index.js';
import { validatePodTemplate } from '../pods/template.js';

export type Obj = Record<string, unknown>;

export const rec = (v: unknown): Obj => (isObject(v) ? v : {});
export const isAbsent = (v: unknown): v is undefined | null => v === undefined || v === null;

const MAX_INT32 = 2147483647;
export const NEGATIVE_ERROR = 'must be greater than or equal to 0';

/** A whole number field that may not be negative (`ValidateNonnegativeField`); absent is fine. */
export function nonNegativeInt(errs: FieldError[], path: string, v: unknown): void {
  if (isAbsent(v)) return;
  if (typeof v !== 'number' || !Number.isInteger(v)) errs.push(fieldError.typeInvalid(path, v, 'must be an integer'));
  else if (v < 0) errs.push(fieldError.invalid(path, v, NEGATIVE_ERROR));
  else if (v > MAX_INT32) errs.push(fieldError.invalid(path, v, `must be less than or equal to ${MAX_INT32}`));
}

/** Fills `o[key]` when it is absent (a nil pointer in the reference's types). */
export function defaultValue(o: Obj, key: string, value: unknown): void {
  if (isAbsent(o[key])) o[key] = value;
}

/** Fills an enumerated string field when absent or empty. */
export function defaultString(o: Obj, key: string, value: string): void {
  if (isAbsent(o[key]) || o[key] === '') o[key] = value;
}

/** The nested object at `o[key]`, created when absent; undefined when it has another type (left to validation). */
export function child(o: Obj, key: string): Obj | undefined {
  if (isAbsent(o[key])) o[key] = {};
  const v = o[key];
  return isObject(v) ? v : undefined;
}


/** True for a selector object with no requirement at all (`{}`), which would select every pod. */
/**
 * A rolling-update strategy's defaults: `type` RollingUpdate, and for it `rollingUpdate` with the given
 * maxUnavailable and maxSurge (Deployment 25%/25%, DaemonSet 1/0).
 */
export function defaultRollingUpdate(strategy: Obj | undefined, maxUnavailable: unknown, maxSurge: unknown): void {
  if (!strategy) return;
  defaultString(strategy, 'type', 'RollingUpdate');
  if (strategy.type !== 'RollingUpdate') return;
  const rolling = child(strategy, 'rollingUpdate');
  if (rolling) {
    defaultValue(rolling, 'maxUnavailable', maxUnavailable);
    defaultValue(rolling, 'maxSurge', maxSurge);
  }
}

/** The scale subresource of a workload with a structured `spec.selector` and `spec.replicas`. */
export const STRUCTURED_SCALE: ScaleRules = {
  specReplicasPath: 'spec.replicas',
  statusReplicasPath: 'status.replicas',
  selector: (o) => labelSelectorString(rec(o.spec).selector) || undefined,
};

export function isEmptySelector(sel: Obj): boolean {
  const labels = isObject(sel.matchLabels) ? Object.keys(sel.matchLabels).length : 0;
  const exprs = Array.isArray(sel.matchExpressions) ? sel.matchExpressions.length : 0;
  return labels + exprs === 0;
}

export interface SelectorCheck {
  errors: FieldError[];
  /** The parsed selector, or undefined when it did not parse (then the template match is not checked). */
  selector?: LabelSelector;
}

export interface SelectorOptions {
  /** Names the type in `empty selector is invalid for <kind>`. */
  kind: string;
  /**
   * The detail of the extra error the reference adds when the selector does not convert (`invalid label
   * selector` for Deployment and ReplicaSet, none for StatefulSet); undefined adds none (DaemonSet).
   */
  unparsable?: string;
}

/**
 * `spec.selector` of an apps/v1 workload: required, valid, and not empty (`empty selector is invalid for
 * <kind>`). A missing selector parses to "matches nothing", so the template check still reports it.
 */
export function checkSelector(sel: unknown, path: string, opts: SelectorOptions): SelectorCheck {
  if (isAbsent(sel)) return { errors: [fieldError.required(path)], selector: labelSelectorFromObject(null) };
  const errors = validateLabelSelector(sel, path);
  let selector: LabelSelector | undefined;
  if (errors.length === 0 && isObject(sel)) {
    try {
      selector = labelSelectorFromObject(sel as LabelSelectorObject, path);
    } catch {
      selector = undefined;
    }
  }
  if (!selector && opts.unparsable !== undefined) errors.push(invalidWithDetail(path, sel, opts.unparsable));
  if (isObject(sel) && isEmptySelector(sel)) errors.push(fieldError.invalid(path, sel, `empty selector is invalid for ${opts.kind}`));
  return { errors, selector };
}

/** `field.Invalid` whose detail may be empty (then the message is only the value). */
function invalidWithDetail(path: string, value: unknown, detail: string): FieldError {
  if (detail) return fieldError.invalid(path, value, detail);
  return { type: 'FieldValueInvalid', field: path, message: `Invalid value: ${JSON.stringify(value)}` };
}

/** Template labels must be selected by the workload's selector (an empty selector is reported elsewhere). */
export function checkTemplateLabels(selector: LabelSelector | undefined, template: unknown, path: string): FieldError[] {
  if (!selector || (selector.requirements.length === 0 && !selector.matchesNothing)) return [];
  const labels = rec(rec(template).metadata).labels;
  const set: Record<string, string> = {};
  for (const [k, v] of Object.entries(rec(labels))) if (typeof v === 'string') set[k] = v;
  if (matchesLabels(selector, set)) return [];
  return [fieldError.invalid(`${path}.metadata.labels`, labels ?? {}, '`selector` does not match template `labels`')];
}

/**
 * The pod template of a controller that keeps its pods running (`ValidatePodTemplateSpecForReplicaSet` and
 * friends): the pod rules, plus restartPolicy Always and no activeDeadlineSeconds. `kind` names the controller
 * in the reference's message.
 */
export function validateRunningTemplate(template: unknown, path: string, kind: string): FieldError[] {
  const errs = validateTemplateSpec(template, path);
  const spec = rec(rec(template).spec);
  if (isObject(rec(template).spec)) {
    if (spec.restartPolicy !== 'Always') errs.push(fieldError.notSupported(`${path}.spec.restartPolicy`, spec.restartPolicy ?? '', ['Always']));
    if (!isAbsent(spec.activeDeadlineSeconds)) {
      errs.push(fieldError.forbidden(`${path}.spec.activeDeadlineSeconds`, `activeDeadlineSeconds in ${kind} is not Supported`));
    }
  }
  return errs;
}

/** `ValidatePodTemplateSpec`: the pod rules for the template, which may not carry ephemeral containers. */
export function validateTemplateSpec(template: unknown, path: string): FieldError[] {
  const errs = validatePodTemplate(template, path);
  const eph = rec(rec(template).spec).ephemeralContainers;
  if (Array.isArray(eph) && eph.length > 0) {
    errs.push(fieldError.forbidden(`${path}.spec.ephemeralContainers`, 'ephemeral containers not allowed in pod template'));
  }
  return errs;
}

// ---- int-or-percent rollout limits ----

const PERCENT_FMT = '[0-9]+%';
const PERCENT_RE = /^[0-9]+%$/;
const PERCENT_ERROR = regexError("a valid percent string must be a numeric string followed by an ending '%'", PERCENT_FMT, '1%', '93%');

/** The percent of a valid percent string, else undefined. */
function percentOf(v: unknown): number | undefined {
  return typeof v === 'string' && PERCENT_RE.test(v) ? Number(v.slice(0, -1)) : undefined;
}

/** The number the reference compares with zero: a percent's number, an integer, else 0. */
export function intOrPercentValue(v: unknown): number {
  const p = percentOf(v);
  if (p !== undefined) return p;
  if (typeof v === 'number') return v;
  // The reference reads any other string as a decimal integer (0 when it is not one).
  return typeof v === 'string' && /^[+-]?[0-9]+$/.test(v) ? Number(v) : 0;
}

/** `ValidatePositiveIntOrPercent`: a non-negative integer or a percent string. Absent is fine. */
export function validateIntOrPercent(errs: FieldError[], path: string, v: unknown): void {
  if (isAbsent(v)) return;
  if (typeof v === 'string') {
    if (!PERCENT_RE.test(v)) errs.push(fieldError.invalid(path, v, PERCENT_ERROR));
  } else if (typeof v === 'number' && Number.isInteger(v)) {
    nonNegativeInt(errs, path, v);
  } else {
    errs.push(fieldError.invalid(path, v, "must be an integer or percentage (e.g '5%')"));
  }
}

/** `IsNotMoreThan100Percent`. */
export function notOver100Percent(errs: FieldError[], path: string, v: unknown): void {
  const p = percentOf(v);
  if (p !== undefined && p > 100) errs.push(fieldError.invalid(path, v, 'must not be greater than 100%'));
}

// ---- update rules ----

/**
 * The reference compares specs semantically: a missing list or map equals an empty one. Dropping absent,
 * empty-list and empty-object members on both sides gives that comparison for JSON values.
 */
export function semanticallyEqual(a: unknown, b: unknown): boolean {
  return jsonEqual(normalize(a), normalize(b));
}

function normalize(v: unknown): unknown {
  if (Array.isArray(v)) return v.length === 0 ? undefined : v.map(normalize);
  if (!isObject(v)) return v === null ? undefined : v;
  const out: Obj = {};
  for (const [k, x] of Object.entries(v)) {
    const n = normalize(x);
    if (n !== undefined) out[k] = n;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

/** apps/v1 selectors never change after creation. */
export function immutableSelector(obj: Obj, old: Obj): FieldError[] {
  const sel = rec(obj.spec).selector;
  if (semanticallyEqual(sel, rec(old.spec).selector)) return [];
  return [fieldError.invalid('spec.selector', sel ?? null, 'field is immutable')];
}
