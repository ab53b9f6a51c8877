/** CronJob defaults and validation (the reference's batch/v1 defaulting and `validateCronJobSpec`). */
import { isObject, type ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { cronScheduleError, timeZoneProblems } from './cron.js';
import { absent, checkInt, rec, setDefault } from './fields.js';
import { applyJobTemplateDefaults } from './job-defaults.js';
import { validateJobSpecFields } from './job-validation.js';

const CONCURRENCY_POLICIES = ['Allow', 'Forbid', 'Replace'];
/** Jobs are named `<cronjob>-<11 characters>` and a job name must fit a 63-character label. */
const MAX_NAME_LENGTH = 52;

/**
 * `SetDefaults_CronJob`. The job template gets the pod defaults only: the Job defaults (completions,
 * backoffLimit, ...) apply when the controller creates a Job from it, as with the reference.
 */
export function applyCronJobDefaults(cronJob: ApiObject): void {
  if (!isObject(cronJob.spec)) return;
  const spec = cronJob.spec;
  if (absent(spec.concurrencyPolicy) || spec.concurrencyPolicy === '') spec.concurrencyPolicy = 'Allow';
  setDefault(spec, 'suspend', false);
  setDefault(spec, 'successfulJobsHistoryLimit', 3);
  setDefault(spec, 'failedJobsHistoryLimit', 1);
  const template = spec.jobTemplate;
  if (isObject(template) && isObject(template.spec)) applyJobTemplateDefaults(template.spec);
}

/** The schedule parses and carries no time zone (that is what `timeZone` is for). */
export function validateSchedule(schedule: unknown, allowTZ: boolean, hasTimeZone: boolean): FieldError[] {
  const path = 'spec.schedule';
  if (absent(schedule) || schedule === '') return [fieldError.required(path)];
  if (typeof schedule !== 'string') return [fieldError.typeInvalid(path, schedule, 'must be of type string')];
  const errs: FieldError[] = [];
  const parseError = cronScheduleError(schedule);
  if (parseError) errs.push(fieldError.invalid(path, schedule, parseError));
  if (schedule.includes('TZ')) {
    if (!allowTZ) errs.push(fieldError.invalid(path, schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
    else if (hasTimeZone) errs.push(fieldError.invalid(path, schedule, 'cannot use both timeZone field and TZ or CRON_TZ in schedule'));
  }
  return errs;
}

/** The job template: Job rules, and the selector is always generated. */
function validateJobTemplate(template: unknown): FieldError[] {
  const path = 'spec.jobTemplate.spec';
  const spec = rec(rec(template).spec);
  const errs = validateJobSpecFields(spec, path);
  if (!absent(spec.selector)) errs.push(fieldError.invalid(`${path}.selector`, spec.selector, '`selector` will be auto-generated'));
  if (spec.manualSelector === true) errs.push(fieldError.notSupported(`${path}.manualSelector`, true, ['nil', 'false']));
  return errs;
}

/**
 * Every rule of a CronJob. `old` is the stored object on update: a schedule that already used `TZ=` may
 * keep it, the time zone is checked only when it changes, and the name length only on create.
 */
export function validateCronJob(cronJob: ApiObject, old?: ApiObject): FieldError[] {
  const spec = rec(cronJob.spec);
  const prev = old ? rec(old.spec) : undefined;
  const errs: FieldError[] = [];
  const name = String(cronJob.metadata?.name ?? '');
  if (!old && name.length > MAX_NAME_LENGTH) errs.push(fieldError.invalid('metadata.name', name, `must be no more than ${MAX_NAME_LENGTH} characters`));
  const allowTZ = typeof prev?.schedule === 'string' && prev.schedule.includes('TZ');
  errs.push(...validateSchedule(spec.schedule, allowTZ, !absent(spec.timeZone)));
  checkInt(errs, 'spec.startingDeadlineSeconds', spec.startingDeadlineSeconds, 0);
  if (!absent(spec.timeZone) && (!prev || prev.timeZone !== spec.timeZone)) {
    if (typeof spec.timeZone !== 'string') errs.push(fieldError.typeInvalid('spec.timeZone', spec.timeZone, 'must be of type string'));
    else for (const msg of timeZoneProblems(spec.timeZone)) errs.push(fieldError.invalid('spec.timeZone', spec.timeZone, msg));
  }
  const policy = spec.concurrencyPolicy;
  if (absent(policy) || policy === '') errs.push(fieldError.required('spec.concurrencyPolicy'));
  else if (!CONCURRENCY_POLICIES.includes(String(policy))) errs.push(fieldError.notSupported('spec.concurrencyPolicy', policy, CONCURRENCY_POLICIES));
  errs.push(...validateJobTemplate(spec.jobTemplate));
  checkInt(errs, 'spec.successfulJobsHistoryLimit', spec.successfulJobsHistoryLimit, 0);
  checkInt(errs, 'spec.failedJobsHistoryLimit', spec.failedJobsHistoryLimit, 0);
  return errs;
}
