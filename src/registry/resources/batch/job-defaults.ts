/**
 * Job defaults and the generated selector, as the reference's batch/v1 defaulting and job strategy do.
 */
import { BATCH_LABEL_PREFIX } from '../../../api/naming.js';
import { isObject, type ApiObject } from '../../../api/types.js';
import { defaultPodTemplate } from '../pods/template.js';
import { absent, MAX_INT32, objects, setDefault, type Obj } from './fields.js';

/** Labels the selector generation puts on the pod template (prefixed, plus the legacy unprefixed ones). */
export const CONTROLLER_UID_LABEL = `${BATCH_LABEL_PREFIX}controller-uid`;
export const JOB_NAME_LABEL = `${BATCH_LABEL_PREFIX}job-name`;
export const LEGACY_CONTROLLER_UID_LABEL = 'controller-uid';
export const LEGACY_JOB_NAME_LABEL = 'job-name';

/** Pod template defaults and the pattern status default, which every job spec gets (also a CronJob's template). */
export function applyJobTemplateDefaults(spec: Obj): void {
  const policy = spec.podFailurePolicy;
  if (isObject(policy)) {
    for (const rule of objects(policy.rules)) {
      for (const pattern of objects(rule.onPodConditions)) if (absent(pattern.status) || pattern.status === '') pattern.status = 'True';
    }
  }
  defaultPodTemplate(spec.template);
}

/** The defaults of a Job's spec (`SetDefaults_Job`). */
export function applyJobSpecDefaults(spec: Obj): void {
  // A non-parallel job may leave both unset: both become 1.
  if (absent(spec.completions) && absent(spec.parallelism)) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  setDefault(spec, 'parallelism', 1);
  // With a per-index limit the global limit is effectively off.
  setDefault(spec, 'backoffLimit', absent(spec.backoffLimitPerIndex) ? 6 : MAX_INT32);
  setDefault(spec, 'completionMode', 'NonIndexed');
  setDefault(spec, 'suspend', false);
  setDefault(spec, 'manualSelector', false);
  setDefault(spec, 'podReplacementPolicy', isObject(spec.podFailurePolicy) ? 'Failed' : 'TerminatingOrFailed');
  applyJobTemplateDefaults(spec);
}

/** The Job's labels default to its pod template's labels when it has none. */
export function defaultJobLabels(job: ApiObject): void {
  const spec = isObject(job.spec) ? job.spec : {};
  const template = isObject(spec.template) ? spec.template : {};
  const labels = isObject(template.metadata) && isObject(template.metadata.labels) ? template.metadata.labels : undefined;
  if (!labels || Object.keys(labels).length === 0) return;
  const meta = job.metadata ?? (job.metadata = {});
  if (!isObject(meta.labels) || Object.keys(meta.labels).length === 0) meta.labels = { ...(labels as Record<string, string>) };
}

/**
 * Unless `manualSelector` is true, labels the pod template with the job's name and uid and selects the uid
 * label. Labels the client set are kept (a conflicting one fails validation).
 */
export function generateSelector(job: ApiObject): void {
  const spec = isObject(job.spec) ? job.spec : undefined;
  if (!spec || spec.manualSelector === true) return;
  const name = String(job.metadata?.name ?? '');
  const uid = String(job.metadata?.uid ?? '');
  const template = isObject(spec.template) ? spec.template : (spec.template = {});
  const meta = isObject(template.metadata) ? template.metadata : (template.metadata = {});
  const labels = isObject(meta.labels) ? meta.labels : (meta.labels = {});
  for (const key of [LEGACY_JOB_NAME_LABEL, JOB_NAME_LABEL]) if (!(key in labels)) labels[key] = name;
  for (const key of [LEGACY_CONTROLLER_UID_LABEL, CONTROLLER_UID_LABEL]) if (!(key in labels)) labels[key] = uid;
  const selector = isObject(spec.selector) ? spec.selector : (spec.selector = {});
  const matchLabels = isObject(selector.matchLabels) ? selector.matchLabels : (selector.matchLabels = {});
  if (!(CONTROLLER_UID_LABEL in matchLabels)) matchLabels[CONTROLLER_UID_LABEL] = uid;
}
