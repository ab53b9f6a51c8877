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
  // Appended to the labels' list rather than spread into a new one: every workload write runs this.
  const errs = validateLabels(meta.labels, `${path}.metadata.labels`);
  for (const e of validateAnnotations(meta.annotations, `${path}.metadata.annotations`)) errs.push(e);
  for (const e of validatePod({ spec: template.spec })) errs.push(rebase(e, path));
  return errs;
}

/** `spec.x` of the pod becomes `<path>.spec.x`. */
function rebase(e: FieldError, path: string): FieldError {
  return { ...e, field: e.field === '' ? path : `${path}.${e.field}` };
}
