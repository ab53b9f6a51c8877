/**
 * ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding (admissionregistration/v1): the
 * reference's structural rules and wording; the CEL expressions are compiled by policy-expressions.ts.
 */
import type { ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { isDNS1123Label, isDNS1123Subdomain, isPathSegmentName, isQualifiedName } from '../../validation/index.js';
import { FieldReader, type Rec } from '../events/fields.js';
import { validatePolicyExpressions } from './policy-expressions.js';
import {
  FAILURE_POLICIES,
  isDNS1035Label,
  MATCH_POLICIES,
  objectItems,
  optionalEnum,
  required,
  validateLabelSelector,
  validateMatchConditions,
  validateRuleWithOperations,
} from './rules.js';

export const VALIDATION_REASONS = ['Forbidden', 'Invalid', 'RequestEntityTooLarge', 'Unauthorized'] as const;
export const VALIDATION_ACTIONS = ['Audit', 'Deny', 'Warn'] as const;
export const PARAM_NOT_FOUND_ACTIONS = ['Deny', 'Allow'] as const;
export const MAX_AUDIT_ANNOTATIONS = 20;
export const MAX_AUDIT_VALUE_EXPRESSION = 5 * 1024;

const CEL_RESERVED = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);
const isCELIdentifier = (s: string) => /^[_a-zA-Z][_a-zA-Z0-9]*$/.test(s) && !CEL_RESERVED.has(s);

