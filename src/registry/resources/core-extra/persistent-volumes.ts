/** core/v1 PersistentVolume: a piece of storage in the cluster, with one volume source. */
import { isDeepStrictEqual } from 'node:util';
import type { ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { nowTimestamp } from '../../object-meta.js';
import { column } from '../../schema.js';
import type { ResourceType } from '../../types.js';
import { objectAt, referenceType } from '../reference.js';
import { quantityAt, quantityText, resourceEntries } from './resource-names.js';
import {
  accessModesText,
  isAbsent,
  orUnset,
  phaseText,
  rec,
  storageClassOf,
  text,
  validateAccessModes,
  validateClassName,
  validateVolumeMode,
  type Obj,
} from './volume-common.js';

export const RECLAIM_POLICIES = ['Delete', 'Recycle', 'Retain'] as const;
const HOST_PATH_TYPES = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];

/**
 * The volume sources of a PersistentVolume, in the order the reference checks them (the first one present
 * counts; any further one is "more than 1 volume type"), with the fields each one requires.
 */
const VOLUME_SOURCES: [string, string[]][] = [
  ['hostPath', ['path']],
  ['gcePersistentDisk', ['pdName']],
  ['awsElasticBlockStore', ['volumeID']],
  ['glusterfs', ['endpoints', 'path']],
  ['flocker', []],
  ['nfs', ['server', 'path']],
  ['rbd', ['monitors', 'image']],
  ['quobyte', ['registry', 'volume']],
  ['cephfs', ['monitors']],
  ['iscsi', ['targetPortal', 'iqn']],
  ['cinder', ['volumeID']],
  ['fc', []],
  ['flexVolume', ['driver']],
  ['azureFile', ['secretName', 'shareName']],
  ['vsphereVolume', ['volumePath']],
  ['photonPersistentDisk', ['pdID']],
  ['portworxVolume', ['volumeID']],
  ['azureDisk', ['diskName', 'diskURI']],
  ['scaleIO', ['gateway', 'system', 'secretRef']],
  ['local', ['path']],
  ['storageos', []],
  ['csi', ['driver', 'volumeHandle']],
];
const SOURCE_NAMES = VOLUME_SOURCES.map(([name]) => name);

/** The fields of the spec that make up its volume source. */
function volumeSource(spec: Obj): Obj {
  return Object.fromEntries(SOURCE_NAMES.filter((k) => spec[k] !== undefined && spec[k] !== null).map((k) => [k, spec[k]]));
}

function validateSources(spec: Obj): FieldError[] {
  const errs: FieldError[] = [];
  let found = 0;
  for (const [name, required] of VOLUME_SOURCES) {
    const src = spec[name];
    if (src === undefined || src === null) continue;
    const path = `spec.${name}`;
    if (found++ > 0) {
      errs.push(fieldError.forbidden(path, 'may not specify more than 1 volume type'));
      continue;
    }
    const fields = rec(src);
    for (const f of required) {
      const v = fields[f];
      if (isAbsent(v) || (Array.isArray(v) && v.length === 0)) errs.push(fieldError.required(`${path}.${f}`));
    }
  }
  if (found === 0) errs.push(fieldError.required('spec', 'must specify a volume type'));
  const hostPath = rec(spec.hostPath);
  if (hostPath.type !== undefined && hostPath.type !== null && !HOST_PATH_TYPES.includes(hostPath.type as string)) {
    errs.push(fieldError.notSupported('spec.hostPath.type', hostPath.type, HOST_PATH_TYPES));
  }
  const nfsPath = rec(spec.nfs).path;
  if (typeof nfsPath === 'string' && nfsPath !== '' && !nfsPath.startsWith('/')) errs.push(fieldError.invalid('spec.nfs.path', nfsPath, 'must be an absolute path'));
  if (spec.local !== undefined && spec.local !== null && (spec.nodeAffinity === undefined || spec.nodeAffinity === null)) {
    errs.push(fieldError.required('spec.nodeAffinity', 'Local volume requires node affinity'));
  }
  return errs;
}

/** `spec.capacity` holds exactly `storage`, a quantity greater than zero. */
function validateCapacity(v: unknown): FieldError[] {
  const errs: FieldError[] = [];
  const entries = resourceEntries(v, 'spec.capacity', errs);
  if (errs.length > 0) return errs;
  if (entries.length === 0) return [fieldError.required('spec.capacity')];
  if (!entries.some(([k]) => k === 'storage') || entries.length > 1) errs.push(fieldError.notSupported('spec.capacity', v, ['storage']));
  for (const [k, q] of entries) {
    const path = `spec.capacity[${k}]`;
    const n = quantityAt(q, path, errs);
    if (n !== undefined && n <= 0) errs.push(fieldError.invalid(path, q, 'must be greater than zero'));
  }
  return errs;
}

