import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiObject } from '../../../api/types.js';
import type { FieldError } from '../../../errors/index.js';
import { cronScheduleError, isGoDuration, timeZoneProblems } from './cron.js';
import { applyCronJobDefaults, validateCronJob } from './cronjob.js';
import { cronJobs } from './index.js';

type Obj = Record<string, any>;
const pairs = (errs: FieldError[]) => errs.map((e) => `${e.type} ${e.field}`);
const jobTemplate = (): Obj => ({ spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'w', image: 'busybox' }] } } } });
function cronJob(spec: Obj, name = 'nightly'): ApiObject {
  const o: ApiObject = { metadata: { name, namespace: 'default' }, spec: { schedule: '0 3 * * *', jobTemplate: jobTemplate(), ...spec } };
  cronJobs.strategy.prepareForCreate?.(o);
  return o;
}

describe('cron schedules (reference behaviour: the standard cron parser)', () => {
  const valid = ['* * * * *', '*/5 * * * *', '0 0 1 1 *', '0 9-17 * * mon-fri', '30 2 * JAN,jul SUN', '0 0 ? * *', '5/15 * * * *', '@hourly', '@daily', '@midnight', '@weekly', '@monthly', '@yearly', '@annually', '@every 1h30m', '@every 90s'];
  for (const s of valid) {
    it(`accepts ${JSON.stringify(s)}`, () => assert.equal(cronScheduleError(s), undefined));
  }
  const invalid: [string, string][] = [
    ['', 'empty spec string'],
    ['* * * *', 'expected exactly 5 fields, found 4: [* * * *]'],
    ['0 0 0 * * *', 'expected exactly 5 fields, found 6: [0 0 0 * * *]'],
    ['61 * * * *', 'end of range (61) above maximum (59): 61'],
    ['* 24 * * *', 'end of range (24) above maximum (23): 24'],
    ['* * 0 * *', 'beginning of range (0) below minimum (1): 0'],
    ['5-1 * * * *', 'beginning of range (5) beyond end of range (1): 5-1'],
    ['*/0 * * * *', 'step of range should be a positive number: */0'],
    ['1-2-3 * * * *', 'too many hyphens: 1-2-3'],
    ['*/2/3 * * * *', 'too many slashes: */2/3'],
    ['x * * * *', 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'],
    ['* * * foo *', 'failed to parse int from foo: strconv.Atoi: parsing "foo": invalid syntax'],
    ['@often', 'unrecognized descriptor: @often'],
    ['@every soon', 'failed to parse duration @every soon: time: invalid duration "soon"'],
  ];
  for (const [s, message] of invalid) {
    it(`rejects ${JSON.stringify(s)}`, () => assert.equal(cronScheduleError(s), message));
  }

  it('Go durations', () => {
    for (const d of ['1h', '1h30m', '1.5h', '300ms', '-2m', '0']) assert.equal(isGoDuration(d), true, d);
    for (const d of ['', '1', 'h', '1d', '1h 30m']) assert.equal(isGoDuration(d), false, d);
  });

  it('time zones: IANA names only, case as written', () => {
    for (const z of ['UTC', 'Europe/Berlin', 'America/New_York', 'Etc/GMT+5']) assert.deepEqual(timeZoneProblems(z), [], z);
    assert.deepEqual(timeZoneProblems(''), ['timeZone must be nil or non-empty string']);
    assert.deepEqual(timeZoneProblems('Mars/Olympus'), ['unknown time zone Mars/Olympus']);
    assert.deepEqual(timeZoneProblems('europe/berlin'), ['unknown time zone europe/berlin']);
    assert.deepEqual(timeZoneProblems('../etc/passwd'), ['unknown time zone ../etc/passwd']);
    assert.deepEqual(timeZoneProblems('Local'), ['timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones']);
  });
});

describe('CronJob defaults (reference behaviour)', () => {
  it('fills the policy, suspend and history limits, and only pod defaults in the job template', () => {
    const o: ApiObject = { spec: { schedule: '@daily', jobTemplate: jobTemplate() } };
    applyCronJobDefaults(o);
    const spec = o.spec as Obj;
    assert.equal(spec.concurrencyPolicy, 'Allow');
    assert.equal(spec.suspend, false);
    assert.equal(spec.successfulJobsHistoryLimit, 3);
    assert.equal(spec.failedJobsHistoryLimit, 1);
    assert.equal(spec.jobTemplate.spec.template.spec.dnsPolicy, 'ClusterFirst');
    assert.equal(spec.jobTemplate.spec.backoffLimit, undefined, 'Job defaults apply when the controller creates the Job');
    assert.equal(spec.jobTemplate.spec.selector, undefined);
  });

  it('keeps explicit values', () => {
    const o: ApiObject = { spec: { concurrencyPolicy: 'Forbid', suspend: true, successfulJobsHistoryLimit: 0, failedJobsHistoryLimit: 5 } };
    applyCronJobDefaults(o);
    assert.deepEqual(o.spec, { concurrencyPolicy: 'Forbid', suspend: true, successfulJobsHistoryLimit: 0, failedJobsHistoryLimit: 5 });
  });
});

describe('CronJob validation (reference behaviour)', () => {
  const cases: [string, Obj, string[]][] = [
    ['a valid cron job', {}, []],
    ['schedule is required', { schedule: '' }, ['FieldValueRequired spec.schedule']],
    ['a bad schedule', { schedule: '* * *' }, ['FieldValueInvalid spec.schedule']],
    ['TZ in the schedule', { schedule: 'TZ=UTC 0 3 * * *' }, ['FieldValueInvalid spec.schedule']],
    ['a known time zone', { timeZone: 'Asia/Tokyo' }, []],
    ['an unknown time zone', { timeZone: 'Nowhere/Town' }, ['FieldValueInvalid spec.timeZone']],
    ['an unknown concurrency policy', { concurrencyPolicy: 'Sometimes' }, ['FieldValueNotSupported spec.concurrencyPolicy']],
    ['negative limits', { startingDeadlineSeconds: -1, successfulJobsHistoryLimit: -1, failedJobsHistoryLimit: -1 }, [
      'FieldValueInvalid spec.startingDeadlineSeconds',
      'FieldValueInvalid spec.successfulJobsHistoryLimit',
      'FieldValueInvalid spec.failedJobsHistoryLimit',
    ]],
    ['a selector in the job template', { jobTemplate: { spec: { ...jobTemplate().spec, selector: { matchLabels: { a: 'b' } } } } }, ['FieldValueInvalid spec.jobTemplate.spec.selector']],
    ['manualSelector true in the job template', { jobTemplate: { spec: { ...jobTemplate().spec, manualSelector: true } } }, ['FieldValueNotSupported spec.jobTemplate.spec.manualSelector']],
    ['job template rules apply', { jobTemplate: { spec: { parallelism: -1, template: { spec: { restartPolicy: 'Always', containers: [{ name: 'w', image: 'b' }] } } } } }, [
      'FieldValueInvalid spec.jobTemplate.spec.parallelism',
      'FieldValueRequired spec.jobTemplate.spec.template.spec.restartPolicy',
    ]],
  ];
  for (const [title, spec, want] of cases) {
    it(title, () => assert.deepEqual(pairs(validateCronJob(cronJob(spec))), want));
  }

  it('names longer than 52 characters are refused on create, and a TZ schedule that was stored may stay', () => {
    const long = cronJob({}, 'a'.repeat(53));
    assert.deepEqual(pairs(validateCronJob(long)), ['FieldValueInvalid metadata.name']);
    assert.deepEqual(pairs(validateCronJob(long, long)), []);
    const tz = cronJob({ schedule: 'CRON_TZ=UTC 0 3 * * *' });
    assert.deepEqual(pairs(validateCronJob(tz, tz)), []);
    assert.deepEqual(pairs(validateCronJob(tz)), ['FieldValueInvalid spec.schedule']);
  });
});
