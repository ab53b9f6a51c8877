/** The Job and CronJob tables as the reference prints them (`kubectl get jobs,cronjobs [-o wide]`). */
import type { ApiObject } from '../../../api/types.js';
import { humanDuration } from '../../../encoding/index.js';
import { column } from '../../schema.js';
import type { TableColumn } from '../../types.js';
import { formatLabelSelector } from '../../../selectors/index.js';
import { absent, conditionTrue, containerCells, num, rec, text } from './fields.js';

/** The first matching state wins, in the reference's order. */
export function jobStatus(job: ApiObject): string {
  const status = job.status;
  if (conditionTrue(status, 'Complete')) return 'Complete';
  if (conditionTrue(status, 'Failed')) return 'Failed';
  if (job.metadata?.deletionTimestamp) return 'Terminating';
  if (conditionTrue(status, 'Suspended')) return 'Suspended';
  if (conditionTrue(status, 'FailureTarget')) return 'FailureTarget';
  if (conditionTrue(status, 'SuccessCriteriaMet')) return 'SuccessCriteriaMet';
  return 'Running';
}

/** `succeeded/completions`; without completions a job needs one success (`0/1 of 3` when parallel). */
export function jobCompletions(job: ApiObject): string {
  const spec = rec(job.spec);
  const succeeded = num(rec(job.status).succeeded);
  if (!absent(spec.completions)) return `${succeeded}/${num(spec.completions)}`;
  const parallelism = num(spec.parallelism);
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

const timeOf = (v: unknown): number => (typeof v === 'string' ? Date.parse(v) : NaN);

/** Time from start to completion, or to now while running; empty before the job starts. */
export function jobDuration(job: ApiObject, now = Date.now()): string {
  const status = rec(job.status);
  const start = timeOf(status.startTime);
  if (Number.isNaN(start)) return '';
  const end = timeOf(status.completionTime);
  return humanDuration((Number.isNaN(end) ? now : end) - start);
}

const podSpecOfJob = (job: ApiObject) => rec(rec(rec(job.spec).template).spec);

export const jobColumns: TableColumn[] = [
  column('Status', 'string', 'The state the job is in.', jobStatus),
  column('Completions', 'string', 'Succeeded pods against the pods the job needs.', jobCompletions),
  column('Duration', 'string', 'How long the job ran or has been running.', (o) => jobDuration(o)),
  column('Containers', 'string', 'Names of the containers of the pod template.', (o) => containerCells(podSpecOfJob(o)).names, 1),
  column('Images', 'string', 'Images of the containers of the pod template.', (o) => containerCells(podSpecOfJob(o)).images, 1),
  column('Selector', 'string', 'The label selector of the job.', (o) => formatLabelSelector(rec(o.spec).selector), 1),
];

/** `<none>` until the first run; otherwise how long ago the last run was scheduled. */
function lastSchedule(cronJob: ApiObject, now = Date.now()): string {
  const t = timeOf(rec(cronJob.status).lastScheduleTime);
  return Number.isNaN(t) ? '<none>' : humanDuration(now - t);
}

const boolPtr = (v: unknown) => (typeof v === 'boolean' ? (v ? 'True' : 'False') : '<unset>');
const jobSpecOfCronJob = (cj: ApiObject) => rec(rec(rec(cj.spec).jobTemplate).spec);
const podSpecOfCronJob = (cj: ApiObject) => rec(rec(jobSpecOfCronJob(cj).template).spec);

export const cronJobColumns: TableColumn[] = [
  column('Schedule', 'string', 'The cron schedule of the runs.', (o) => text(rec(o.spec).schedule)),
  column('Timezone', 'string', 'The time zone the schedule is read in.', (o) => text(rec(o.spec).timeZone) || '<none>'),
  column('Suspend', 'boolean', 'Whether new runs are suspended.', (o) => boolPtr(rec(o.spec).suspend)),
  column('Active', 'integer', 'Jobs of this cron job that are running.', (o) => {
    const active = rec(o.status).active;
    return Array.isArray(active) ? active.length : 0;
  }),
  column('Last Schedule', 'string', 'When a job was last scheduled.', (o) => lastSchedule(o)),
  column('Containers', 'string', 'Names of the containers of the job template.', (o) => containerCells(podSpecOfCronJob(o)).names, 1),
  column('Images', 'string', 'Images of the containers of the job template.', (o) => containerCells(podSpecOfCronJob(o)).images, 1),
  column('Selector', 'string', 'The label selector of the job template.', (o) => formatLabelSelector(jobSpecOfCronJob(o).selector), 1),
];