export function validatePersistentVolume(o: ApiObject): FieldError[] {
  const spec = rec(o.spec);
  const errs = [...validateAccessModes(spec.accessModes, 'spec.accessModes'), ...validateCapacity(spec.capacity), ...validateSources(spec)];
  const policy = spec.persistentVolumeReclaimPolicy;
  if (!isAbsent(policy) && !(RECLAIM_POLICIES as readonly string[]).includes(policy as string)) {
    errs.push(fieldError.notSupported('spec.persistentVolumeReclaimPolicy', policy, RECLAIM_POLICIES));
  }
  errs.push(...validateClassName(spec.storageClassName, 'spec.storageClassName'));
  errs.push(...validateVolumeMode(spec.volumeMode, 'spec.volumeMode'));
  if (spec.volumeAttributesClassName === '') errs.push(fieldError.required('spec.volumeAttributesClassName', 'an empty string is disallowed'));
  else errs.push(...validateClassName(spec.volumeAttributesClassName, 'spec.volumeAttributesClassName'));
  return errs;
}

/** The volume source, its mode and (once set) its node affinity are fixed at creation. */
export function validatePersistentVolumeUpdate(o: ApiObject, old: ApiObject): FieldError[] {
  const spec = rec(o.spec);
  const oldSpec = rec(old.spec);
  const errs: FieldError[] = [];
  if (!isDeepStrictEqual(volumeSource(spec), volumeSource(oldSpec))) {
    errs.push(fieldError.forbidden('spec.persistentvolumesource', 'spec.persistentvolumesource is immutable after creation'));
  }
  if (!isDeepStrictEqual(spec.volumeMode, oldSpec.volumeMode)) errs.push(fieldError.invalid('volumeMode', spec.volumeMode, 'field is immutable'));
  if (oldSpec.nodeAffinity !== undefined && oldSpec.nodeAffinity !== null && !isDeepStrictEqual(spec.nodeAffinity, oldSpec.nodeAffinity)) {
    errs.push(fieldError.invalid('spec.nodeAffinity', spec.nodeAffinity ?? null, 'field is immutable'));
  }
  return errs;
}

function defaultSpec(o: ApiObject): void {
  const spec = objectAt(o, ['spec'], true);
  if (!spec) return;
  if (isAbsent(spec.persistentVolumeReclaimPolicy)) spec.persistentVolumeReclaimPolicy = 'Retain';
  if (spec.volumeMode === undefined || spec.volumeMode === null) spec.volumeMode = 'Filesystem';
}

/**
 * A status write keeps the spec (the generic status rules) and stamps `lastPhaseTransitionTime` when the
 * phase changes and the writer did not give a newer time.
 */
function stampPhaseTransition(o: ApiObject, old: ApiObject): void {
  const status = objectAt(o, ['status'], true);
  if (!status) return;
  if (isAbsent(status.phase)) status.phase = 'Pending';
  const oldStatus = rec(old.status);
  const given = status.lastPhaseTransitionTime;
  if (status.phase === oldStatus.phase) {
    if (given === undefined || given === null) {
      if (oldStatus.lastPhaseTransitionTime === undefined) delete status.lastPhaseTransitionTime;
      else status.lastPhaseTransitionTime = oldStatus.lastPhaseTransitionTime;
    }
  } else if (given === undefined || given === null || given === oldStatus.lastPhaseTransitionTime) {
    status.lastPhaseTransitionTime = nowTimestamp();
  }
}

export const persistentVolumes: ResourceType = referenceType('', 'v1', 'persistentvolumes', {
  shortNames: ['pv'],
  strategy: {
    prepareForCreate(o) {
      defaultSpec(o);
      o.status = { phase: 'Pending', lastPhaseTransitionTime: nowTimestamp() };
    },
    prepareForUpdate: defaultSpec,
    prepareForStatusUpdate: stampPhaseTransition,
    validate: validatePersistentVolume,
    validateUpdate: validatePersistentVolumeUpdate,
  },
  tableColumns: [
    column('Capacity', 'string', 'Storage the volume provides.', (o) => quantityText(rec(rec(o.spec).capacity).storage)),
    column('Access Modes', 'string', 'How the volume may be mounted.', (o) => accessModesText(rec(o.spec).accessModes)),
    column('Reclaim Policy', 'string', 'What happens to the volume once its claim is released.', (o) => text(rec(o.spec).persistentVolumeReclaimPolicy)),
    column('Status', 'string', 'Phase of the volume.', phaseText),
    column('Claim', 'string', 'The claim bound to the volume, as namespace/name.', (o) => {
      const ref = rec(o.spec).claimRef;
      return ref === undefined || ref === null ? '' : `${text(rec(ref).namespace)}/${text(rec(ref).name)}`;
    }),
    column('StorageClass', 'string', 'Storage class of the volume.', storageClassOf),
    column('VolumeAttributesClass', 'string', 'Volume attributes class of the volume.', (o) => orUnset(rec(o.spec).volumeAttributesClassName)),
    column('Reason', 'string', 'Why the volume is in its phase, when failed.', (o) => text(rec(o.status).reason)),
    column('VolumeMode', 'string', 'Filesystem or raw block device.', (o) => orUnset(rec(o.spec).volumeMode), 1),
  ],
});
