/**
 * Validation and defaulting of roles and bindings (spec 2.7), with the reference server's rules and wording.
 */
import { RBAC_GROUP } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { isDNS1123Subdomain, isLabelValue, isPathSegmentName, isQualifiedName, validateLabels } from '../../validation/index.js';
import { FieldReader, isRec, type Rec } from '../events/fields.js';

export const SUBJECT_KINDS = ['ServiceAccount', 'User', 'Group'] as const;

/**
 * One rule: verbs always; then either non-resource URLs (cluster roles only, never mixed with resources)
 * or apiGroups plus resources, where resourceNames may narrow the resources.
 */
function validatePolicyRule(r: FieldReader, rule: Rec, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const verbs = r.strList(rule, 'verbs', `${path}.verbs`);
  const apiGroups = r.strList(rule, 'apiGroups', `${path}.apiGroups`);
  const resources = r.strList(rule, 'resources', `${path}.resources`);
  const resourceNames = r.strList(rule, 'resourceNames', `${path}.resourceNames`);
  const urls = r.strList(rule, 'nonResourceURLs', `${path}.nonResourceURLs`);

  if (verbs.length === 0) errs.push(fieldError.required(`${path}.verbs`, 'Required value: verbs must contain at least one value'));

  if (urls.length > 0) {
    const urlPath = `${path}.nonResourceURLs`;
    if (namespaced) errs.push(fieldError.invalid(urlPath, urls, 'namespaced rules cannot apply to non-resource URLs'));
    if (apiGroups.length > 0 || resources.length > 0 || resourceNames.length > 0) {
      errs.push(fieldError.invalid(urlPath, urls, 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    // A lone "*" is every path (the cluster-admin rule); anything else is a path, maybe ending in "*".
    urls.forEach((url, i) => {
      if (url !== '*' && !url.startsWith('/')) errs.push(fieldError.invalid(`${urlPath}[${i}]`, url, "must begin with '/' or be '*'"));
    });
    return errs;
  }
  if (apiGroups.length === 0) {
    errs.push(fieldError.required(`${path}.apiGroups`, 'Required value: resource rules must supply at least one api group'));
  }
  if (resources.length === 0) {
    errs.push(fieldError.required(`${path}.resources`, 'Required value: resource rules must supply at least one resource'));
  }
  return errs;
}

function validateRules(r: FieldReader, o: ApiObject, namespaced: boolean): FieldError[] {
  return r.list(o, 'rules', 'rules').flatMap((rule, i) => {
    const path = `rules[${i}]`;
    if (!isRec(rule)) return [fieldError.typeInvalid(path, rule, 'must be of type object')];
    return validatePolicyRule(r, rule, namespaced, path);
  });
}

export function validateRole(o: ApiObject): FieldError[] {
  const r = new FieldReader();
  const errs = validateRules(r, o, true);
  return [...r.errors, ...errs];
}

const SELECTOR_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'];

/** The reference's structured label selector rules: valid keys and values, values only where the operator needs them. */
function validateLabelSelector(r: FieldReader, sel: Rec, path: string): FieldError[] {
  const errs = validateLabels(sel.matchLabels, `${path}.matchLabels`);
  r.list(sel, 'matchExpressions', `${path}.matchExpressions`).forEach((expr, i) => {
    const at = `${path}.matchExpressions[${i}]`;
    if (!isRec(expr)) {
      errs.push(fieldError.typeInvalid(at, expr, 'must be of type object'));
      return;
    }
    const operator = r.str(expr, 'operator', `${at}.operator`);
    const values = r.strList(expr, 'values', `${at}.values`);
    if (operator === 'In' || operator === 'NotIn') {
      if (values.length === 0) errs.push(fieldError.required(`${at}.values`, "Required value: must be specified when `operator` is 'In' or 'NotIn'"));
    } else if (operator === 'Exists' || operator === 'DoesNotExist') {
      if (values.length > 0) errs.push(fieldError.forbidden(`${at}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    } else {
      errs.push(fieldError.notSupported(`${at}.operator`, operator, SELECTOR_OPERATORS));
    }
    const key = r.str(expr, 'key', `${at}.key`);
    for (const msg of isQualifiedName(key)) errs.push(fieldError.invalid(`${at}.key`, key, msg));
    values.forEach((v, j) => {
      for (const msg of isLabelValue(v)) errs.push(fieldError.invalid(`${at}.values[${j}]`, v, msg));
    });
  });
  return errs;
}

export function validateClusterRole(o: ApiObject): FieldError[] {
  const r = new FieldReader();
  const errs = validateRules(r, o, false);
  const aggregation = r.obj(o, 'aggregationRule', 'aggregationRule');
  if (aggregation) {
    const path = 'aggregationRule.clusterRoleSelectors';
    const selectors = r.list(aggregation, 'clusterRoleSelectors', path);
    if (selectors.length === 0) {
      errs.push(fieldError.required(path, 'Required value: at least one clusterRoleSelector required if aggregationRule is non-nil'));
    }
    selectors.forEach((sel, i) => {
      if (isRec(sel)) errs.push(...validateLabelSelector(r, sel, `${path}[${i}]`));
      else errs.push(fieldError.typeInvalid(`${path}[${i}]`, sel, 'must be of type object'));
    });
  }
  return [...r.errors, ...errs];
}

/** Subjects: a name always; users and groups in the RBAC group; service accounts in the core group with a namespace where needed. */
function validateSubject(r: FieldReader, s: Rec, namespacedBinding: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = r.str(s, 'name', `${path}.name`);
  const kind = r.str(s, 'kind', `${path}.kind`);
  const apiGroup = r.str(s, 'apiGroup', `${path}.apiGroup`);
  const namespace = r.str(s, 'namespace', `${path}.namespace`);
  if (name === '') errs.push(fieldError.required(`${path}.name`));
  switch (kind) {
    case 'ServiceAccount':
      if (name !== '') for (const msg of isDNS1123Subdomain(name)) errs.push(fieldError.invalid(`${path}.name`, name, msg));
      if (apiGroup !== '') errs.push(fieldError.notSupported(`${path}.apiGroup`, apiGroup, ['']));
      // In a RoleBinding the service account defaults to the binding's namespace; cluster-wide it must be named.
      if (!namespacedBinding && namespace === '') errs.push(fieldError.required(`${path}.namespace`));
      break;
    case 'User':
    case 'Group':
      if (apiGroup !== RBAC_GROUP) errs.push(fieldError.notSupported(`${path}.apiGroup`, apiGroup, [RBAC_GROUP]));
      break;
    default:
      errs.push(fieldError.notSupported(`${path}.kind`, kind, SUBJECT_KINDS));
  }
  return errs;
}

/** RoleBinding (namespaced) may refer to a Role or ClusterRole; ClusterRoleBinding only to a ClusterRole. */
export function validateBinding(o: ApiObject, namespaced: boolean): FieldError[] {
  const r = new FieldReader();
  const errs: FieldError[] = [];
  const ref = r.obj(o, 'roleRef', 'roleRef');
  if (!ref) {
    if (!r.errors.length) errs.push(fieldError.required('roleRef'));
  } else {
    const apiGroup = r.str(ref, 'apiGroup', 'roleRef.apiGroup');
    if (apiGroup !== RBAC_GROUP) errs.push(fieldError.notSupported('roleRef.apiGroup', apiGroup, [RBAC_GROUP]));
    const kind = r.str(ref, 'kind', 'roleRef.kind');
    const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
    if (!kinds.includes(kind)) errs.push(fieldError.notSupported('roleRef.kind', kind, kinds));
    const name = r.str(ref, 'name', 'roleRef.name');
    if (name === '') errs.push(fieldError.required('roleRef.name'));
    else for (const msg of isPathSegmentName(name)) errs.push(fieldError.invalid('roleRef.name', name, msg));
  }
  r.list(o, 'subjects', 'subjects').forEach((s, i) => {
    if (isRec(s)) errs.push(...validateSubject(r, s, namespaced, `subjects[${i}]`));
    else errs.push(fieldError.typeInvalid(`subjects[${i}]`, s, 'must be of type object'));
  });
  return [...r.errors, ...errs];
}

const refKey = (o: ApiObject) => {
  const ref = isRec(o.roleRef) ? o.roleRef : {};
  return ['apiGroup', 'kind', 'name'].map((k) => (typeof ref[k] === 'string' ? ref[k] : ''));
};

/** A binding's role reference is fixed at creation (spec 2.7): delete and recreate to point elsewhere. */
export function validateBindingUpdate(o: ApiObject, old: ApiObject): FieldError[] {
  const [next, prev] = [refKey(o), refKey(old)];
  if (next.every((v, i) => v === prev[i])) return [];
  return [fieldError.invalid('roleRef', o.roleRef ?? null, 'cannot change roleRef')];
}

/** The reference's v1 defaults: roleRef and User/Group subjects are in the RBAC group unless stated. */
export function defaultBinding(o: ApiObject): void {
  if (isRec(o.roleRef) && !o.roleRef.apiGroup) o.roleRef.apiGroup = RBAC_GROUP;
  if (!Array.isArray(o.subjects)) return;
  for (const s of o.subjects) {
    if (isRec(s) && !s.apiGroup && (s.kind === 'User' || s.kind === 'Group')) s.apiGroup = RBAC_GROUP;
  }
}
