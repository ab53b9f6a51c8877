/**
 * storage/v1 CSIDriver: the reference's defaults for every optional spec field, its rules for token
 * requests, modes and the fsGroup policy, immutable attachRequired and volumeLifecycleModes (podInfoOnMount
 * and fsGroupPolicy became mutable in 1.29), and the table.
 */
import { STORAGE_GROUP } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { column } from '../../schema.js';
import type { ResourceType } from '../../types.js';
import { isDNS1123Subdomain } from '../../validation/index.js';
import { FieldReader, immutable, isRec, type Rec } from '../events/fields.js';
import { referenceType } from '../reference.js';

export const FS_GROUP_POLICIES = ['File', 'None', 'ReadWriteOnceWithFSType'];
export const LIFECYCLE_MODES = ['Persistent', 'Ephemeral'];
const MAX_DRIVER_NAME = 63;
const MIN_TOKEN_SECONDS = 10 * 60;
const MAX_TOKEN_SECONDS = 2 ** 32;

/** Defaults of an unset field, in the reference's order. */
export const CSI_DRIVER_DEFAULTS: Readonly<Record<string, unknown>> = {
  attachRequired: true,
  podInfoOnMount: false,
  storageCapacity: false,
  fsGroupPolicy: 'ReadWriteOnceWithFSType',
  requiresRepublish: false,
  seLinuxMount: false,
};

export function defaultCSIDriver(o: ApiObject): void {
  if (o.spec === undefined || o.spec === null) o.spec = {};
  if (!isRec(o.spec)) return;
  const spec = o.spec;
  for (const [k, v] of Object.entries(CSI_DRIVER_DEFAULTS)) if (spec[k] === undefined || spec[k] === null) spec[k] = v;
  if (!Array.isArray(spec.volumeLifecycleModes) || spec.volumeLifecycleModes.length === 0) spec.volumeLifecycleModes = ['Persistent'];
}

/** CSI driver names (CSIDriver, CSINode drivers, VolumeAttachment attacher): a subdomain of at most 63 characters. */
export function csiDriverNameErrors(name: string, path: string): FieldError[] {
  if (name === '') return [fieldError.required(path)];
  const errs: FieldError[] = [];
  if (name.length > MAX_DRIVER_NAME) errs.push(fieldError.tooLong(path, MAX_DRIVER_NAME));
  for (const msg of isDNS1123Subdomain(name.toLowerCase())) errs.push(fieldError.invalid(path, name, msg));
  return errs;
}

function validateTokenRequests(r: FieldReader, spec: Rec): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  r.list(spec, 'tokenRequests', 'spec.tokenRequests').forEach((t, i) => {
    const at = `spec.tokenRequests[${i}]`;
    const req = isRec(t) ? t : {};
    const audience = r.str(req, 'audience', `${at}.audience`);
    if (seen.has(audience)) {
      errs.push(fieldError.duplicate(`${at}.audience`, audience));
      return;
    }
    seen.add(audience);
    const seconds = r.int(req, 'expirationSeconds', `${at}.expirationSeconds`);
    if (seconds === undefined) return;
    if (seconds < MIN_TOKEN_SECONDS) errs.push(fieldError.invalid(`${at}.expirationSeconds`, seconds, 'may not specify a duration less than 10 minutes'));
    if (seconds > MAX_TOKEN_SECONDS) errs.push(fieldError.invalid(`${at}.expirationSeconds`, seconds, 'may not specify a duration larger than 2^32 seconds'));
  });
  return errs;
}

export function validateCSIDriver(o: ApiObject): FieldError[] {
  const r = new FieldReader();
  const errs = csiDriverNameErrors(typeof o.metadata?.name === 'string' ? o.metadata.name : '', 'name');
  const spec = r.obj(o, 'spec', 'spec') ?? {};
  for (const key of ['attachRequired', 'podInfoOnMount', 'storageCapacity', 'requiresRepublish', 'seLinuxMount']) {
    const v = spec[key];
    if (v === undefined || v === null) {
      if (key !== 'requiresRepublish') errs.push(fieldError.required(`spec.${key}`));
    } else if (typeof v !== 'boolean') errs.push(fieldError.typeInvalid(`spec.${key}`, v, 'must be of type boolean'));
  }
  const policy = r.str(spec, 'fsGroupPolicy', 'spec.fsGroupPolicy');
  if (policy !== '' && !FS_GROUP_POLICIES.includes(policy)) errs.push(fieldError.notSupported('spec.fsGroupPolicy', policy, FS_GROUP_POLICIES));
  errs.push(...validateTokenRequests(r, spec));
  for (const mode of r.strList(spec, 'volumeLifecycleModes', 'spec.volumeLifecycleModes')) {
    if (!LIFECYCLE_MODES.includes(mode)) errs.push(fieldError.notSupported('spec.volumeLifecycleModes', mode, LIFECYCLE_MODES));
  }
  return [...r.errors, ...errs];
}

const specOf = (o: ApiObject): Rec => (isRec(o.spec) ? o.spec : {});

export function validateCSIDriverUpdate(o: ApiObject, old: ApiObject): FieldError[] {
  const [next, prev] = [specOf(o), specOf(old)];
  return [
    ...immutable('spec.attachRequired', next.attachRequired, prev.attachRequired),
    ...immutable('spec.volumeLifecycleModes', next.volumeLifecycleModes, prev.volumeLifecycleModes),
  ];
}

/** Table cell of a defaulted boolean: the stored value, else the default. */
const flag = (key: string) => (o: ApiObject) => {
  const v = specOf(o)[key];
  return typeof v === 'boolean' ? v : CSI_DRIVER_DEFAULTS[key] === true;
};

export function csiDriverTokenRequests(o: ApiObject): string {
  const reqs = specOf(o).tokenRequests;
  if (!Array.isArray(reqs)) return '<unset>';
  return reqs.map((t) => (isRec(t) && typeof t.audience === 'string' ? t.audience : '')).join(',');
}

export function csiDriverModes(o: ApiObject): string {
  const modes = specOf(o).volumeLifecycleModes;
  const text = Array.isArray(modes) ? modes.map(String).join(',') : '';
  return text === '' ? '<none>' : text;
}

export const csiDrivers: ResourceType = referenceType(STORAGE_GROUP, 'v1', 'csidrivers', {
  tableColumns: [
    column('AttachRequired', 'boolean', 'Whether volumes need an attach step.', flag('attachRequired')),
    column('PodInfoOnMount', 'boolean', 'Whether mounts receive pod information.', flag('podInfoOnMount')),
    column('StorageCapacity', 'boolean', 'Whether the driver publishes storage capacity.', flag('storageCapacity')),
    column('TokenRequests', 'string', 'Audiences of the tokens passed to the driver.', csiDriverTokenRequests),
    column('RequiresRepublish', 'boolean', 'Whether volumes are mounted again periodically.', flag('requiresRepublish')),
    column('Modes', 'string', 'The volume lifecycle modes the driver supports.', csiDriverModes),
  ],
  strategy: {
    prepareForCreate: defaultCSIDriver,
    prepareForUpdate: defaultCSIDriver,
    validate: validateCSIDriver,
    validateUpdate: validateCSIDriverUpdate,
  },
});
