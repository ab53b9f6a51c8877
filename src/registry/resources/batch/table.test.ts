import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiObject } from '../../../api/types.js';
import { cronJobColumns, jobColumns, jobCompletions, jobDuration, jobStatus } from './table.js';

const cond = (type: string, status = 'True') => ({ type, status });
const cells = (columns: typeof jobColumns, o: ApiObject) => Object.fromEntries(columns.map((c) => [c.name, c.value(o)]));

describe('Job table (reference behaviour)', () => {
  it('STATUS follows the conditions in the reference order', () => {
    const cases: [ApiObject, string][] = [
      [{}, 'Running'],
      [{ status: { conditions: [cond('Complete')] } }, 'Complete'],
      [{ status: { conditions: [cond('Failed'), cond('Suspended')] } }, 'Failed'],
      [{ status: { conditions: [cond('Complete', 'False')] } }, 'Running'],
      [{ metadata: { deletionTimestamp: '2024-01-01T00:00:00Z' }, status: { conditions: [cond('Suspended')] } }, 'Terminating'],
      [{ status: { conditions: [cond('Suspended')] } }, 'Suspended'],
      [{ status: { conditions: [cond('FailureTarget')] } }, 'FailureTarget'],
      [{ status: { conditions: [cond('SuccessCriteriaMet')] } }, 'SuccessCriteriaMet'],
    ];
    for (const [job, want] of cases) assert.equal(jobStatus(job), want, JSON.stringify(job));
  });

  it('COMPLETIONS is succeeded/completions, or succeeded/1 (of parallelism)', () => {
    const cases: [ApiObject, string][] = [
      [{ spec: { completions: 3 }, status: { succeeded: 2 } }, '2/3'],
      [{ spec: { parallelism: 1 } }, '0/1'],
      [{ spec: { parallelism: 4 }, status: { succeeded: 1 } }, '1/1 of 4'],
    ];
    for (const [job, want] of cases) assert.equal(jobCompletions(job), want);
  });

  it('DURATION is empty before start, start to completion after, start to now while running', () => {
    const now = Date.parse('2024-01-01T00:10:00Z');
    assert.equal(jobDuration({}, now), '');
    assert.equal(jobDuration({ status: { startTime: '2024-01-01T00:00:00Z', completionTime: '2024-01-01T00:00:42Z' } }, now), '42s');
    assert.equal(jobDuration({ status: { startTime: '2024-01-01T00:00:00Z' } }, now), '10m');
  });

  it('wide columns: containers, images and the selector', () => {
    const job: ApiObject = {
      spec: {
        selector: { matchLabels: { 'controller-uid': 'u' } },
        template: { spec: { containers: [{ name: 'a', image: 'x:1' }, { name: 'b', image: 'y:2' }] } },
      },
    };
    const c = cells(jobColumns, job);
    assert.deepEqual([c.Containers, c.Images, c.Selector], ['a,b', 'x:1,y:2', 'controller-uid=u']);
    assert.deepEqual(jobColumns.map((col) => [col.name, col.priority]), [['Status', 0], ['Completions', 0], ['Duration', 0], ['Containers', 1], ['Images', 1], ['Selector', 1]]);
  });
});

describe('CronJob table (reference behaviour)', () => {
  it('SCHEDULE, TIMEZONE, SUSPEND, ACTIVE, LAST SCHEDULE and the wide columns', () => {
    const cj: ApiObject = {
      spec: { schedule: '@daily', suspend: false, jobTemplate: { spec: { template: { spec: { containers: [{ name: 'w', image: 'busybox' }] } } } } },
      status: { active: [{ name: 'j1' }, { name: 'j2' }] },
    };
    const c = cells(cronJobColumns, cj);
    assert.deepEqual(c, {
      Schedule: '@daily',
      Timezone: '<none>',
      Suspend: 'False',
      Active: 2,
      'Last Schedule': '<none>',
      Containers: 'w',
      Images: 'busybox',
      Selector: '<none>',
    });
    assert.equal(cells(cronJobColumns, { spec: { timeZone: 'UTC' } }).Timezone, 'UTC');
    assert.equal(cells(cronJobColumns, { spec: {} }).Suspend, '<unset>');
  });
});
