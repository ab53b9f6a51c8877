/**
 * APIService (apiregistration/v1) rules: the name is `<version>.<group>`, priorities are positive and
 * bounded, a local APIService (no `service`) carries no TLS settings, a remote one names a service and a
 * valid port. A local APIService is served by this server itself, so it is always available: the strategy
 * writes that condition itself, which is what the reference's availability controller concludes at once.
 */
import type { ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { nowTimestamp } from '../../object-meta.js';
import { isDNS1123Subdomain, isValidPortNum } from '../../validation/index.js';
import { isDNS1035Label, required } from '../admissionregistration/rules.js';
import { FieldReader, isRec, type Rec } from '../events/fields.js';

export const MAX_GROUP_PRIORITY_MINIMUM = 20000;
export const MAX_VERSION_PRIORITY = 1000;
export const DEFAULT_SERVICE_PORT = 443;
export const CONDITION_STATUSES = ['True', 'False', 'Unknown'] as const;

export const LOCAL_REASON = 'Local';
const LOCAL_MESSAGE = 'Local APIServices are always available';

const specOf = (o: ApiObject): Rec => (isRec(o.spec) ? o.spec : {});
const isLocal = (o: ApiObject) => specOf(o).service === undefined || specOf(o).service === null;

export function defaultAPIService(o: ApiObject): void {
  const service = specOf(o).service;
  if (isRec(service) && (service.port === undefined || service.port === null)) service.port = DEFAULT_SERVICE_PORT;
}

function conditionsOf(o: ApiObject): Rec[] {
  const status = isRec(o.status) ? o.status : {};
  return Array.isArray(status.conditions) ? status.conditions.filter(isRec) : [];
}

/**
 * A local APIService gets (or keeps) Available=True/Local; a remote one loses a Local verdict that no
 * longer applies and otherwise waits for a controller that can reach its service.
 */
export function settleAvailability(o: ApiObject): void {
  const others = conditionsOf(o).filter((c) => c.type !== 'Available');
  const current = conditionsOf(o).find((c) => c.type === 'Available');
  if (isLocal(o)) {
    const keep = current && current.status === 'True' && current.reason === LOCAL_REASON;
    const available = keep ? current : { type: 'Available', status: 'True', lastTransitionTime: nowTimestamp(), reason: LOCAL_REASON, message: LOCAL_MESSAGE };
    o.status = { ...(isRec(o.status) ? o.status : {}), conditions: [...others, available] };
  } else if (current?.reason === LOCAL_REASON) {
    o.status = { ...(isRec(o.status) ? o.status : {}), conditions: others };
  }
}

function validateName(o: ApiObject, spec: Rec): FieldError[] {
  const name = o.metadata?.name;
  const want = `${typeof spec.version === 'string' ? spec.version : ''}.${typeof spec.group === 'string' ? spec.group : ''}`;
  // The store has already checked that the name is a valid path segment.
  return typeof name === 'string' && name !== '' && name !== want ? [fieldError.invalid('metadata.name', name, `must be \`spec.version+"."+spec.group\`: "${want}"`)] : [];
}

function validatePriority(r: FieldReader, spec: Rec, key: string, max: number): FieldError[] {
  const v = r.int(spec, key, `spec.${key}`) ?? 0;
  return v <= 0 || v > max ? [fieldError.invalid(`spec.${key}`, v, `must be positive and less than ${max}`)] : [];
}

export function validateAPIService(o: ApiObject): FieldError[] {
  const r = new FieldReader();
  const spec = r.obj(o, 'spec', 'spec') ?? {};
  const errs = validateName(o, spec);
  const group = r.str(spec, 'group', 'spec.group');
  const version = r.str(spec, 'version', 'spec.version');
  if (group === '' && version !== 'v1') errs.push(required('spec.group', 'only v1 may have an empty group and it better be legacy kube'));
  if (group !== '') for (const msg of isDNS1123Subdomain(group)) errs.push(fieldError.invalid('spec.group', group, msg));
  for (const msg of isDNS1035Label(version)) errs.push(fieldError.invalid('spec.version', version, msg));
  errs.push(...validatePriority(r, spec, 'groupPriorityMinimum', MAX_GROUP_PRIORITY_MINIMUM));
  errs.push(...validatePriority(r, spec, 'versionPriority', MAX_VERSION_PRIORITY));
  const caBundle = r.str(spec, 'caBundle', 'spec.caBundle');
  const skipVerify = spec.insecureSkipTLSVerify === true;
  const service = r.obj(spec, 'service', 'spec.service');
  if (!service) {
    if (caBundle !== '') errs.push(fieldError.invalid('spec.caBundle', `${Buffer.from(caBundle, 'base64').length} bytes`, 'local APIServices may not have a caBundle'));
    if (skipVerify) errs.push(fieldError.invalid('spec.insecureSkipTLSVerify', true, 'local APIServices may not have insecureSkipTLSVerify'));
  } else {
    if (r.str(service, 'namespace', 'spec.service.namespace') === '') errs.push(required('spec.service.namespace'));
    if (r.str(service, 'name', 'spec.service.name') === '') errs.push(required('spec.service.name'));
    const port = r.int(service, 'port', 'spec.service.port') ?? DEFAULT_SERVICE_PORT;
    const portErrs = isValidPortNum(port);
    if (portErrs.length > 0) errs.push(fieldError.invalid('spec.service.port', port, `port is not valid: ${portErrs.join(', ')}`));
    if (skipVerify && caBundle !== '') errs.push(fieldError.invalid('spec.insecureSkipTLSVerify', true, 'may not be true if caBundle is present'));
  }
  conditionsOf(o).forEach((c, i) => {
    if (!(CONDITION_STATUSES as readonly string[]).includes(String(c.status))) {
      errs.push(fieldError.notSupported(`status.conditions[${i}].status`, c.status ?? '', CONDITION_STATUSES));
    }
  });
  return [...r.errors, ...errs];
}
