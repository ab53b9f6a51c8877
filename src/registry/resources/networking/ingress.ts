/**
 * networking/v1 Ingress: the reference's validation of rules, paths, backends and TLS, its status rules,
 * and the CLASS / HOSTS / ADDRESS / PORTS table.
 */
import { LABEL_DOMAIN, NETWORKING_GROUP } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { column } from '../../schema.js';
import type { ResourceType } from '../../types.js';
import { isDNS1123Subdomain, isIP, isPathSegmentName, isValidPortNum, regexError, DNS1123_SUBDOMAIN_MAX_LENGTH, maxLenError } from '../../validation/index.js';
import { FieldReader, isRec, type Rec } from '../events/fields.js';
import { isValidPortName } from '../pods/ports.js';
import { referenceType } from '../reference.js';

/** The legacy class annotation; `spec.ingressClassName` replaced it. */
export const INGRESS_CLASS_ANNOTATION = `${LABEL_DOMAIN}/ingress.class`;
export const PATH_TYPES = ['Exact', 'ImplementationSpecific', 'Prefix'];
const INVALID_PATH_SEQUENCES = ['//', '/./', '/../', '%2f', '%2F'];
const INVALID_PATH_SUFFIXES = ['/..', '/.'];

const DNS1035_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1035_RE = new RegExp(`^${DNS1035_FMT}$`);
const DNS1035_MSG = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";

/** Service names are DNS-1035 labels (they become DNS names and environment variable prefixes). */
export function isDNS1035Label(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 63) errs.push(maxLenError(63));
  if (!DNS1035_RE.test(v)) errs.push(regexError(DNS1035_MSG, DNS1035_FMT, 'my-name', 'abc-123'));
  return errs;
}

const WILDCARD_FMT = '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*';
const WILDCARD_RE = new RegExp(`^${WILDCARD_FMT}$`);
const WILDCARD_MSG =
  "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character";

/** A host with a wildcard first label (`*.example.com`). */
export function isWildcardDNS1123Subdomain(v: string): string[] {
  const errs: string[] = [];
  if (v.length > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!WILDCARD_RE.test(v)) errs.push(regexError(WILDCARD_MSG, WILDCARD_FMT, '*.example.com'));
  return errs;
}

/** A host name: a wildcard subdomain when it has a `*`, else a DNS subdomain. */
function hostErrors(host: string): string[] {
  return host.includes('*') ? isWildcardDNS1123Subdomain(host) : isDNS1123Subdomain(host);
}

/** `{apiGroup, kind, name}` of a resource backend or of IngressClass parameters. */
export function validateTypedReference(r: FieldReader, ref: Rec, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (ref.apiGroup !== undefined && ref.apiGroup !== null) {
    const group = r.str(ref, 'apiGroup', `${path}.apiGroup`);
    for (const msg of isDNS1123Subdomain(group)) errs.push(fieldError.invalid(`${path}.apiGroup`, group, msg));
  }
  for (const key of ['kind', 'name'] as const) {
    const v = r.str(ref, key, `${path}.${key}`);
    if (v === '') errs.push(fieldError.required(`${path}.${key}`, `Required value: ${key} is required`));
    else for (const msg of isPathSegmentName(v)) errs.push(fieldError.invalid(`${path}.${key}`, v, msg));
  }
  return errs;
}

function validateBackend(r: FieldReader, backend: Rec, path: string): FieldError[] {
  const resource = r.obj(backend, 'resource', `${path}.resource`);
  const service = r.obj(backend, 'service', `${path}.service`);
  if (resource && service) return [fieldError.invalid(path, '', 'cannot set both resource and service backends')];
  if (resource) return validateTypedReference(r, resource, `${path}.resource`);
  if (!service) return [fieldError.invalid(path, '', 'resource or service backend is required')];
  const errs: FieldError[] = [];
  const name = r.str(service, 'name', `${path}.service.name`);
  if (name === '') errs.push(fieldError.required(`${path}.service.name`));
  else for (const msg of isDNS1035Label(name)) errs.push(fieldError.invalid(`${path}.service.name`, name, msg));
  const port = r.obj(service, 'port', `${path}.service.port`) ?? {};
  const portName = r.str(port, 'name', `${path}.service.port.name`);
  const portNumber = r.int(port, 'number', `${path}.service.port.number`) ?? 0;
  if (portName !== '' && portNumber !== 0) errs.push(fieldError.invalid(path, '', 'cannot set both port name & port number'));
  else if (portName !== '') for (const msg of isValidPortName(portName)) errs.push(fieldError.invalid(`${path}.service.port.name`, portName, msg));
  else if (portNumber !== 0) for (const msg of isValidPortNum(portNumber)) errs.push(fieldError.invalid(`${path}.service.port.number`, portNumber, msg));
  else errs.push(fieldError.required(path, 'Required value: port name or number is required'));
  return errs;
}

