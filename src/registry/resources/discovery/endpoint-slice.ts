/**
 * discovery/v1 EndpointSlice: an immutable addressType, addresses valid for it, the reference's limits on
 * endpoints, addresses and ports, generation bumps on any change, and the ADDRESSTYPE / PORTS / ENDPOINTS table.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { DISCOVERY_GROUP } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { jsonEqual } from '../../../patch/index.js';
import { column } from '../../schema.js';
import type { ResourceType } from '../../types.js';
import { isDNS1123Label, isDNS1123Subdomain, isLabelValue, isQualifiedName, validateLabels } from '../../validation/index.js';
import { FieldReader, immutable, isRec, type Rec } from '../events/fields.js';
import { referenceType } from '../reference.js';

export const ADDRESS_TYPES = ['FQDN', 'IPv4', 'IPv6'];
const PORT_PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
/** The reference's limits (ports were raised from 100 to 20000 in 1.21). */
export const MAX_ENDPOINTS = 1000;
export const MAX_ADDRESSES = 100;
export const MAX_PORTS = 20000;
const MAX_TOPOLOGY_LABELS = 16;
const MAX_ZONE_HINTS = 8;
const INT32_MAX = 2 ** 31 - 1;

export const tooMany = (field: string, actual: number, max: number): FieldError => ({
  type: 'FieldValueTooMany',
  field,
  message: `Too many: ${actual}: must have at most ${max} items`,
});

/** An IP that may address an endpoint: not unspecified, loopback or link-local. */
export function nonSpecialIPErrors(ip: string): string[] {
  const v = ip.toLowerCase();
  const errs: string[] = [];
  if (v === '0.0.0.0' || v === '::') errs.push(`may not be unspecified (${ip})`);
  if (/^127\./.test(v) || v === '::1') errs.push('may not be in the loopback range (127.0.0.0/8, ::1/128)');
  if (/^169\.254\./.test(v) || /^fe[89ab][0-9a-f]:/.test(v)) errs.push('may not be in the link-local range (169.254.0.0/16, fe80::/10)');
  if (/^224\.0\.0\./.test(v) || /^ff02:/.test(v)) errs.push('may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)');
  return errs;
}

/** The reference's IsFullyQualifiedDomainName: a subdomain of at least two labels (a trailing dot is fine). */
export function fqdnErrors(name: string): { value: string; message: string } | undefined {
  const v = name.endsWith('.') ? name.slice(0, -1) : name;
  const sub = isDNS1123Subdomain(v);
  if (sub.length > 0) return { value: v, message: sub.join(',') };
  const labels = v.split('.');
  if (labels.length < 2) return { value: v, message: 'should be a domain with at least two segments separated by dots' };
  for (const label of labels) {
    const errs = isDNS1123Label(label);
    if (errs.length > 0) return { value: label, message: errs.join(',') };
  }
  return undefined;
}

function addressErrors(addressType: string, address: string, path: string): FieldError[] {
  if (addressType === 'IPv4' || addressType === 'IPv6') {
    const ok = addressType === 'IPv4' ? isIPv4(address) : isIPv6(address);
    if (!ok) return [fieldError.invalid(path, address, `must be a valid ${addressType} address`)];
    return nonSpecialIPErrors(address).map((msg) => fieldError.invalid(path, address, msg));
  }
  if (addressType === 'FQDN') {
    if (address === '') return [fieldError.required(path)];
    const bad = fqdnErrors(address);
    return bad ? [fieldError.invalid(path, bad.value, bad.message)] : [];
  }
  return []; // an unknown type is reported once, at addressType
}

function validateEndpoint(r: FieldReader, ep: Rec, addressType: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const addresses = r.strList(ep, 'addresses', `${path}.addresses`);
  if (addresses.length === 0) errs.push(fieldError.required(`${path}.addresses`, 'Required value: must contain at least 1 address'));
  else if (addresses.length > MAX_ADDRESSES) errs.push(tooMany(`${path}.addresses`, addresses.length, MAX_ADDRESSES));
  addresses.forEach((a, i) => errs.push(...addressErrors(addressType, a, `${path}.addresses[${i}]`)));
  if (ep.nodeName !== undefined && ep.nodeName !== null) {
    const node = r.str(ep, 'nodeName', `${path}.nodeName`);
    for (const msg of isDNS1123Subdomain(node)) errs.push(fieldError.invalid(`${path}.nodeName`, node, msg));
  }
  if (ep.hostname !== undefined && ep.hostname !== null) {
    const host = r.str(ep, 'hostname', `${path}.hostname`);
    for (const msg of isDNS1123Label(host)) errs.push(fieldError.invalid(`${path}.hostname`, host, msg));
  }
  const topology = r.obj(ep, 'deprecatedTopology', `${path}.deprecatedTopology`);
  if (topology && Object.keys(topology).length > MAX_TOPOLOGY_LABELS) {
    errs.push(tooMany(`${path}.deprecatedTopology`, Object.keys(topology).length, MAX_TOPOLOGY_LABELS));
  }
  if (topology) errs.push(...validateLabels(topology, `${path}.deprecatedTopology`));
  const hints = r.obj(ep, 'hints', `${path}.hints`);
  if (hints) errs.push(...validateHints(r, hints, `${path}.hints`));
  return errs;
}

