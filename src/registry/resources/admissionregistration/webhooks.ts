/**
 * Validating and mutating webhook configurations (admissionregistration/v1), with the reference's rules
 * and wording. The webhooks are called by admission/webhook.
 */
import type { ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { isDNS1123Subdomain } from '../../validation/index.js';
import { FieldReader, type Rec } from '../events/fields.js';
import {
  FAILURE_POLICIES,
  isDNS1035Label,
  MATCH_POLICIES,
  objectItems,
  optionalEnum,
  required,
  validateClientConfig,
  validateLabelSelector,
  validateMatchConditions,
  validateRuleWithOperations,
} from './rules.js';
import { validateWebhookConditionExpressions } from './webhook-conditions.js';

/** v1 accepts only side-effect classes that are safe on dry run; `Some` and `Unknown` were v1beta1's. */
export const SIDE_EFFECT_CLASSES = ['None', 'NoneOnDryRun'] as const;
export const REINVOCATION_POLICIES = ['IfNeeded', 'Never'] as const;
/** AdmissionReview versions the server can send; a webhook must accept at least one. */
export const ADMISSION_REVIEW_VERSIONS = ['v1', 'v1beta1'] as const;
export const MIN_TIMEOUT_SECONDS = 1;
export const MAX_TIMEOUT_SECONDS = 30;

/** A webhook name is a DNS subdomain with at least three segments, e.g. `check.example.com`. */
export function fullyQualifiedNameErrors(name: string, path: string): FieldError[] {
  if (name === '') return [required(path)];
  const errs = isDNS1123Subdomain(name);
  if (errs.length > 0) return [fieldError.invalid(path, name, errs.join(','))];
  if (name.split('.').length < 3) return [fieldError.invalid(path, name, 'should be a domain with at least three segments separated by dots')];
  return [];
}

function validateReviewVersions(r: FieldReader, hook: Rec, path: string): FieldError[] {
  const versions = r.strList(hook, 'admissionReviewVersions', path);
  if (versions.length === 0) return [required(path, `must specify one of ${ADMISSION_REVIEW_VERSIONS.join(', ')}`)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(fieldError.invalid(`${path}[${i}]`, v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const msg of isDNS1035Label(v)) errs.push(fieldError.invalid(`${path}[${i}]`, v, msg));
  });
  if (!versions.some((v) => (ADMISSION_REVIEW_VERSIONS as readonly string[]).includes(v))) {
    errs.push(fieldError.invalid(path, versions, `must include at least one of ${ADMISSION_REVIEW_VERSIONS.join(', ')}`));
  }
  return errs;
}

function validateSideEffects(r: FieldReader, hook: Rec, path: string): FieldError[] {
  if (hook.sideEffects === undefined || hook.sideEffects === null) return [required(path, `must specify one of ${SIDE_EFFECT_CLASSES.join(', ')}`)];
  return optionalEnum(r, hook, 'sideEffects', path, SIDE_EFFECT_CLASSES);
}

function validateWebhook(r: FieldReader, hook: Rec, path: string, mutating: boolean): FieldError[] {
  const errs = fullyQualifiedNameErrors(r.str(hook, 'name', `${path}.name`), `${path}.name`);
  for (const [rule, at] of objectItems(r, hook, 'rules', `${path}.rules`, errs)) errs.push(...validateRuleWithOperations(r, rule, at));
  errs.push(...optionalEnum(r, hook, 'failurePolicy', `${path}.failurePolicy`, FAILURE_POLICIES));
  errs.push(...optionalEnum(r, hook, 'matchPolicy', `${path}.matchPolicy`, MATCH_POLICIES));
  errs.push(...validateSideEffects(r, hook, `${path}.sideEffects`));
  const timeout = r.int(hook, 'timeoutSeconds', `${path}.timeoutSeconds`);
  if (timeout !== undefined && (timeout < MIN_TIMEOUT_SECONDS || timeout > MAX_TIMEOUT_SECONDS)) {
    errs.push(fieldError.invalid(`${path}.timeoutSeconds`, timeout, 'the timeout value must be between 1 and 30 seconds'));
  }
  for (const key of ['namespaceSelector', 'objectSelector']) {
    const sel = r.obj(hook, key, `${path}.${key}`);
    if (sel) errs.push(...validateLabelSelector(r, sel, `${path}.${key}`));
  }
  if (mutating) errs.push(...optionalEnum(r, hook, 'reinvocationPolicy', `${path}.reinvocationPolicy`, REINVOCATION_POLICIES));
  errs.push(...validateClientConfig(r, hook, `${path}.clientConfig`));
  errs.push(...validateMatchConditions(r, hook, `${path}.matchConditions`));
  errs.push(...validateWebhookConditionExpressions(hook, `${path}.matchConditions`));
  errs.push(...validateReviewVersions(r, hook, `${path}.admissionReviewVersions`));
  return errs;
}

/** Every webhook valid on its own, and no two with one name. */
export function validateWebhookConfiguration(o: ApiObject, mutating: boolean): FieldError[] {
  const r = new FieldReader();
  const errs: FieldError[] = [];
  const names = new Set<string>();
  for (const [hook, at] of objectItems(r, o, 'webhooks', 'webhooks', errs)) {
    errs.push(...validateWebhook(r, hook, at, mutating));
    const name = typeof hook.name === 'string' ? hook.name : '';
    if (name !== '' && names.has(name)) errs.push(fieldError.duplicate(`${at}.name`, name));
    names.add(name);
  }
  return [...r.errors, ...errs];
}
