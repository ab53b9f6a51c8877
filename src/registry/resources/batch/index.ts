/** batch/v1: Job and CronJob, served from the reference data with the reference's behaviour. */
import type { ApiObject } from '../../../api/types.js';
import { isDNS1123Label } from '../../validation/index.js';
import type { ResourceType } from '../../types.js';
import { referenceType } from '../reference.js';
import { applyCronJobDefaults, validateCronJob } from './cronjob.js';
import { absent, num, rec } from './fields.js';
import { applyJobSpecDefaults, defaultJobLabels, generateSelector } from './job-defaults.js';
import { validateJob, validateJobUpdate } from './job-validation.js';
import { cronJobColumns, jobColumns } from './table.js';

export { CONTROLLER_UID_LABEL, JOB_NAME_LABEL, LEGACY_CONTROLLER_UID_LABEL, LEGACY_JOB_NAME_LABEL } from './job-defaults.js';
export { selectorMatches } from './selector.js';

/** Job and CronJob names become pod names and hostnames: a name that is no DNS label works, but badly. */
function nameWarnings(o: ApiObject, old?: ApiObject): string[] {
  if (old) return [];
  const problems = isDNS1123Label(String(o.metadata?.name ?? ''));
  if (problems.length === 0) return [];
  return [`metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [${problems.join(' ')}]`];
}

/** Defaulting of a decoded Job (create and update alike). */
function defaultJob(o: ApiObject): void {
  const spec = rec(o.spec);
  if (o.spec === undefined) o.spec = spec;
  applyJobSpecDefaults(spec);
}

export const jobs: ResourceType = referenceType('batch', 'v1', 'jobs', {
  categories: ['all'],
  tableColumns: jobColumns,
  selectableFields: (o) => ({ 'status.successful': String(num(rec(o.status).succeeded)) }),
  strategy: {
    prepareForCreate(o) {
      defaultJob(o);
      generateSelector(o);
      // Alpha in the reference 1.31 (feature off): the field is dropped.
      delete rec(o.spec).managedBy;
      defaultJobLabels(o);
    },
    prepareForUpdate(o, old) {
      defaultJob(o);
      if (absent(rec(old.spec).managedBy)) delete rec(o.spec).managedBy;
      defaultJobLabels(o);
    },
    validate: validateJob,
    validateUpdate: validateJobUpdate,
    warnings: nameWarnings,
  },
});

export const cronJobs: ResourceType = referenceType('batch', 'v1', 'cronjobs', {
  shortNames: ['cj'],
  categories: ['all'],
  tableColumns: cronJobColumns,
  strategy: {
    prepareForCreate: applyCronJobDefaults,
    prepareForUpdate: (o) => applyCronJobDefaults(o),
    // Objects stored here always passed the create rules, so checking them again on update is safe.
    validate: (o) => validateCronJob(o),
    warnings: nameWarnings,
  },
});

/** Types of this group with behaviour of their own; the group's other resources are served from the reference data alone. */
export const batchTypes: ResourceType[] = [jobs, cronJobs];