function validatePath(r: FieldReader, p: Rec, path: string): FieldError[] {
  const pathType = r.str(p, 'pathType', `${path}.pathType`);
  if (pathType === '') return [fieldError.required(`${path}.pathType`, 'Required value: pathType must be specified')];
  const errs: FieldError[] = [];
  const value = r.str(p, 'path', `${path}.path`);
  if (pathType === 'Exact' || pathType === 'Prefix') {
    if (!value.startsWith('/')) errs.push(fieldError.invalid(`${path}.path`, value, 'must be an absolute path'));
    for (const seq of INVALID_PATH_SEQUENCES) {
      if (value.includes(seq)) errs.push(fieldError.invalid(`${path}.path`, value, `must not contain '${seq}'`));
    }
    for (const suffix of INVALID_PATH_SUFFIXES) {
      if (value.endsWith(suffix)) errs.push(fieldError.invalid(`${path}.path`, value, `cannot end with '${suffix}'`));
    }
  } else if (pathType === 'ImplementationSpecific') {
    if (value !== '' && !value.startsWith('/')) errs.push(fieldError.invalid(`${path}.path`, value, 'must be an absolute path'));
  } else {
    errs.push(fieldError.notSupported(`${path}.pathType`, pathType, PATH_TYPES));
  }
  const backend = r.obj(p, 'backend', `${path}.backend`) ?? {};
  return [...errs, ...validateBackend(r, backend, `${path}.backend`)];
}

