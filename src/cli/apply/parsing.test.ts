import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseResourceArgs } from './targets.js';
import { parseDryRun, parseValidate } from './report.js';
import { deleteOptionsFrom } from '../commands/delete.js';
import { parseWaitFor } from '../commands/wait-conditions.js';
import { splitChanges } from '../commands/label-core.js';
import { LABELS } from '../commands/label.js';
import { logQuery, podNameOf } from '../commands/logs.js';

test('reference behaviour: resource arguments (TYPE NAME..., TYPE/NAME..., types for selectors)', () => {
  const ok: [string[], boolean, unknown][] = [
    [['pods', 'a', 'b'], false, { kind: 'names', pairs: [{ type: 'pods', name: 'a' }, { type: 'pods', name: 'b' }] }],
    [['pod/a', 'deploy/b'], false, { kind: 'names', pairs: [{ type: 'pod', name: 'a' }, { type: 'deploy', name: 'b' }] }],
    [['pods,services'], true, { kind: 'types', types: ['pods', 'services'] }],
  ];
  for (const [args, sel, want] of ok) assert.deepEqual(parseResourceArgs(args, sel), want, args.join(' '));
  const bad: [string[], boolean, RegExp][] = [
    [[], false, /name the objects/],
    [['pods'], false, /name the pods/],
    [['pods', 'a'], true, /cannot be given together/],
    [['pod/a', 'b'], false, /TYPE\/NAME/],
  ];
  for (const [args, sel, re] of bad) assert.throws(() => parseResourceArgs(args, sel), re, args.join(' '));
});

test('reference behaviour: --dry-run and --validate values', () => {
  assert.deepEqual([undefined, true, 'client', 'server', 'none'].map((v) => parseDryRun(v)), ['none', 'client', 'client', 'server', 'none']);
  assert.throws(() => parseDryRun('maybe'), /invalid --dry-run value "maybe"/);
  assert.deepEqual([undefined, 'true', 'false', 'warn', 'Ignore'].map((v) => parseValidate(v)), ['Strict', 'Strict', 'Ignore', 'Warn', 'Ignore']);
});

test('reference behaviour: delete grace period and cascade flags', () => {
  const rows: [Parameters<typeof deleteOptionsFrom>[0], unknown][] = [
    [{}, { options: { propagationPolicy: 'Background' }, immediate: false }],
    [{ cascade: 'orphan', gracePeriod: '30' }, { options: { propagationPolicy: 'Orphan', gracePeriodSeconds: 30 }, immediate: false }],
    [{ cascade: 'false' }, { options: { propagationPolicy: 'Orphan' }, immediate: false }],
    [{ now: true }, { options: { propagationPolicy: 'Background', gracePeriodSeconds: 1 }, immediate: false }],
    [{ force: true }, { options: { propagationPolicy: 'Background', gracePeriodSeconds: 0 }, immediate: true }],
    [{ gracePeriod: '0' }, { options: { propagationPolicy: 'Background', gracePeriodSeconds: 1 }, immediate: false }],
    [{ cascade: 'foreground' }, { options: { propagationPolicy: 'Foreground' }, immediate: false }],
  ];
  for (const [flags, want] of rows) assert.deepEqual(deleteOptionsFrom(flags), want, JSON.stringify(flags));
  assert.throws(() => deleteOptionsFrom({ gracePeriod: 'soon' }), /invalid --grace-period/);
  assert.throws(() => deleteOptionsFrom({ now: true, gracePeriod: '5' }), /--now and --grace-period/);
});

test('reference behaviour: wait --for forms', () => {
  assert.deepEqual(parseWaitFor('delete'), { kind: 'delete' });
  assert.deepEqual(parseWaitFor('condition=Ready'), { kind: 'condition', type: 'Ready', status: 'True' });
  assert.deepEqual(parseWaitFor('condition=Ready=false'), { kind: 'condition', type: 'Ready', status: 'false' });
  const jp = parseWaitFor("jsonpath='{.status.phase}'=Running");
  assert.equal(jp.kind === 'jsonpath' && `${jp.template}|${jp.value}`, '{.status.phase}|Running');
  const exists = parseWaitFor('jsonpath={.status.x}');
  assert.equal(exists.kind === 'jsonpath' && exists.value, undefined);
  for (const bad of ['ready', 'condition=', 'jsonpath=.status', 'jsonpath={.a}x']) assert.throws(() => parseWaitFor(bad), /--for=/, bad);
});

test('reference behaviour: label arguments (KEY=VALUE sets, KEY- removes, keys and values checked)', () => {
  assert.deepEqual(splitChanges(['pods', 'a', 'x=1', 'example.com/y-', 'z='], LABELS), { resources: ['pods', 'a'], changes: { set: { x: '1', z: '' }, remove: ['example.com/y'] } });
  assert.throws(() => splitChanges(['pod/a', 'bad key=1'], LABELS), /invalid label bad key=1/);
  assert.throws(() => splitChanges(['pod/a', 'k=not valid'], LABELS), /invalid label/);
  assert.throws(() => splitChanges(['pod/a', 'k=1', 'k-'], LABELS), /both set and removed/);
});

test('reference behaviour: logs arguments and options', () => {
  assert.equal(podNameOf('po/web'), 'web');
  assert.throws(() => podNameOf('deploy/web'), /names a deploy/);
  assert.deepEqual(logQuery({ container: 'c', follow: true, tail: '-1', since: '90s' }), { container: 'c', follow: true, sinceSeconds: 90 });
  assert.deepEqual(logQuery({ tail: '5', timestamps: true }), { container: undefined, timestamps: true, tailLines: 5 });
  assert.throws(() => logQuery({ since: '5m', sinceTime: '2024-01-01T00:00:00Z' }), /cannot both/);
});