function validateHints(r: FieldReader, hints: Rec, path: string): FieldError[] {
  const zones = r.list(hints, 'forZones', `${path}.forZones`);
  if (zones.length > MAX_ZONE_HINTS) return [tooMany(`${path}.forZones`, zones.length, MAX_ZONE_HINTS)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  zones.forEach((z, i) => {
    const at = `${path}.forZones[${i}].name`;
    const name = r.str(isRec(z) ? z : {}, 'name', at);
    if (seen.has(name)) errs.push(fieldError.duplicate(at, name));
    seen.add(name);
    for (const msg of isLabelValue(name)) errs.push(fieldError.invalid(at, name, msg));
  });
  return errs;
}

function validatePorts(r: FieldReader, ports: unknown[]): FieldError[] {
  if (ports.length > MAX_PORTS) return [tooMany('ports', ports.length, MAX_PORTS)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  ports.forEach((p, i) => {
    const at = `ports[${i}]`;
    if (!isRec(p)) {
      errs.push(fieldError.typeInvalid(at, p, 'must be of type object'));
      return;
    }
    const name = r.str(p, 'name', `${at}.name`);
    if (name !== '') for (const msg of isDNS1123Label(name)) errs.push(fieldError.invalid(`${at}.name`, name, msg));
    if (names.has(name)) errs.push(fieldError.duplicate(`${at}.name`, name));
    names.add(name);
    const protocol = r.str(p, 'protocol', `${at}.protocol`);
    if (protocol === '') errs.push(fieldError.required(`${at}.protocol`));
    else if (!PORT_PROTOCOLS.includes(protocol)) errs.push(fieldError.notSupported(`${at}.protocol`, protocol, PORT_PROTOCOLS));
    // The reference takes any int32 here (0 means "all ports" for some consumers).
    const port = r.int(p, 'port', `${at}.port`);
    if (port !== undefined && (port < -INT32_MAX - 1 || port > INT32_MAX)) errs.push(fieldError.invalid(`${at}.port`, port, 'must fit in a 32-bit integer'));
    if (p.appProtocol !== undefined && p.appProtocol !== null) {
      const app = r.str(p, 'appProtocol', `${at}.appProtocol`);
      for (const msg of isQualifiedName(app)) errs.push(fieldError.invalid(`${at}.appProtocol`, app, msg));
    }
  });
  return errs;
}

export function validateEndpointSlice(o: ApiObject): FieldError[] {
  const r = new FieldReader();
  const errs: FieldError[] = [];
  const addressType = r.str(o, 'addressType', 'addressType');
  if (addressType === '') errs.push(fieldError.required('addressType'));
  else if (!ADDRESS_TYPES.includes(addressType)) errs.push(fieldError.notSupported('addressType', addressType, ADDRESS_TYPES));
  errs.push(...validatePorts(r, r.list(o, 'ports', 'ports')));
  const endpoints = r.list(o, 'endpoints', 'endpoints');
  if (endpoints.length > MAX_ENDPOINTS) errs.push(tooMany('endpoints', endpoints.length, MAX_ENDPOINTS));
  else {
    endpoints.forEach((ep, i) => {
      if (isRec(ep)) errs.push(...validateEndpoint(r, ep, addressType, `endpoints[${i}]`));
      else errs.push(fieldError.typeInvalid(`endpoints[${i}]`, ep, 'must be of type object'));
    });
  }
  return [...r.errors, ...errs];
}

/** v1 defaults: a port without a name has the empty name, and speaks TCP. */
function defaultPorts(o: ApiObject): void {
  for (const p of Array.isArray(o.ports) ? o.ports : []) {
    if (!isRec(p)) continue;
    if (p.name === undefined || p.name === null) p.name = '';
    if (p.protocol === undefined || p.protocol === null) p.protocol = 'TCP';
  }
}

/** Anything but metadata (or a label change) is a new generation: the slice has no spec. */
function bumpGeneration(o: ApiObject, old: ApiObject): void {
  const body = ({ metadata, apiVersion: _v, kind: _k, ...rest }: ApiObject) => ({ ...rest, labels: metadata?.labels ?? null });
  if (jsonEqual(body(o), body(old))) return;
  const generation = typeof old.metadata?.generation === 'number' ? old.metadata.generation : 0;
  if (o.metadata) o.metadata.generation = generation + 1;
}

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** Up to three entries, then ` + N more...`; `<unset>` for none. */
export function withMore(items: string[], total: number): string {
  if (total > 3) return `${items.slice(0, 3).join(',')} + ${total - 3} more...`;
  return items.length === 0 ? '<unset>' : items.join(',');
}

export function endpointSlicePorts(o: ApiObject): string {
  const ports = list(o.ports).map((p) => {
    const { port, name } = isRec(p) ? p : {};
    return typeof port === 'number' ? String(port) : typeof name === 'string' ? name : '*';
  });
  return withMore(ports, ports.length);
}

export function endpointSliceEndpoints(o: ApiObject): string {
  const addresses = list(o.endpoints).flatMap((ep) => (isRec(ep) ? list(ep.addresses) : [])).map(String);
  return withMore(addresses, addresses.length);
}

export const endpointSlices: ResourceType = referenceType(DISCOVERY_GROUP, 'v1', 'endpointslices', {
  tableColumns: [
    column('AddressType', 'string', 'The kind of address the endpoints carry.', (o) => (typeof o.addressType === 'string' ? o.addressType : '')),
    column('Ports', 'string', 'The ports every endpoint of the slice exposes.', endpointSlicePorts),
    column('Endpoints', 'string', 'The first addresses of the slice.', endpointSliceEndpoints),
  ],
  strategy: {
    tracksGeneration: true,
    prepareForCreate: defaultPorts,
    prepareForUpdate: (o, old) => {
      defaultPorts(o);
      bumpGeneration(o, old);
    },
    validate: validateEndpointSlice,
    validateUpdate: (o, old) => immutable('addressType', o.addressType, old.addressType),
  },
});
