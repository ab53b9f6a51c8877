import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiObject } from '../../../api/types.js';
import type { FieldError } from '../../../errors/index.js';
import { jobs } from './index.js';
import { applyJobSpecDefaults, CONTROLLER_UID_LABEL, generateSelector, JOB_NAME_LABEL } from './job-defaults.js';
import { parseIndexes, validateJob, validateJobUpdate } from './job-validation.js';

type Obj = Record<string, any>;
const pairs = (errs: FieldError[]) => errs.map((e) => `${e.type} ${e.field}`);
const template = (): Obj => ({ spec: { restartPolicy: 'Never', containers: [{ name: 'w', image: 'busybox' }] } });

/** A Job as the store hands it to the hooks on create: uid set, then prepareForCreate. */
function created(spec: Obj, name = 'pi'): ApiObject {
  const job: ApiObject = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name, namespace: 'default', uid: 'u-1' }, spec: { template: template(), ...spec } };
  jobs.strategy.prepareForCreate?.(job);
  return job;
}

describe('Job defaults (reference behaviour)', () => {
  const cases: [string, Obj, Obj][] = [
    ['both unset: completions and parallelism become 1', {}, { completions: 1, parallelism: 1, backoffLimit: 6 }],
    ['completions set: parallelism becomes 1', { completions: 5 }, { completions: 5, parallelism: 1 }],
    ['parallelism set: completions stay unset', { parallelism: 3 }, { completions: undefined, parallelism: 3 }],
    ['backoffLimitPerIndex set: backoffLimit is max int32', { backoffLimitPerIndex: 1, completionMode: 'Indexed', completions: 2 }, { backoffLimit: 2147483647 }],
    ['an explicit backoffLimit stays', { backoffLimit: 0 }, { backoffLimit: 0 }],
    ['mode, suspend, manualSelector', {}, { completionMode: 'NonIndexed', suspend: false, manualSelector: false }],
    ['no pod failure policy: TerminatingOrFailed', {}, { podReplacementPolicy: 'TerminatingOrFailed' }],
    ['a pod failure policy: Failed', { podFailurePolicy: { rules: [] } }, { podReplacementPolicy: 'Failed' }],
  ];
  for (const [title, spec, want] of cases) {
    it(title, () => {
      const s: Obj = { template: template(), ...spec };
      applyJobSpecDefaults(s);
      for (const [k, v] of Object.entries(want)) assert.deepEqual(s[k], v, k);
    });
  }

  it('a pod failure policy pattern without status means True', () => {
    const s: Obj = { template: template(), podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }] } };
    applyJobSpecDefaults(s);
    assert.equal(s.podFailurePolicy.rules[0].onPodConditions[0].status, 'True');
  });

  it('the pod template gets the pod defaults', () => {
    const s: Obj = { template: template() };
    applyJobSpecDefaults(s);
    assert.equal(s.template.spec.dnsPolicy, 'ClusterFirst');
    assert.equal(s.template.spec.containers[0].terminationMessagePath, '/dev/termination-log');
  });
});

describe('Job selector generation (reference behaviour)', () => {
  it('labels the template with name and uid, prefixed and legacy, and selects the uid', () => {
    const job = created({});
    const spec = job.spec as Obj;
    assert.deepEqual(spec.selector, { matchLabels: { [CONTROLLER_UID_LABEL]: 'u-1' } });
    assert.deepEqual(spec.template.metadata.labels, { 'job-name': 'pi', [JOB_NAME_LABEL]: 'pi', 'controller-uid': 'u-1', [CONTROLLER_UID_LABEL]: 'u-1' });
    assert.deepEqual(job.metadata?.labels, spec.template.metadata.labels);
    assert.deepEqual(validateJob(job), []);
  });

  it('keeps the template labels of the client and does not overwrite the job labels', () => {
    const t = template();
    t.metadata = { labels: { app: 'pi' } };
    const job = created({ template: t });
    job.metadata = { ...job.metadata, labels: { team: 'x' } };
    jobs.strategy.prepareForUpdate?.(job, job);
    assert.equal((job.spec as Obj).template.metadata.labels.app, 'pi');
    assert.deepEqual(job.metadata?.labels, { team: 'x' });
  });

  it('manualSelector true: nothing is generated and the selector is required', () => {
    const job = created({ manualSelector: true });
    assert.equal((job.spec as Obj).selector, undefined);
    assert.deepEqual(pairs(validateJob(job)), ['FieldValueRequired spec.selector']);
  });

  it('a conflicting label set by the client fails validation', () => {
    const t = template();
    t.metadata = { labels: { 'job-name': 'other' } };
    const job = created({ template: t });
    assert.deepEqual(pairs(validateJob(job)), ['FieldValueInvalid spec.template.metadata.labels[job-name]']);
  });

  it('a selector that does not select the template labels is invalid', () => {
    const job: ApiObject = { metadata: { name: 'm', uid: 'u' }, spec: { manualSelector: true, selector: { matchLabels: { a: 'b' } }, template: template() } };
    applyJobSpecDefaults(job.spec as Obj);
    generateSelector(job);
    assert.deepEqual(pairs(validateJob(job)), ['FieldValueInvalid spec.template.metadata.labels']);
  });
});

