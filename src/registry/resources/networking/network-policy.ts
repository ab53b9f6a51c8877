/**
 * networking/v1 NetworkPolicy: defaults (`policyTypes`, port protocol TCP), the reference's rules for ports,
 * peers and selectors, and the POD-SELECTOR table.
 */
import { NETWORKING_GROUP } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { column } from '../../schema.js';
import type { ResourceType } from '../../types.js';
import { isValidPortNum } from '../../validation/index.js';
import { FieldReader, isRec, type Rec } from '../events/fields.js';
import { isValidPortName } from '../pods/ports.js';
import { referenceType } from '../reference.js';
import { isStrictSubset, parseCidr } from './cidr.js';
import { validateLabelSelector } from '../../validation/index.js';
import { formatLabelSelector } from '../../../selectors/index.js';

export const POLICY_TYPES = ['Ingress', 'Egress'];
/** The reference lists them in this order in its message. */
const NETPOL_PROTOCOLS = ['TCP', 'UDP', 'SCTP'];
const CIDR_MESSAGE = 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)';

/** The rule lists and the names of their peer lists. */
const DIRECTIONS = [
  ['ingress', 'from'],
  ['egress', 'to'],
] as const;

/** The reference's defaults: ports speak TCP; policyTypes is Ingress, plus Egress when egress rules exist. */
export function defaultNetworkPolicy(o: ApiObject): void {
  if (!isRec(o.spec)) return;
  const spec = o.spec;
  for (const [direction] of DIRECTIONS) {
    for (const rule of Array.isArray(spec[direction]) ? spec[direction] : []) {
      for (const port of isRec(rule) && Array.isArray(rule.ports) ? rule.ports : []) {
        if (isRec(port) && (port.protocol === undefined || port.protocol === null)) port.protocol = 'TCP';
      }
    }
  }
  if (!Array.isArray(spec.policyTypes) || spec.policyTypes.length === 0) {
    spec.policyTypes = Array.isArray(spec.egress) && spec.egress.length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
  }
}

function validatePort(r: FieldReader, port: Rec, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const protocol = r.str(port, 'protocol', `${path}.protocol`);
  if (protocol !== '' && !NETPOL_PROTOCOLS.includes(protocol)) {
    errs.push(fieldError.notSupported(`${path}.protocol`, protocol, NETPOL_PROTOCOLS));
  }
  const endPort = r.int(port, 'endPort', `${path}.endPort`);
  const p = port.port;
  if (typeof p === 'number') {
    for (const msg of isValidPortNum(p)) errs.push(fieldError.invalid(`${path}.port`, p, msg));
    if (endPort !== undefined) {
      if (endPort < p) errs.push(fieldError.invalid(`${path}.endPort`, p, 'must be greater than or equal to `port`'));
      for (const msg of isValidPortNum(endPort)) errs.push(fieldError.invalid(`${path}.endPort`, endPort, msg));
    }
  } else if (typeof p === 'string') {
    if (endPort !== undefined) errs.push(fieldError.invalid(`${path}.endPort`, endPort, 'may not be specified when `port` is non-numeric'));
    for (const msg of isValidPortName(p)) errs.push(fieldError.invalid(`${path}.port`, p, msg));
  } else if (p !== undefined && p !== null) {
    errs.push(fieldError.typeInvalid(`${path}.port`, p, 'must be an integer or a string'));
  } else if (endPort !== undefined) {
    errs.push(fieldError.invalid(`${path}.endPort`, endPort, 'may not be specified when `port` is not specified'));
  }
  return errs;
}

/** ipBlock: a CIDR, and `except` entries that are strict subsets of it. */
export function validateIPBlock(r: FieldReader, block: Rec, path: string): FieldError[] {
  const text = r.str(block, 'cidr', `${path}.cidr`);
  if (text === '') return [fieldError.required(`${path}.cidr`)];
  const cidr = parseCidr(text);
  if (!cidr) return [fieldError.invalid(`${path}.cidr`, text, CIDR_MESSAGE)];
  const errs: FieldError[] = [];
  r.strList(block, 'except', `${path}.except`).forEach((e, i) => {
    const except = parseCidr(e);
    if (!except) errs.push(fieldError.invalid(`${path}.except[${i}]`, e, CIDR_MESSAGE));
    else if (!isStrictSubset(except, cidr)) errs.push(fieldError.invalid(`${path}.except[${i}]`, e, 'must be a strict subset of `cidr`'));
  });
  return errs;
}

function validatePeer(r: FieldReader, peer: Rec, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let peers = 0;
  for (const key of ['podSelector', 'namespaceSelector'] as const) {
    const sel = r.obj(peer, key, `${path}.${key}`);
    if (!sel) continue;
    peers++;
    errs.push(...validateLabelSelector(sel, `${path}.${key}`));
  }
  const block = r.obj(peer, 'ipBlock', `${path}.ipBlock`);
  if (block) {
    peers++;
    errs.push(...validateIPBlock(r, block, `${path}.ipBlock`));
  }
  if (peers === 0) errs.push(fieldError.required(path, 'Required value: must specify a peer'));
  else if (peers > 1 && block) errs.push(fieldError.forbidden(path, 'may not specify both ipBlock and another peer'));
  return errs;
}

/** Calls `fn` for every object in a list field, reporting entries that are not objects. */
function eachRec(r: FieldReader, o: Rec, key: string, path: string, errs: FieldError[], fn: (x: Rec, at: string) => void): void {
  r.list(o, key, path).forEach((x, i) => {
    if (isRec(x)) fn(x, `${path}[${i}]`);
    else errs.push(fieldError.typeInvalid(`${path}[${i}]`, x, 'must be of type object'));
  });
}

export function validateNetworkPolicy(o: ApiObject): FieldError[] {
  const r = new FieldReader();
  const spec = r.obj(o, 'spec', 'spec') ?? {};
  const errs = validateLabelSelector(spec.podSelector ?? {}, 'spec.podSelector');
  for (const [direction, peersKey] of DIRECTIONS) {
    eachRec(r, spec, direction, `spec.${direction}`, errs, (rule, at) => {
      eachRec(r, rule, 'ports', `${at}.ports`, errs, (port, p) => errs.push(...validatePort(r, port, p)));
      eachRec(r, rule, peersKey, `${at}.${peersKey}`, errs, (peer, p) => errs.push(...validatePeer(r, peer, p)));
    });
  }
  const types = r.strList(spec, 'policyTypes', 'spec.policyTypes');
  if (types.length > POLICY_TYPES.length) {
    errs.push(fieldError.invalid('spec.policyTypes', types, 'may not specify more than two policyTypes'));
  } else {
    types.forEach((t, i) => {
      if (!POLICY_TYPES.includes(t)) errs.push(fieldError.notSupported(`spec.policyTypes[${i}]`, t, POLICY_TYPES));
    });
  }
  return [...r.errors, ...errs];
}

export const networkPolicies: ResourceType = referenceType(NETWORKING_GROUP, 'v1', 'networkpolicies', {
  shortNames: ['netpol'],
  tableColumns: [column('Pod-Selector', 'string', 'The pods the policy applies to.', (o) => formatLabelSelector(isRec(o.spec) ? o.spec.podSelector : undefined))],
  strategy: {
    prepareForCreate: defaultNetworkPolicy,
    prepareForUpdate: defaultNetworkPolicy,
    validate: validateNetworkPolicy,
  },
});