function validateRules(r: FieldReader, rules: unknown[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  rules.forEach((rule, i) => {
    const at = `${path}[${i}]`;
    if (!isRec(rule)) {
      errs.push(fieldError.typeInvalid(at, rule, 'must be of type object'));
      return;
    }
    const host = r.str(rule, 'host', `${at}.host`);
    if (host !== '') {
      if (isIP(host).length === 0) errs.push(fieldError.invalid(`${at}.host`, host, 'must be a DNS name, not an IP address'));
      for (const msg of hostErrors(host)) errs.push(fieldError.invalid(`${at}.host`, host, msg));
    }
    const http = r.obj(rule, 'http', `${at}.http`);
    if (!http) return;
    const paths = r.list(http, 'paths', `${at}.http.paths`);
    if (paths.length === 0) errs.push(fieldError.required(`${at}.http.paths`));
    paths.forEach((p, j) => {
      const pp = `${at}.http.paths[${j}]`;
      if (isRec(p)) errs.push(...validatePath(r, p, pp));
      else errs.push(fieldError.typeInvalid(pp, p, 'must be of type object'));
    });
  });
  return errs;
}

function validateTLS(r: FieldReader, tls: unknown[]): FieldError[] {
  const errs: FieldError[] = [];
  tls.forEach((t, i) => {
    const at = `spec.tls[${i}]`;
    if (!isRec(t)) {
      errs.push(fieldError.typeInvalid(at, t, 'must be of type object'));
      return;
    }
    r.strList(t, 'hosts', `${at}.hosts`).forEach((host, j) => {
      for (const msg of hostErrors(host)) errs.push(fieldError.invalid(`${at}.hosts[${j}]`, host, msg));
    });
    const secret = r.str(t, 'secretName', `${at}.secretName`);
    if (secret !== '') for (const msg of isDNS1123Subdomain(secret)) errs.push(fieldError.invalid(`${at}.secretName`, secret, msg));
  });
  return errs;
}

/** The spec rules (ValidateIngressSpec) and the class annotation that must agree with ingressClassName. */
export function validateIngress(o: ApiObject): FieldError[] {
  const r = new FieldReader();
  const spec = r.obj(o, 'spec', 'spec') ?? {};
  const errs: FieldError[] = [];
  const rules = r.list(spec, 'rules', 'spec.rules');
  const defaultBackend = r.obj(spec, 'defaultBackend', 'spec.defaultBackend');
  if (rules.length === 0 && !defaultBackend) {
    errs.push(fieldError.invalid('spec', spec.rules ?? null, 'either `defaultBackend` or `rules` must be specified'));
  }
  if (defaultBackend) errs.push(...validateBackend(r, defaultBackend, 'spec.defaultBackend'));
  errs.push(...validateRules(r, rules, 'spec.rules'));
  errs.push(...validateTLS(r, r.list(spec, 'tls', 'spec.tls')));
  const className = spec.ingressClassName;
  if (className !== undefined && className !== null) {
    const name = r.str(spec, 'ingressClassName', 'spec.ingressClassName');
    for (const msg of isDNS1123Subdomain(name)) errs.push(fieldError.invalid('spec.ingressClassName', name, msg));
    const annotation = o.metadata?.annotations?.[INGRESS_CLASS_ANNOTATION];
    if (typeof annotation === 'string' && annotation !== name) {
      errs.push(fieldError.invalid(`annotations.${INGRESS_CLASS_ANNOTATION}`, annotation, 'must match `ingressClassName` when both are specified'));
    }
  }
  errs.push(...validateLoadBalancerStatus(r, o));
  return [...r.errors, ...errs];
}

/** status.loadBalancer.ingress: each entry an IP address or a DNS name (not an IP). */
function validateLoadBalancerStatus(r: FieldReader, o: ApiObject): FieldError[] {
  const lb = r.obj(r.obj(o, 'status', 'status'), 'loadBalancer', 'status.loadBalancer');
  const errs: FieldError[] = [];
  r.list(lb, 'ingress', 'status.loadBalancer.ingress').forEach((ing, i) => {
    const at = `status.loadBalancer.ingress[${i}]`;
    if (!isRec(ing)) return;
    const ip = r.str(ing, 'ip', `${at}.ip`);
    if (ip !== '') for (const msg of isIP(ip)) errs.push(fieldError.invalid(`${at}.ip`, ip, msg));
    const hostname = r.str(ing, 'hostname', `${at}.hostname`);
    if (hostname !== '') {
      for (const msg of isDNS1123Subdomain(hostname)) errs.push(fieldError.invalid(`${at}.hostname`, hostname, msg));
      if (isIP(hostname).length === 0) errs.push(fieldError.invalid(`${at}.hostname`, hostname, 'must be a DNS name, not an IP address'));
    }
  });
  return errs;
}

function ingressWarnings(o: ApiObject): string[] {
  const annotated = o.metadata?.annotations?.[INGRESS_CLASS_ANNOTATION] !== undefined;
  return annotated ? [`annotation "${INGRESS_CLASS_ANNOTATION}" is deprecated, please use 'spec.ingressClassName' instead`] : [];
}

const rec = (v: unknown): Rec => (isRec(v) ? v : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** Up to three hosts of the rules, `*` when none names one. */
export function ingressHosts(o: ApiObject): string {
  const rules = list(rec(o.spec).rules);
  const hosts: string[] = [];
  let more = false;
  for (const rule of rules) {
    if (hosts.length === 3) more = true;
    const host = rec(rule).host;
    if (!more && typeof host === 'string' && host !== '') hosts.push(host);
  }
  if (hosts.length === 0) return '*';
  return more ? `${hosts.join(',')} + ${rules.length - 3} more...` : hosts.join(',');
}

/** The load balancer's addresses (IP, else hostname), sorted and without repeats. */
export function ingressAddress(o: ApiObject): string {
  const out = new Set<string>();
  for (const ing of list(rec(rec(o.status).loadBalancer).ingress)) {
    const { ip, hostname } = rec(ing);
    if (typeof ip === 'string' && ip !== '') out.add(ip);
    else if (typeof hostname === 'string' && hostname !== '') out.add(hostname);
  }
  return [...out].sort().join(',');
}

export const ingressColumns = [
  column('Class', 'string', 'Name of the IngressClass that configures this ingress.', (o) => {
    const c = rec(o.spec).ingressClassName;
    return typeof c === 'string' ? c : '<none>';
  }),
  column('Hosts', 'string', 'Hosts the rules match requests against.', ingressHosts),
  column('Address', 'string', 'Addresses of the load balancer serving this ingress.', ingressAddress),
  column('Ports', 'string', 'Ports the ingress listens on (443 when TLS is configured).', (o) => (list(rec(o.spec).tls).length > 0 ? '80, 443' : '80')),
];

export const ingresses: ResourceType = referenceType(NETWORKING_GROUP, 'v1', 'ingresses', {
  shortNames: ['ing'],
  tableColumns: ingressColumns,
  strategy: { validate: validateIngress, warnings: ingressWarnings },
});
