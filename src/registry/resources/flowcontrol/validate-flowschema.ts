/**
 * FlowSchema validation with the reference's rules and wording: a priority level reference, a precedence
 * in 1..10000 (1 only for `exempt`), subjects of a known kind with their matching block, and rules that
 * name verbs, groups, resources and namespaces (or non-resource URLs). Mandatory schemas keep their spec.
 */
import type { ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { isDNS1123Label, isDNS1123Subdomain } from '../../validation/index.js';
import { objectItems, required } from '../admissionregistration/rules.js';
import { FieldReader, isRec, type Rec } from '../events/fields.js';
import { mandatorySpec } from './bootstrap.js';
import { DEFAULT_MATCHING_PRECEDENCE } from './defaults.js';

export const MAX_MATCHING_PRECEDENCE = 10000;
export const SUBJECT_KINDS = ['Group', 'ServiceAccount', 'User'] as const;
export const DISTINGUISHER_METHODS = ['ByNamespace', 'ByUser'] as const;
export const SUPPORTED_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'proxy', 'update', 'watch'] as const;

const NS_INTRO = "each member of this list must be '*' or a DNS-1123 label; ";

function validateVerbs(verbs: string[], path: string): FieldError[] {
  if (verbs.length === 0) return [required(path, 'verbs must contain at least one value')];
  if (verbs.includes('*')) return verbs.length > 1 ? [fieldError.invalid(path, verbs, "if '*' is present, must not specify other verbs")] : [];
  const unsupported = verbs.filter((v) => !(SUPPORTED_VERBS as readonly string[]).includes(v));
  return unsupported.length > 0 ? [fieldError.notSupported(path, verbs, SUPPORTED_VERBS)] : [];
}

/** One non-resource URL: "/", or a slash path without spaces or "//", with at most a trailing "/*". */
export function nonResourceURLError(url: string): string | undefined {
  if (url === '') return 'must not be empty';
  if (url === '/') return undefined;
  if (!url.startsWith('/')) return 'must start with slash';
  if (url.includes(' ')) return 'must not contain white-space';
  if (url.includes('//')) return 'must not contain double slash';
  const wildcards = url.split('*').length - 1;
  if (wildcards > 1 || (wildcards === 1 && !url.endsWith('/*'))) return 'wildcard can only do suffix glob matching';
  return undefined;
}

function validateResourceRule(r: FieldReader, rule: Rec, path: string): FieldError[] {
  const errs = validateVerbs(r.strList(rule, 'verbs', `${path}.verbs`), `${path}.verbs`);
  const apiGroups = r.strList(rule, 'apiGroups', `${path}.apiGroups`);
  if (apiGroups.length === 0) errs.push(required(`${path}.apiGroups`, 'resource rules must supply at least one api group'));
  else if (apiGroups.length > 1 && apiGroups.includes('*')) errs.push(fieldError.invalid(`${path}.apiGroups`, apiGroups, "if '*' is present, must not specify other api groups"));
  const resources = r.strList(rule, 'resources', `${path}.resources`);
  if (resources.length === 0) errs.push(required(`${path}.resources`, 'resource rules must supply at least one resource'));
  else if (resources.length > 1 && resources.includes('*')) errs.push(fieldError.invalid(`${path}.resources`, resources, "if '*' is present, must not specify other resources"));
  const namespaces = r.strList(rule, 'namespaces', `${path}.namespaces`);
  const clusterScope = rule.clusterScope === true;
  if (rule.clusterScope !== undefined && rule.clusterScope !== null && typeof rule.clusterScope !== 'boolean') {
    errs.push(fieldError.typeInvalid(`${path}.clusterScope`, rule.clusterScope, 'must be of type boolean'));
  }
  if (namespaces.length === 0 && !clusterScope) {
    errs.push(required(`${path}.namespaces`, 'resource rules that are not cluster scoped must supply at least one namespace'));
  } else if (namespaces.includes('*')) {
    if (namespaces.length > 1) errs.push(fieldError.invalid(`${path}.namespaces`, namespaces, "if '*' is present, must not specify other namespaces"));
  } else {
    namespaces.forEach((ns, i) => {
      for (const msg of isDNS1123Label(ns)) errs.push(fieldError.invalid(`${path}.namespaces[${i}]`, ns, NS_INTRO + msg));
    });
  }
  return errs;
}

function validateNonResourceRule(r: FieldReader, rule: Rec, path: string): FieldError[] {
  const errs = validateVerbs(r.strList(rule, 'verbs', `${path}.verbs`), `${path}.verbs`);
  const urls = r.strList(rule, 'nonResourceURLs', `${path}.nonResourceURLs`);
  if (urls.length === 0) errs.push(required(`${path}.nonResourceURLs`, 'nonResourceURLs must contain at least one value'));
  else if (urls.includes('*')) {
    if (urls.length > 1) errs.push(fieldError.invalid(`${path}.nonResourceURLs`, urls, "if '*' is present, must not specify other non-resource URLs"));
  } else {
    urls.forEach((url, i) => {
      const msg = nonResourceURLError(url);
      if (msg) errs.push(fieldError.invalid(`${path}.nonResourceURLs[${i}]`, url, msg));
    });
  }
  return errs;
}

