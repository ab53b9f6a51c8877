/**
 * Pieces shared by the webhook configurations and the admission policies, with the reference's rules and
 * wording: rules with operations (and their wildcard resource forms), match conditions, label
 * selectors, and where a webhook is called (url or service). The small field helpers are also used by the
 * flowcontrol and apiregistration folders.
 */
import { fieldError, type FieldError } from '../../../errors/index.js';
import { isDNS1123Subdomain, isLabelValue, isQualifiedName, isValidPortNum, regexError, validateLabels } from '../../validation/index.js';
import { FieldReader, isRec, type Rec } from '../events/fields.js';

export const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'] as const;
export const SCOPES = ['*', 'Cluster', 'Namespaced'] as const;
export const FAILURE_POLICIES = ['Fail', 'Ignore'] as const;
export const MATCH_POLICIES = ['Equivalent', 'Exact'] as const;
export const MAX_MATCH_CONDITIONS = 64;

/** The reference's Required error: "Required value" with an optional detail. */
export const required = (path: string, detail = ''): FieldError => fieldError.required(path, detail ? `Required value: ${detail}` : 'Required value');
export const tooMany = (path: string, have: number, max: number): FieldError => ({
  type: 'FieldValueTooMany',
  field: path,
  message: `Too many: ${have}: must have at most ${max} items`,
});

const DNS1035_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1035_RE = new RegExp(`^${DNS1035_FMT}$`);
/** A DNS-1035 label (versions, kinds): lower case, starting with a letter, at most 63 characters. */
export function isDNS1035Label(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 63) errs.push('must be no more than 63 characters');
  if (!DNS1035_RE.test(v)) {
    const msg = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
    errs.push(regexError(msg, DNS1035_FMT, 'my-name', 'abc-123'));
  }
  return errs;
}

/** Items of a list field that are objects, each with its path; other items are type errors. */
export function objectItems(r: FieldReader, o: Rec | undefined, key: string, path: string, errs: FieldError[]): [Rec, string][] {
  const out: [Rec, string][] = [];
  r.list(o, key, path).forEach((item, i) => {
    if (isRec(item)) out.push([item, `${path}[${i}]`]);
    else errs.push(fieldError.typeInvalid(`${path}[${i}]`, item, 'must be of type object'));
  });
  return out;
}

/** An enum field that may be unset; set, it must be one of `allowed`. */
export function optionalEnum(r: FieldReader, o: Rec | undefined, key: string, path: string, allowed: readonly string[]): FieldError[] {
  const v = o?.[key];
  if (v === undefined || v === null) return [];
  const s = r.str(o, key, path);
  return typeof v === 'string' && !allowed.includes(s) ? [fieldError.notSupported(path, s, allowed)] : [];
}

/**
 * `resources` of a rule: `*` is every resource (not subresources), `*\/*` everything, `x/*` every
 * subresource of x, `*\/y` subresource y of every resource; overlapping forms are rejected.
 */