describe('Job validation (reference behaviour)', () => {
  const cases: [string, Obj, string[]][] = [
    ['restartPolicy unset (defaulted to Always) is required to be OnFailure or Never', { template: { spec: { containers: [{ name: 'w', image: 'b' }] } } }, ['FieldValueRequired spec.template.spec.restartPolicy']],
    ['restartPolicy OnFailure is fine', { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'w', image: 'b' }] } } }, []],
    ['negative counts', { parallelism: -1, completions: -2, backoffLimit: -3, activeDeadlineSeconds: -1 }, [
      'FieldValueInvalid spec.parallelism',
      'FieldValueInvalid spec.completions',
      'FieldValueInvalid spec.activeDeadlineSeconds',
      'FieldValueInvalid spec.backoffLimit',
    ]],
    ['a non-integer count', { parallelism: 1.5 }, ['FieldValueTypeInvalid spec.parallelism']],
    ['an unknown completion mode', { completionMode: 'Sometimes' }, ['FieldValueNotSupported spec.completionMode']],
    ['Indexed needs completions', { completionMode: 'Indexed', parallelism: 2 }, ['FieldValueRequired spec.completions']],
    ['per-index limits need Indexed', { backoffLimitPerIndex: 1 }, ['FieldValueInvalid spec.backoffLimitPerIndex']],
    ['an unknown replacement policy', { podReplacementPolicy: 'Sometimes' }, ['FieldValueNotSupported spec.podReplacementPolicy']],
    ['a pod failure policy allows only Failed replacement', { podFailurePolicy: { rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [1] } }] }, podReplacementPolicy: 'TerminatingOrFailed' }, ['FieldValueNotSupported spec.podReplacementPolicy']],
    ['pod failure policy rules', { podFailurePolicy: { rules: [{ action: 'Explode', onExitCodes: { operator: 'In', values: [0, 2, 1] } }] } }, [
      'FieldValueNotSupported spec.podFailurePolicy.rules[0].action',
      'FieldValueInvalid spec.podFailurePolicy.rules[0].onExitCodes.values[0]',
      'FieldValueInvalid spec.podFailurePolicy.rules[0].onExitCodes.values',
    ]],
    ['a success policy needs Indexed', { successPolicy: { rules: [{ succeededCount: 1 }] } }, ['FieldValueInvalid spec.successPolicy']],
  ];
  for (const [title, spec, want] of cases) {
    it(title, () => {
      assert.deepEqual(pairs(validateJob(created(spec))), want);
    });
  }

  it('an Indexed job whose last pod name is no DNS label is invalid', () => {
    const name = 'a'.repeat(62);
    assert.deepEqual(pairs(validateJob(created({ completionMode: 'Indexed', completions: 10 }, name))), ['FieldValueInvalid metadata.name']);
  });

  it('a name that is no DNS label warns on create only', () => {
    const job = created({}, 'my.job');
    assert.equal(jobs.strategy.warnings?.(job).length, 1);
    assert.match(jobs.strategy.warnings?.(job)[0] ?? '', /^metadata\.name: this is used in Pod names and hostnames/);
    assert.deepEqual(jobs.strategy.warnings?.(job, job), []);
  });

  it('success policy indexes are parsed against completions', () => {
    const counts: [string, number, number][] = [
      ['', 3, 0],
      ['0,2-4', 5, 4],
    ];
    for (const [s, completions, want] of counts) assert.equal(parseIndexes(s, completions), want, s);
    const errors: [string, number, RegExp][] = [
      ['1-1', 3, /non-increasing order/],
      ['5', 3, /too large index: "5"/],
      ['x', 3, /cannot convert string to integer/],
      ['1-2-3', 5, /at most two parts/],
    ];
    for (const [s, completions, want] of errors) assert.match(String(parseIndexes(s, completions)), want, s);
  });
});

describe('Job update rules (reference behaviour)', () => {
  const update = (old: ApiObject, change: (spec: Obj) => void) => {
    const next = structuredClone(old);
    change(next.spec as Obj);
    return pairs(validateJobUpdate(next, old));
  };

  it('template, selector, completionMode and NonIndexed completions are immutable', () => {
    const old = created({});
    assert.deepEqual(update(old, (s) => (s.template.spec.containers[0].image = 'other')), ['FieldValueInvalid spec.template']);
    assert.deepEqual(update(old, (s) => (s.selector = { matchLabels: { a: 'b' } })), ['FieldValueInvalid spec.selector']);
    assert.deepEqual(update(old, (s) => (s.completionMode = 'Indexed')), ['FieldValueInvalid spec.completionMode']);
    assert.deepEqual(update(old, (s) => (s.completions = 3)), ['FieldValueInvalid spec.completions']);
    assert.deepEqual(update(old, (s) => (s.parallelism = 4)), []);
    assert.deepEqual(update(old, (s) => (s.suspend = true)), []);
  });

  it('Indexed completions may change only together with parallelism', () => {
    const old = created({ completionMode: 'Indexed', completions: 2, parallelism: 2 });
    assert.deepEqual(update(old, (s) => (s.completions = 3)), ['FieldValueInvalid spec.completions']);
    assert.deepEqual(update(old, (s) => Object.assign(s, { completions: 3, parallelism: 3 })), []);
  });

  it('a suspended job that never started may change its scheduling directives', () => {
    const old = created({ suspend: true });
    assert.deepEqual(update(old, (s) => (s.template.spec.nodeSelector = { zone: 'a' })), []);
    assert.deepEqual(update(old, (s) => (s.template.spec.containers[0].image = 'other')), ['FieldValueInvalid spec.template']);
    const started = structuredClone(old);
    started.status = { startTime: '2024-01-01T00:00:00Z' };
    const next = structuredClone(started);
    (next.spec as Obj).template.spec.nodeSelector = { zone: 'a' };
    assert.deepEqual(pairs(validateJobUpdate(next, started)), ['FieldValueInvalid spec.template']);
  });
});
