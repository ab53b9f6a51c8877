/**
 * Pod templates inside workloads (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob,
 * ReplicationController, PodTemplate): the pod spec defaults and the pod validation, with field paths
 * rooted at the template.
 */
import { isObject } from '../../../api/types.js';
import type { FieldError } from '../../../errors/index.js';
import { validateAnnotations, validateLabels } from '../../validation/index.js';
import { applyPodSpecDefaults } from './defaults.js';
import { validatePod } from './validation.js';

/** Fills the defaults of `template.spec` in place (a missing spec is left for validation to report). */
export function defaultPodTemplate(template: unknown): void {
  if (isObject(template) && isObject(template.spec)) applyPodSpecDefaults(template.spec);
}

/** The pod rules for a template at `path` (e.g. `spec.template`), plus its labels and annotations. */
export function validatePodTemplate(template: unknown, path: string): FieldError[] {
  if (!isObject(template)) return validatePod({ spec: undefined }).map((e) => rebase(e, path));
  const meta = isObject(template.metadata) ? template.metadata : {};
  return [
    ...validateLabels(meta.labels, `${path}.metadata.labels`),
    ...validateAnnotations(meta.annotations, `${path}.metadata.annotations`),
    ...validatePod({ spec: template.spec }).map((e) => rebase(e, path)),
  ];
}

/** `spec.x` of the pod becomes `<path>.spec.x`. */
function rebase(e: FieldError, path: string): FieldError {
  return { ...e, field: e.field === '' ? path : `${path}.${e.field}` };
}
