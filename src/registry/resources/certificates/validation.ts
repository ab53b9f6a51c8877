/**
 * CertificateSigningRequest validation with the reference's rules: the request PEM, signer name, usages,
 * expirationSeconds, conditions, the issued certificate, and what each of the three writers (main
 * resource, `status`, `approval`) may change.
 */
import { LEGACY_UNKNOWN_SIGNER } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { jsonEqual } from '../../../patch/index.js';
import { isDNS1123Label, isDNS1123Subdomain, DNS1123_LABEL_MAX_LENGTH, DNS1123_SUBDOMAIN_MAX_LENGTH } from '../../validation/index.js';
import { FieldReader, isRec, type Rec } from '../events/fields.js';
import { certificateChainProblem, certificateRequestProblem, decodeBytes } from './pem.js';

/** Key usages a request may ask for (the reference's list, in its sorted order for messages). */
export const KEY_USAGES = [
  'any', 'cert sign', 'client auth', 'code signing', 'content commitment', 'crl sign', 'data encipherment',
  'decipher only', 'digital signature', 'email protection', 'encipher only', 'ipsec end system', 'ipsec tunnel',
  'ipsec user', 'key agreement', 'key encipherment', 'microsoft sgc', 'netscape sgc', 'ocsp signing', 's/mime',
  'server auth', 'signing', 'timestamping',
];
export const MIN_EXPIRATION_SECONDS = 600;
const CONDITION_STATUSES = ['False', 'True', 'Unknown'];
/** Condition types the approval subresource owns. */
export const APPROVAL_TYPES = ['Approved', 'Denied'];
/** Condition types whose status, when present, can only be True. */
const TRUE_ONLY_TYPES = [...APPROVAL_TYPES, 'Failed'];
/**
 * A domain (a subdomain), '/', and a path long enough for `<namespace>.<resource name>` (a label, '.', a
 * subdomain): 253 + 1 + (63 + 1 + 253) = 571.
 */
const MAX_SIGNER_NAME = DNS1123_SUBDOMAIN_MAX_LENGTH + 1 + (DNS1123_LABEL_MAX_LENGTH + 1 + DNS1123_SUBDOMAIN_MAX_LENGTH);

