/** apps/v1 StatefulSet: pods with stable names and storage, created and updated in order. */
import { isObject, type ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { column } from '../../schema.js';
import type { ResourceType } from '../../types.js';
import { validateAnnotations, validateLabels } from '../../validation/index.js';
import { defaultPodTemplate } from '../pods/template.js';
import { referenceType } from '../reference.js';
import { containerColumns, count } from './workload-table.js';
import {
  checkSelector,
  checkTemplateLabels,
  child,
  defaultString,
  defaultValue,
  intOrPercentValue,
  isAbsent,
  nonNegativeInt,
  notOver100Percent,
  rec,
  semanticallyEqual,
  validateIntOrPercent,
  type Obj,
  STRUCTURED_SCALE,
} from './workload-validation.js';

const RETENTION_POLICIES = ['Retain', 'Delete'];

/** Spec fields an update may change; any other change is forbidden. */
const MUTABLE_FIELDS = ['replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds'];
const FORBIDDEN_UPDATE =
  "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden";

/** The reference's apps/v1 defaults (with its 1.31 feature gates: PVC retention on, maxUnavailable off). */
export function applyStatefulSetDefaults(o: ApiObject): void {
  const spec = child(o, 'spec');
  if (!spec) return;
  defaultString(spec, 'podManagementPolicy', 'OrderedReady');
  const strategy = child(spec, 'updateStrategy');
  if (strategy) {
    if (isAbsent(strategy.type) || strategy.type === '') {
      strategy.type = 'RollingUpdate';
      defaultValue(strategy, 'rollingUpdate', {});
    }
    // Only a rollingUpdate the client gave (or the one just made) gets a partition.
    if (strategy.type === 'RollingUpdate' && isObject(strategy.rollingUpdate)) defaultValue(strategy.rollingUpdate, 'partition', 0);
  }
  const retention = child(spec, 'persistentVolumeClaimRetentionPolicy');
  if (retention) {
    defaultString(retention, 'whenDeleted', 'Retain');
    defaultString(retention, 'whenScaled', 'Retain');
  }
  defaultValue(spec, 'replicas', 1);
  defaultValue(spec, 'revisionHistoryLimit', 10);
  defaultPodTemplate(spec.template);
  // Claim templates get the claim defaults of the reference (filesystem volumes, a Pending status).
  if (Array.isArray(spec.volumeClaimTemplates)) {
    for (const claim of spec.volumeClaimTemplates) {
      if (!isObject(claim)) continue;
      const claimSpec = child(claim, 'spec');
      if (claimSpec) defaultString(claimSpec, 'volumeMode', 'Filesystem');
      const status = child(claim, 'status');
      if (status) defaultString(status, 'phase', 'Pending');
    }
  }
}

/** `rollingUpdate.maxUnavailable` belongs to an alpha feature that is off: dropped unless already in use. */
function dropMaxUnavailable(o: ApiObject, old?: ApiObject): void {
  const inUse = (x?: ApiObject) => !isAbsent(rec(rec(rec(x?.spec).updateStrategy).rollingUpdate).maxUnavailable);
  if (old && inUse(old)) return;
  const rolling = rec(rec(rec(o.spec).updateStrategy).rollingUpdate);
  delete rolling.maxUnavailable;
}

function validateUpdateStrategy(strategy: unknown, errs: FieldError[]): void {
  const path = 'spec.updateStrategy';
  const s = rec(strategy);
  if (isAbsent(s.type) || s.type === '') {
    errs.push(fieldError.required(path));
  } else if (s.type === 'OnDelete') {
    if (!isAbsent(s.rollingUpdate)) errs.push(fieldError.invalid(`${path}.rollingUpdate`, s.rollingUpdate, "only allowed for updateStrategy 'RollingUpdate'"));
  } else if (s.type === 'RollingUpdate') {
    if (isAbsent(s.rollingUpdate)) return;
    if (!isObject(s.rollingUpdate)) {
      errs.push(fieldError.typeInvalid(`${path}.rollingUpdate`, s.rollingUpdate, 'must be an object'));
      return;
    }
    const rolling = rec(s.rollingUpdate);
    const at = `${path}.rollingUpdate`;
    nonNegativeInt(errs, `${at}.partition`, rolling.partition);
    if (!isAbsent(rolling.maxUnavailable)) {
      validateIntOrPercent(errs, `${at}.maxUnavailable`, rolling.maxUnavailable);
      if (intOrPercentValue(rolling.maxUnavailable) === 0) errs.push(fieldError.invalid(`${at}.maxUnavailable`, rolling.maxUnavailable, 'cannot be 0'));
      notOver100Percent(errs, `${at}.maxUnavailable`, rolling.maxUnavailable);
    }
  } else {
    errs.push(fieldError.invalid(path, strategy, "must be 'RollingUpdate' or 'OnDelete'"));
  }
}

function validateRetention(policy: unknown, errs: FieldError[]): void {
  if (isAbsent(policy)) return;
  const p = rec(policy);
  for (const k of ['whenDeleted', 'whenScaled']) {
    if (typeof p[k] !== 'string' || !RETENTION_POLICIES.includes(p[k] as string)) {
      errs.push(fieldError.notSupported(`spec.persistentVolumeClaimRetentionPolicy.${k}`, p[k] ?? '', RETENTION_POLICIES));
    }
  }
}

/**
 * `ValidateStatefulSetSpec`. Like the reference, the template's pod spec is not validated as a whole (its
 * volume mounts may name claim templates, which are not volumes); only its metadata, the selector match,
 * restartPolicy Always and no activeDeadlineSeconds.
 */
export function validateStatefulSet(o: ApiObject): FieldError[] {
  if (!isObject(o.spec)) return [o.spec === undefined ? fieldError.required('spec') : fieldError.typeInvalid('spec', o.spec, 'must be an object')];
  const spec = o.spec;
  const errs: FieldError[] = [];
  const policy = spec.podManagementPolicy;
  if (isAbsent(policy) || policy === '') errs.push(fieldError.required('spec.podManagementPolicy'));
  else if (policy !== 'OrderedReady' && policy !== 'Parallel') {
    errs.push(fieldError.invalid('spec.podManagementPolicy', policy, "must be 'OrderedReady' or 'Parallel'"));
  }
  validateUpdateStrategy(spec.updateStrategy, errs);
  validateRetention(spec.persistentVolumeClaimRetentionPolicy, errs);
  nonNegativeInt(errs, 'spec.revisionHistoryLimit', spec.revisionHistoryLimit);
  nonNegativeInt(errs, 'spec.replicas', spec.replicas);
  if (!isAbsent(spec.ordinals) && !isObject(spec.ordinals)) errs.push(fieldError.typeInvalid('spec.ordinals', spec.ordinals, 'must be an object'));
  else if (!isAbsent(spec.ordinals)) nonNegativeInt(errs, 'spec.ordinals.start', rec(spec.ordinals).start);
  const claims = spec.volumeClaimTemplates;
  if (!isAbsent(claims) && (!Array.isArray(claims) || !claims.every(isObject))) {
    errs.push(fieldError.typeInvalid('spec.volumeClaimTemplates', claims, 'must be an array of objects'));
  }
  nonNegativeInt(errs, 'spec.minReadySeconds', spec.minReadySeconds);
  const sel = checkSelector(spec.selector, 'spec.selector', { kind: 'statefulset', unparsable: '' });
  errs.push(...sel.errors);
  const template = rec(spec.template);
  if (sel.selector) {
    errs.push(...checkTemplateLabels(sel.selector, spec.template, 'spec.template'));
    const meta = rec(template.metadata);
    errs.push(...validateLabels(meta.labels, 'spec.template.labels'), ...validateAnnotations(meta.annotations, 'spec.template.annotations'));
  }
  const podSpec = rec(template.spec);
  if (podSpec.restartPolicy !== 'Always') errs.push(fieldError.notSupported('spec.template.spec.restartPolicy', podSpec.restartPolicy ?? '', ['Always']));
  if (!isAbsent(podSpec.activeDeadlineSeconds)) {
    errs.push(fieldError.forbidden('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in StatefulSet is not Supported'));
  }
  return errs;
}

/** Only the mutable fields may differ from the stored spec. */
export function validateStatefulSetUpdate(o: ApiObject, old: ApiObject): FieldError[] {
  const strip = (spec: unknown): Obj => {
    const copy = { ...rec(spec) };
    for (const k of MUTABLE_FIELDS) delete copy[k];
    return copy;
  };
  return semanticallyEqual(strip(o.spec), strip(old.spec)) ? [] : [fieldError.forbidden('spec', FORBIDDEN_UPDATE)];
}

const statefulSetColumns = [
  column('Ready', 'string', 'Ready pods out of the desired replicas.', (o) => `${count(o, 'status.readyReplicas')}/${count(o, 'spec.replicas')}`),
  ...containerColumns('spec.template.spec.containers'),
];

export const statefulsets: ResourceType = referenceType('apps', 'v1', 'statefulsets', {
  shortNames: ['sts'],
  categories: ['all'],
  tableColumns: statefulSetColumns,
  scale: STRUCTURED_SCALE,
  strategy: {
    // Pods are named `<name>-<ordinal>` and need a DNS label as host name.
    nameRule: 'label',
    tracksGeneration: true,
    prepareForCreate(o) {
      applyStatefulSetDefaults(o);
      dropMaxUnavailable(o);
      o.status = { replicas: 0, availableReplicas: 0 };
    },
    prepareForUpdate(o, old) {
      applyStatefulSetDefaults(o);
      dropMaxUnavailable(o, old);
    },
    validate: validateStatefulSet,
    validateUpdate: validateStatefulSetUpdate,
  },
});