export function validateResources(resources: string[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (resources.length === 0) errs.push(required(path));
  const withAnySub = new Set<string>();
  const subOfAny = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let plainResource = false;
  resources.forEach((rs, i) => {
    if (rs === '') {
      errs.push(required(`${path}[${i}]`));
      return;
    }
    if (rs === '*/*') doubleWildcard = true;
    if (rs === '*') singleWildcard = true;
    const slash = rs.indexOf('/');
    if (slash < 0) {
      plainResource = rs !== '*';
      return;
    }
    const res = rs.slice(0, slash);
    const sub = rs.slice(slash + 1);
    if (withAnySub.has(res)) errs.push(fieldError.invalid(`${path}[${i}]`, rs, `if '${res}/*' is present, must not specify ${rs}`));
    if (subOfAny.has(sub)) errs.push(fieldError.invalid(`${path}[${i}]`, rs, `if '*/${sub}' is present, must not specify ${rs}`));
    if (sub === '*') withAnySub.add(res);
    if (res === '*') subOfAny.add(sub);
  });
  if (resources.length > 1 && doubleWildcard) errs.push(fieldError.invalid(path, resources, "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && plainResource) errs.push(fieldError.invalid(path, resources, "if '*' is present, must not specify other resources without subresources"));
  return errs;
}

/** A rule with operations (webhooks, and policy resource rules). */
export function validateRuleWithOperations(r: FieldReader, rule: Rec, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const operations = r.strList(rule, 'operations', `${path}.operations`);
  if (operations.length === 0) errs.push(required(`${path}.operations`));
  if (operations.length > 1 && operations.includes('*')) errs.push(fieldError.invalid(`${path}.operations`, operations, "if '*' is present, must not specify other operations"));
  operations.forEach((op, i) => {
    if (!(OPERATIONS as readonly string[]).includes(op)) errs.push(fieldError.notSupported(`${path}.operations[${i}]`, op, OPERATIONS));
  });
  const apiGroups = r.strList(rule, 'apiGroups', `${path}.apiGroups`);
  if (apiGroups.length === 0) errs.push(required(`${path}.apiGroups`));
  if (apiGroups.length > 1 && apiGroups.includes('*')) errs.push(fieldError.invalid(`${path}.apiGroups`, apiGroups, "if '*' is present, must not specify other API groups"));
  const apiVersions = r.strList(rule, 'apiVersions', `${path}.apiVersions`);
  if (apiVersions.length === 0) errs.push(required(`${path}.apiVersions`));
  if (apiVersions.length > 1 && apiVersions.includes('*')) errs.push(fieldError.invalid(`${path}.apiVersions`, apiVersions, "if '*' is present, must not specify other API versions"));
  apiVersions.forEach((v, i) => {
    if (v === '') errs.push(required(`${path}.apiVersions[${i}]`));
  });
  errs.push(...validateResources(r.strList(rule, 'resources', `${path}.resources`), `${path}.resources`));
  errs.push(...optionalEnum(r, rule, 'scope', `${path}.scope`, SCOPES));
  return errs;
}

/** Match conditions: at most 64, unique qualified names, a non-empty expression (compiled by later work). */
export function validateMatchConditions(r: FieldReader, o: Rec, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const conditions = objectItems(r, o, 'matchConditions', path, errs);
  if (conditions.length > MAX_MATCH_CONDITIONS) errs.push(tooMany(path, conditions.length, MAX_MATCH_CONDITIONS));
  const names = new Set<string>();
  for (const [c, at] of conditions) {
    if (r.str(c, 'expression', `${at}.expression`).trim() === '') errs.push(required(`${at}.expression`));
    const name = r.str(c, 'name', `${at}.name`);
    if (name === '') errs.push(required(`${at}.name`));
    else for (const msg of isQualifiedName(name)) errs.push(fieldError.invalid(`${at}.name`, name, msg));
    if (name !== '' && names.has(name)) errs.push(fieldError.duplicate(`${at}.name`, name));
    names.add(name);
  }
  return errs;
}

/** A structured label selector: valid keys and values, values only where the operator takes them. */
export function validateLabelSelector(r: FieldReader, sel: Rec, path: string): FieldError[] {
  const errs = validateLabels(sel.matchLabels, `${path}.matchLabels`);
  for (const [expr, at] of objectItems(r, sel, 'matchExpressions', `${path}.matchExpressions`, errs)) {
    const operator = r.str(expr, 'operator', `${at}.operator`);
    const values = r.strList(expr, 'values', `${at}.values`);
    if (operator === 'In' || operator === 'NotIn') {
      if (values.length === 0) errs.push(required(`${at}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
    } else if (operator === 'Exists' || operator === 'DoesNotExist') {
      if (values.length > 0) errs.push(fieldError.forbidden(`${at}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    } else {
      errs.push(fieldError.notSupported(`${at}.operator`, operator, ['DoesNotExist', 'Exists', 'In', 'NotIn']));
    }
    const key = r.str(expr, 'key', `${at}.key`);
    for (const msg of isQualifiedName(key)) errs.push(fieldError.invalid(`${at}.key`, key, msg));
    values.forEach((v, i) => {
      for (const msg of isLabelValue(v)) errs.push(fieldError.invalid(`${at}.values[${i}]`, v, msg));
    });
  }
  return errs;
}

const URL_FORM = '; desired format: https://host[/path]';

/** A webhook URL: https, a host, and no user info, fragment or query. */
export function validateWebhookURL(url: string, path: string): FieldError[] {
  let u: URL | undefined;
  try {
    u = new URL(url);
  } catch {
    u = undefined;
  }
  const errs: FieldError[] = [];
  const scheme = u ? u.protocol.replace(/:$/, '') : '';
  if (scheme !== 'https') errs.push(fieldError.invalid(path, scheme, `'https' is the only allowed URL scheme${URL_FORM}`));
  if (!u || u.host === '') errs.push(fieldError.invalid(path, u?.host ?? '', `host must be specified${URL_FORM}`));
  if (!u) return errs;
  if (u.username !== '' || u.password !== '') {
    errs.push(fieldError.invalid(path, u.password ? `${u.username}:${u.password}` : u.username, 'user information is not permitted in the URL'));
  }
  if (u.hash.length > 1) errs.push(fieldError.invalid(path, u.hash.slice(1), 'fragments are not permitted in the URL'));
  if (u.search.length > 1) errs.push(fieldError.invalid(path, u.search.slice(1), 'query parameters are not permitted in the URL'));
  return errs;
}

/** A webhook service: namespace, name, a valid port, and a path of DNS-subdomain segments. */
export function validateWebhookService(r: FieldReader, svc: Rec, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (r.str(svc, 'name', `${path}.name`) === '') errs.push(required(`${path}.name`, 'service name is required'));
  if (r.str(svc, 'namespace', `${path}.namespace`) === '') errs.push(required(`${path}.namespace`, 'service namespace is required'));
  const port = r.int(svc, 'port', `${path}.port`) ?? 443;
  const portErrs = isValidPortNum(port);
  if (portErrs.length > 0) errs.push(fieldError.invalid(`${path}.port`, port, `port is not valid: ${portErrs.join(', ')}`));
  const urlPath = r.str(svc, 'path', `${path}.path`);
  if (urlPath === '' || urlPath === '/') return errs;
  if (urlPath === '//') return [...errs, fieldError.invalid(`${path}.path`, urlPath, 'segment[0] may not be empty')];
  if (!urlPath.startsWith('/')) errs.push(fieldError.invalid(`${path}.path`, urlPath, "must start with a '/'"));
  let rest = urlPath.slice(1);
  if (rest.endsWith('/')) rest = rest.slice(0, -1);
  rest.split('/').forEach((step, i) => {
    if (step === '') errs.push(fieldError.invalid(`${path}.path`, urlPath, `segment[${i}] may not be empty`));
    else for (const msg of isDNS1123Subdomain(step)) errs.push(fieldError.invalid(`${path}.path`, urlPath, `segment[${i}]: ${msg}`));
  });
  return errs;
}

/** Exactly one of `url` and `service`. */
export function validateClientConfig(r: FieldReader, hook: Rec, path: string): FieldError[] {
  const cc = r.obj(hook, 'clientConfig', path) ?? {};
  const hasURL = cc.url !== undefined && cc.url !== null;
  const service = r.obj(cc, 'service', `${path}.service`);
  if (hasURL === (service !== undefined)) return [required(path, 'exactly one of url or service is required')];
  if (service) return validateWebhookService(r, service, `${path}.service`);
  return validateWebhookURL(r.str(cc, 'url', `${path}.url`), `${path}.url`);
}