/** The reference's ValidateSignerName: `<domain with two or more labels>/<path of subdomain components>`. */
export function validateSignerName(path: string, name: string): FieldError[] {
  if (name === '') return [fieldError.required(path)];
  const segments = name.split('/');
  if (segments.length !== 2) return [fieldError.invalid(path, name, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  const [domain = '', rest = ''] = segments;
  const errs: FieldError[] = [];
  if (domain.length > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(fieldError.tooLong(path, DNS1123_SUBDOMAIN_MAX_LENGTH));
  const labels = domain.split('.');
  for (const label of labels) {
    const problems = isDNS1123Label(label);
    if (problems.length === 0) continue;
    for (const msg of problems) errs.push(fieldError.invalid(path, domain, `validating label "${label}": ${msg}`));
    break;
  }
  if (labels.length < 2) errs.push(fieldError.invalid(path, domain, 'should be a domain with at least two segments separated by dots'));
  for (const part of rest.split('.')) {
    const problems = isDNS1123Subdomain(part);
    if (problems.length === 0) continue;
    for (const msg of problems) errs.push(fieldError.invalid(path, rest, `validating label "${part}": ${msg}`));
    break;
  }
  if (name.length > MAX_SIGNER_NAME) errs.push(fieldError.tooLong(path, MAX_SIGNER_NAME));
  return errs;
}

const conditionsOf = (o: ApiObject): Rec[] => (isRec(o.status) && Array.isArray(o.status.conditions) ? o.status.conditions.filter(isRec) : []);
const ofType = (o: ApiObject, type: string) => conditionsOf(o).filter((c) => c.type === type);

function validateConditions(r: FieldReader, o: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  const path = 'status.conditions';
  r.list(r.obj(o, 'status', 'status'), 'conditions', path).forEach((c, i) => {
    const at = `${path}[${i}]`;
    const cond = isRec(c) ? c : {};
    const type = r.str(cond, 'type', `${at}.type`);
    const status = r.str(cond, 'status', `${at}.status`);
    if (type === '') errs.push(fieldError.required(`${at}.type`));
    const allowed = TRUE_ONLY_TYPES.includes(type) ? ['True'] : CONDITION_STATUSES;
    if (status === '') errs.push(fieldError.required(`${at}.status`));
    else if (!allowed.includes(status)) errs.push(fieldError.notSupported(`${at}.status`, status, allowed));
    // The second of the pair is the one reported, at its own index.
    const other = type === 'Approved' ? 'Denied' : type === 'Denied' ? 'Approved' : undefined;
    if (other && seen.has(other)) errs.push(fieldError.invalid(`${at}.type`, type, 'Approved and Denied conditions are mutually exclusive'));
    if (seen.has(type)) errs.push(fieldError.duplicate(`${at}.type`, type));
    seen.add(type);
  });
  return errs;
}

/** A `[]byte` field as PEM text: '' when absent; undefined (and an error) when not base64. */
function pemText(r: FieldReader, o: Rec | undefined, key: string, path: string, errs: FieldError[]): string | undefined {
  const v = r.str(o, key, path);
  const bytes = decodeBytes(v);
  if (bytes === undefined) {
    errs.push(fieldError.invalid(path, v, 'must be base64-encoded'));
    return undefined;
  }
  return bytes.toString('latin1');
}

/** ValidateCertificateSigningRequestCreate (and the object part of every update). */
export function validateCSR(o: ApiObject): FieldError[] {
  const r = new FieldReader();
  const spec = r.obj(o, 'spec', 'spec') ?? {};
  const errs: FieldError[] = [];
  const request = pemText(r, spec, 'request', 'spec.request', errs);
  if (request !== undefined) {
    const problem = certificateRequestProblem(request);
    if (problem) errs.push(fieldError.invalid('spec.request', spec.request ?? '', problem));
  }
  const usages = r.strList(spec, 'usages', 'spec.usages');
  if (usages.length === 0) errs.push(fieldError.required('spec.usages'));
  usages.forEach((u, i) => {
    if (!KEY_USAGES.includes(u)) errs.push(fieldError.notSupported(`spec.usages[${i}]`, u, KEY_USAGES));
    if (usages.indexOf(u) !== i) errs.push(fieldError.duplicate(`spec.usages[${i}]`, u));
  });
  const signerName = r.str(spec, 'signerName', 'spec.signerName');
  if (signerName === LEGACY_UNKNOWN_SIGNER) errs.push(fieldError.invalid('spec.signerName', signerName, 'the legacy signerName is not allowed via this API version'));
  else errs.push(...validateSignerName('spec.signerName', signerName));
  const seconds = r.int(spec, 'expirationSeconds', 'spec.expirationSeconds');
  if (seconds !== undefined && seconds < MIN_EXPIRATION_SECONDS) {
    errs.push(fieldError.invalid('spec.expirationSeconds', seconds, 'may not specify a duration less than 600 seconds (10 minutes)'));
  }
  errs.push(...validateConditions(r, o));
  const status = r.obj(o, 'status', 'status');
  if (status?.certificate !== undefined && status.certificate !== null && status.certificate !== '') {
    const cert = pemText(r, status, 'certificate', 'status.certificate', errs);
    const problem = cert === undefined ? undefined : certificateChainProblem(cert);
    if (problem) errs.push(fieldError.invalid('status.certificate', '<certificate data>', problem));
  }
  return [...r.errors, ...errs];
}

/**
 * The update rules shared by the three writers: Approved, Denied and Failed conditions are never removed;
 * unless `approval`, Approved and Denied may not be added or changed; only `status` may set the certificate,
 * and never change one already issued.
 */
export function validateCSRUpdate(o: ApiObject, old: ApiObject, writer: 'main' | 'status' | 'approval'): FieldError[] {
  const errs: FieldError[] = [];
  for (const type of ['Approved', 'Denied', 'Failed']) {
    if (ofType(o, type).length < ofType(old, type).length) errs.push(fieldError.forbidden('status.conditions', `updates may not remove a condition of type "${type}"`));
  }
  if (writer !== 'approval') {
    for (const type of APPROVAL_TYPES) {
      const [next, prev] = [ofType(o, type), ofType(old, type)];
      if (next.length > prev.length) errs.push(fieldError.forbidden('status.conditions', `updates may not add a condition of type "${type}"`));
      else if (next.length === prev.length && !jsonEqual(next, prev)) errs.push(fieldError.forbidden('status.conditions', `updates may not modify a condition of type "${type}"`));
    }
  }
  const cert = (x: ApiObject) => (isRec(x.status) && typeof x.status.certificate === 'string' ? x.status.certificate : '');
  if (cert(o) !== cert(old)) {
    if (writer !== 'status') errs.push(fieldError.forbidden('status.certificate', 'updates may not set certificate content'));
    else if (cert(old) !== '') errs.push(fieldError.forbidden('status.certificate', 'updates may not modify existing certificate content'));
  }
  return errs;
}