/** A subject names exactly the block of its kind; the blocks of the other kinds are forbidden. */
function validateSubject(r: FieldReader, subject: Rec, path: string): FieldError[] {
  const kind = r.str(subject, 'kind', `${path}.kind`);
  const blocks = { ServiceAccount: 'serviceAccount', User: 'user', Group: 'group' } as const;
  if (!(kind in blocks)) return [fieldError.notSupported(`${path}.kind`, kind, SUBJECT_KINDS)];
  const own = blocks[kind as keyof typeof blocks];
  const errs: FieldError[] = [];
  for (const [otherKind, block] of Object.entries(blocks)) {
    if (block !== own && subject[block] !== undefined && subject[block] !== null) {
      errs.push(fieldError.forbidden(`${path}.${block}`, `${block} is forbidden when subject kind is not '${otherKind}'`));
    }
  }
  const body = r.obj(subject, own, `${path}.${own}`);
  if (!body) return [...errs, required(`${path}.${own}`, `${own} is required when subject kind is '${kind}'`)];
  const name = r.str(body, 'name', `${path}.${own}.name`);
  if (kind !== 'ServiceAccount') {
    if (name === '') errs.push(required(`${path}.${own}.name`));
    return errs;
  }
  if (name === '') errs.push(required(`${path}.${own}.name`));
  else if (name !== '*') for (const msg of isDNS1123Subdomain(name)) errs.push(fieldError.invalid(`${path}.${own}.name`, name, msg));
  const namespace = r.str(body, 'namespace', `${path}.${own}.namespace`);
  if (namespace === '') errs.push(required(`${path}.${own}.namespace`, 'must specify namespace for service account'));
  else for (const msg of isDNS1123Label(namespace)) errs.push(fieldError.invalid(`${path}.${own}.namespace`, namespace, msg));
  return errs;
}

function validateRulesWithSubjects(r: FieldReader, rule: Rec, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const subjects = objectItems(r, rule, 'subjects', `${path}.subjects`, errs);
  if (subjects.length === 0 && errs.length === 0) errs.push(required(`${path}.subjects`, 'subjects must contain at least one value'));
  for (const [s, at] of subjects) errs.push(...validateSubject(r, s, at));
  const resourceRules = objectItems(r, rule, 'resourceRules', `${path}.resourceRules`, errs);
  const nonResourceRules = objectItems(r, rule, 'nonResourceRules', `${path}.nonResourceRules`, errs);
  if (resourceRules.length === 0 && nonResourceRules.length === 0) {
    errs.push(required(path, 'at least one of resourceRules and nonResourceRules has to be non-empty'));
  }
  for (const [rr, at] of resourceRules) errs.push(...validateResourceRule(r, rr, at));
  for (const [nr, at] of nonResourceRules) errs.push(...validateNonResourceRule(r, nr, at));
  return errs;
}

/** Status conditions: each has a type, and no type appears twice. */
export function validateConditions(r: FieldReader, o: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  for (const [c, at] of objectItems(r, r.obj(o, 'status', 'status'), 'conditions', 'status.conditions', errs)) {
    const type = r.str(c, 'type', `${at}.type`);
    if (type === '') errs.push(required(`${at}.type`, 'must not be empty'));
    else if (seen.has(type)) errs.push(fieldError.duplicate(`${at}.type`, type));
    seen.add(type);
  }
  return errs;
}

/** JSON with Go's zero values dropped, so that a spec compares like the reference's semantic equality. */
export function comparable(v: unknown): unknown {
  if (Array.isArray(v)) return v.length === 0 ? undefined : v.map(comparable);
  if (isRec(v)) {
    const entries = Object.entries(v)
      .map(([k, x]) => [k, comparable(x)] as const)
      .filter(([, x]) => x !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return entries.length === 0 ? undefined : Object.fromEntries(entries);
  }
  return v === null || v === '' || v === false || v === 0 ? undefined : v;
}

export const sameSpec = (a: unknown, b: unknown) => JSON.stringify(comparable(a)) === JSON.stringify(comparable(b));

export function validateFlowSchema(o: ApiObject): FieldError[] {
  const r = new FieldReader();
  const errs: FieldError[] = [];
  const spec = r.obj(o, 'spec', 'spec');
  const name = o.metadata?.name;
  const precedence = r.int(spec, 'matchingPrecedence', 'spec.matchingPrecedence') ?? DEFAULT_MATCHING_PRECEDENCE;
  if (precedence <= 0) errs.push(fieldError.invalid('spec.matchingPrecedence', precedence, 'must be a positive value'));
  if (precedence > MAX_MATCHING_PRECEDENCE) errs.push(fieldError.invalid('spec.matchingPrecedence', precedence, `must not be greater than ${MAX_MATCHING_PRECEDENCE}`));
  if (precedence === 1 && name !== 'exempt') errs.push(fieldError.invalid('spec.matchingPrecedence', precedence, "only the schema named 'exempt' may have matchingPrecedence 1"));
  const distinguisher = r.obj(spec, 'distinguisherMethod', 'spec.distinguisherMethod');
  if (distinguisher) {
    const type = r.str(distinguisher, 'type', 'spec.distinguisherMethod.type');
    if (!(DISTINGUISHER_METHODS as readonly string[]).includes(type)) errs.push(fieldError.notSupported('spec.distinguisherMethod.type', type, DISTINGUISHER_METHODS));
  }
  const plPath = 'spec.priorityLevelConfiguration.name';
  const plName = r.str(r.obj(spec, 'priorityLevelConfiguration', 'spec.priorityLevelConfiguration'), 'name', plPath);
  if (plName === '') errs.push(required(plPath, 'must reference a priority level'));
  else for (const msg of isDNS1123Subdomain(plName)) errs.push(fieldError.invalid(plPath, plName, msg));
  for (const [rule, at] of objectItems(r, spec, 'rules', 'spec.rules', errs)) errs.push(...validateRulesWithSubjects(r, rule, at));
  const fixed = mandatorySpec('FlowSchema', name);
  if (fixed && !sameSpec(spec, fixed)) errs.push(fieldError.invalid('spec', spec ?? null, `spec of '${String(name)}' must equal the fixed value`));
  errs.push(...validateConditions(r, o));
  return [...r.errors, ...errs];
}
