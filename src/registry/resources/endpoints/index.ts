/** core/v1 Endpoints: the addresses and ports that implement a service, usually written by a controller. */
import { isObject, type ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { column } from '../../schema.js';
import { definitionSchema } from '../../reference-schema.js';
import type { ResourceType } from '../../types.js';
import { isDNS1123Label, isDNS1123Subdomain, isIP, isValidPortNum } from '../../validation/index.js';
import { PROTOCOLS } from '../pods/ports.js';
import { eachObject, oneOf } from '../pods/validation.js';

type Obj = Record<string, unknown>;

const atomic = { 'x-kubernetes-list-type': 'atomic' } as const;

const schema = definitionSchema('api.core.v1.Endpoints');

/** Endpoints must be reachable from other nodes, so special-purpose addresses are refused. */
function specialIPProblem(ip: string): string | undefined {
  if (ip === '0.0.0.0' || ip === '::') return 'may not be unspecified (0.0.0.0)';
  if (ip.startsWith('127.') || ip === '::1') return 'may not be in the loopback range (127.0.0.0/8, ::1/128)';
  if (ip.startsWith('169.254.') || /^fe[89ab]/i.test(ip)) return 'may not be in the link-local range (169.254.0.0/16, fe80::/10)';
  if (ip.startsWith('224.0.0.') || /^ff02:/i.test(ip)) return 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)';
  return undefined;
}

function validateAddress(a: Obj, path: string, errs: FieldError[]): void {
  const ip = typeof a.ip === 'string' ? a.ip : '';
  if (ip === '') errs.push(fieldError.required(`${path}.ip`));
  else {
    const problems = isIP(ip);
    for (const msg of problems) errs.push(fieldError.invalid(`${path}.ip`, ip, msg));
    const special = problems.length === 0 ? specialIPProblem(ip) : undefined;
    if (special) errs.push(fieldError.invalid(`${path}.ip`, ip, special));
  }
  if (typeof a.hostname === 'string' && a.hostname !== '') {
    for (const msg of isDNS1123Label(a.hostname)) errs.push(fieldError.invalid(`${path}.hostname`, a.hostname, msg));
  }
  if (typeof a.nodeName === 'string' && a.nodeName !== '') {
    for (const msg of isDNS1123Subdomain(a.nodeName)) errs.push(fieldError.invalid(`${path}.nodeName`, a.nodeName, msg));
  }
}

function validate(o: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  eachObject(o.subsets, 'subsets', errs, (s, path) => {
    const addresses = Array.isArray(s.addresses) ? s.addresses : [];
    const notReady = Array.isArray(s.notReadyAddresses) ? s.notReadyAddresses : [];
    if (addresses.length === 0 && notReady.length === 0) {
      errs.push(fieldError.required(path, 'Required value: must specify `addresses` or `notReadyAddresses`'));
    }
    eachObject(s.addresses, `${path}.addresses`, errs, (a, p) => validateAddress(a, p, errs));
    eachObject(s.notReadyAddresses, `${path}.notReadyAddresses`, errs, (a, p) => validateAddress(a, p, errs));
    const ports = Array.isArray(s.ports) ? s.ports : [];
    const names = new Set<string>();
    eachObject(s.ports, `${path}.ports`, errs, (port, p) => {
      const name = typeof port.name === 'string' ? port.name : '';
      if (name === '') {
        if (ports.length > 1) errs.push(fieldError.required(`${p}.name`));
      } else {
        for (const msg of isDNS1123Label(name)) errs.push(fieldError.invalid(`${p}.name`, name, msg));
        if (names.has(name)) errs.push(fieldError.duplicate(`${p}.name`, name));
        names.add(name);
      }
      if (port.port === undefined || port.port === null) errs.push(fieldError.required(`${p}.port`));
      else for (const msg of isValidPortNum(port.port as number)) errs.push(fieldError.invalid(`${p}.port`, port.port, msg));
      oneOf(errs, `${p}.protocol`, port.protocol, PROTOCOLS, true);
    });
  });
  return errs;
}

/** The reference's printer: "ip:port" per address and port, at most three, then " + N more...". */
function endpointsText(o: ApiObject): string {
  const all: string[] = [];
  for (const s of Array.isArray(o.subsets) ? o.subsets.filter(isObject) : []) {
    const ips = (Array.isArray(s.addresses) ? s.addresses.filter(isObject) : []).map((a) => String(a.ip ?? ''));
    const ports = (Array.isArray(s.ports) ? s.ports.filter(isObject) : []).map((p) => String(p.port ?? ''));
    if (ports.length === 0) all.push(...ips);
    else for (const port of ports) for (const ip of ips) all.push(`${ip}:${port}`);
  }
  if (all.length === 0) return '<none>';
  const shown = all.slice(0, 3).join(',');
  return all.length > 3 ? `${shown} + ${all.length - 3} more...` : shown;
}

export const endpoints: ResourceType = {
  group: '',
  version: 'v1',
  kind: 'Endpoints',
  listKind: 'EndpointsList',
  plural: 'endpoints',
  singular: 'endpoints',
  shortNames: ['ep'],
  namespaced: true,
  subresources: [],
  storageKey: 'core/endpoints',
  schema,
  strategy: {
    nameRule: 'subdomain',
    tracksGeneration: false,
    allowCreateOnUpdate: true,
    allowUnconditionalUpdate: true,
    prepareForCreate: defaultProtocols,
    prepareForUpdate: (o) => defaultProtocols(o),
    validate,
  },
  tableColumns: [column('Endpoints', 'string', 'Endpoints of the service', endpointsText)],
};

function defaultProtocols(o: ApiObject): void {
  for (const s of Array.isArray(o.subsets) ? o.subsets.filter(isObject) : []) {
    for (const p of Array.isArray(s.ports) ? s.ports.filter(isObject) : []) {
      if (p.protocol === undefined || p.protocol === null || p.protocol === '') p.protocol = 'TCP';
    }
  }
}