/** `group/version` or `version`; more than one slash is an error. */
function validateParamKind(r: FieldReader, kind: Rec, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion = r.str(kind, 'apiVersion', `${path}.apiVersion`);
  if (apiVersion === '') errs.push(required(`${path}.apiVersion`));
  else if (apiVersion.split('/').length > 2) errs.push(fieldError.invalid(`${path}.apiVersion`, apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
  else if (apiVersion !== '/') {
    const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
    if (group) {
      const msgs = isDNS1123Subdomain(group);
      if (msgs.length > 0) errs.push(fieldError.invalid(`${path}.apiVersion`, group, msgs.join(',')));
    }
    if (!version) errs.push(fieldError.invalid(`${path}.apiVersion`, apiVersion, 'version must be specified'));
    else {
      const msgs = isDNS1035Label(version);
      if (msgs.length > 0) errs.push(fieldError.invalid(`${path}.apiVersion`, version, msgs.join(',')));
    }
  }
  const k = r.str(kind, 'kind', `${path}.kind`);
  if (k === '') errs.push(required(`${path}.kind`));
  else {
    const msgs = isDNS1035Label(k.toLowerCase());
    if (msgs.length > 0) errs.push(fieldError.invalid(`${path}.kind`, k, `may have mixed case, but should otherwise match: ${msgs.join(',')}`));
  }
  return errs;
}

/** A match block: policy and both selectors (defaulted when unset) and named rules with operations. */
function validateMatchResources(r: FieldReader, m: Rec, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (m.matchPolicy === undefined || m.matchPolicy === null) errs.push(required(`${path}.matchPolicy`));
  else errs.push(...optionalEnum(r, m, 'matchPolicy', `${path}.matchPolicy`, MATCH_POLICIES));
  for (const key of ['namespaceSelector', 'objectSelector']) {
    const sel = r.obj(m, key, `${path}.${key}`);
    if (sel) errs.push(...validateLabelSelector(r, sel, `${path}.${key}`));
    else errs.push(required(`${path}.${key}`));
  }
  for (const key of ['resourceRules', 'excludeResourceRules']) {
    for (const [rule, at] of objectItems(r, m, key, `${path}.${key}`, errs)) {
      const names = new Set<string>();
      r.strList(rule, 'resourceNames', `${at}.resourceNames`).forEach((n, i) => {
        for (const msg of isPathSegmentName(n)) errs.push(fieldError.invalid(`${at}.resourceNames[${i}]`, n, msg));
        if (names.has(n)) errs.push(fieldError.duplicate(`${at}.resourceNames[${i}]`, n));
        names.add(n);
      });
      errs.push(...validateRuleWithOperations(r, rule, at));
    }
  }
  return errs;
}

function validateValidation(r: FieldReader, v: Rec, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (r.str(v, 'expression', `${path}.expression`).trim() === '') errs.push(required(`${path}.expression`, 'expression is not specified'));
  const messageExpression = r.str(v, 'messageExpression', `${path}.messageExpression`);
  if (messageExpression !== '' && messageExpression.trim() === '') errs.push(fieldError.invalid(`${path}.messageExpression`, messageExpression, 'must be non-empty if specified'));
  errs.push(...optionalEnum(r, v, 'reason', `${path}.reason`, VALIDATION_REASONS));
  const message = r.str(v, 'message', `${path}.message`);
  if (message !== '' && message.trim() === '') errs.push(fieldError.invalid(`${path}.message`, message, 'message must be non-empty if specified'));
  else if (/[\r\n]/.test(message.trim())) errs.push(fieldError.invalid(`${path}.message`, message, 'message must not contain line breaks'));
  return errs;
}

function validateAuditAnnotations(r: FieldReader, spec: Rec, policyName: string, errs: FieldError[]): void {
  const annotations = objectItems(r, spec, 'auditAnnotations', 'spec.auditAnnotations', errs);
  if (annotations.length > MAX_AUDIT_ANNOTATIONS) {
    errs.push(fieldError.invalid('spec.auditAnnotations', spec.auditAnnotations, `must not have more than ${MAX_AUDIT_ANNOTATIONS} items`));
  }
  const keys = new Set<string>();
  for (const [a, at] of annotations) {
    const key = r.str(a, 'key', `${at}.key`);
    // The key becomes `<policy name>/<key>` on the audit event.
    if (policyName === '') errs.push(fieldError.invalid(`${at}.key`, key, 'requires metadata.name be non-empty'));
    else for (const msg of isQualifiedName(`${policyName}/${key}`)) errs.push(fieldError.invalid(`${at}.key`, `${policyName}/${key}`, msg));
    const value = r.str(a, 'valueExpression', `${at}.valueExpression`);
    if (value.trim() === '') errs.push(required(`${at}.valueExpression`, 'valueExpression is not specified'));
    else if (value.trim().length > MAX_AUDIT_VALUE_EXPRESSION) {
      errs.push(fieldError.invalid(`${at}.valueExpression`, value, `must not exceed ${MAX_AUDIT_VALUE_EXPRESSION} bytes in length`));
    }
    if (keys.has(key)) errs.push(fieldError.duplicate(`${at}.key`, key));
    keys.add(key);
  }
}

export function validatePolicy(o: ApiObject): FieldError[] {
  const r = new FieldReader();
  const errs: FieldError[] = [];
  const spec = r.obj(o, 'spec', 'spec') ?? {};
  if (spec.failurePolicy === undefined || spec.failurePolicy === null) errs.push(required('spec.failurePolicy'));
  else errs.push(...optionalEnum(r, spec, 'failurePolicy', 'spec.failurePolicy', FAILURE_POLICIES));
  const paramKind = r.obj(spec, 'paramKind', 'spec.paramKind');
  if (paramKind) errs.push(...validateParamKind(r, paramKind, 'spec.paramKind'));
  const match = r.obj(spec, 'matchConstraints', 'spec.matchConstraints');
  if (!match) errs.push(required('spec.matchConstraints'));
  else {
    errs.push(...validateMatchResources(r, match, 'spec.matchConstraints'));
    // At least one resource rule: it gives the expressions the type of the object they see.
    if (r.list(match, 'resourceRules', 'spec.matchConstraints.resourceRules').length === 0) errs.push(required('spec.matchConstraints.resourceRules'));
  }
  errs.push(...validateMatchConditions(r, spec, 'spec.matchConditions'));
  for (const [v, at] of objectItems(r, spec, 'variables', 'spec.variables', errs)) {
    const name = r.str(v, 'name', `${at}.name`);
    if (name.trim() === '') errs.push(required(`${at}.name`, 'name is not specified'));
    else if (!isCELIdentifier(name)) errs.push(fieldError.invalid(`${at}.name`, name, 'name is not a valid CEL identifier'));
    if (r.str(v, 'expression', `${at}.expression`).trim() === '') errs.push(required(`${at}.expression`, 'expression is not specified'));
  }
  const validations = objectItems(r, spec, 'validations', 'spec.validations', errs);
  const hasAudit = r.list(spec, 'auditAnnotations', 'spec.auditAnnotations').length > 0;
  if (validations.length === 0 && !hasAudit) {
    errs.push(required('spec.validations', 'validations or auditAnnotations must contain at least one item'));
    errs.push(required('spec.auditAnnotations', 'validations or auditAnnotations must contain at least one item'));
  } else {
    for (const [v, at] of validations) errs.push(...validateValidation(r, v, at));
    validateAuditAnnotations(r, spec, typeof o.metadata?.name === 'string' ? o.metadata.name : '', errs);
  }
  errs.push(...validatePolicyExpressions(spec));
  return [...r.errors, ...errs];
}

/** A binding's parameter: by name or by selector (not both), and what to do when none is found. */
function validateParamRef(r: FieldReader, ref: Rec, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = r.str(ref, 'name', `${path}.name`);
  const selector = r.obj(ref, 'selector', `${path}.selector`);
  if (name !== '') for (const msg of isPathSegmentName(name)) errs.push(fieldError.invalid(`${path}.name`, name, msg));
  const namespace = r.str(ref, 'namespace', `${path}.namespace`);
  if (namespace !== '') for (const msg of isDNS1123Label(namespace)) errs.push(fieldError.invalid(`${path}.namespace`, namespace, msg));
  const action = ref.parameterNotFoundAction;
  if (action === undefined || action === null || action === '') errs.push(required(`${path}.parameterNotFoundAction`));
  else errs.push(...optionalEnum(r, ref, 'parameterNotFoundAction', `${path}.parameterNotFoundAction`, PARAM_NOT_FOUND_ACTIONS));
  if (selector) errs.push(...validateLabelSelector(r, selector, `${path}.selector`));
  if (name !== '' && selector) errs.push(fieldError.forbidden(`${path}.name`, 'name and selector are mutually exclusive'));
  if (name === '' && !selector) errs.push(required(path, 'one of name or selector must be specified'));
  return errs;
}

/** One or more of Deny, Warn, Audit, each once; Deny and Warn together would report a failure twice. */
function validateActions(r: FieldReader, spec: Rec, path: string): FieldError[] {
  const actions = r.strList(spec, 'validationActions', path);
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  actions.forEach((a, i) => {
    if (!(VALIDATION_ACTIONS as readonly string[]).includes(a)) errs.push(fieldError.notSupported(`${path}[${i}]`, a, VALIDATION_ACTIONS));
    if (seen.has(a)) errs.push(fieldError.duplicate(`${path}[${i}]`, a));
    seen.add(a);
  });
  if (seen.has('Deny') && seen.has('Warn')) {
    errs.push(fieldError.invalid(path, actions, 'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)'));
  }
  if (seen.size === 0) errs.push(required(path, 'at least one validation action is required'));
  return errs;
}

export function validatePolicyBinding(o: ApiObject): FieldError[] {
  const r = new FieldReader();
  const errs: FieldError[] = [];
  const spec = r.obj(o, 'spec', 'spec') ?? {};
  const policyName = r.str(spec, 'policyName', 'spec.policyName');
  if (policyName === '') errs.push(required('spec.policyName'));
  else for (const msg of isDNS1123Subdomain(policyName)) errs.push(fieldError.invalid('spec.policyName', policyName, msg));
  const paramRef = r.obj(spec, 'paramRef', 'spec.paramRef');
  if (paramRef) errs.push(...validateParamRef(r, paramRef, 'spec.paramRef'));
  const match = r.obj(spec, 'matchResources', 'spec.matchResources');
  if (match) errs.push(...validateMatchResources(r, match, 'spec.matchResources'));
  errs.push(...validateActions(r, spec, 'spec.validationActions'));
  return [...r.errors, ...errs];
}
