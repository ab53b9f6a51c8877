import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { describe, it } from 'node:test';
import type { ApiObject } from '../../api/types.js';
import { probeErrorText, httpsProbe } from './component-status.js';
import { boundPod, validateBinding } from './pod-binding.js';
import { budgetsFor, canIgnoreBudget, isPodReady, statusAfterEviction, unreadyPodMayGo } from './pod-budget.js';
import { setPodCondition } from './pod-common.js';
import { budgetViolation, evictionOptions } from './pod-eviction.js';
import { logOptionErrors, resolveContainer, splitProxyName } from './pod-streams.js';

type Obj = Record<string, unknown>;
const pod = (name: string, labels: Record<string, string>, status: Obj = {}, meta: Obj = {}): ApiObject => ({
  kind: 'Pod',
  metadata: { name, labels, ...meta },
  spec: { containers: [{ name: 'app' }] },
  status,
});
const ready = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] };
const pdb = (spec: Obj, status: Obj = {}): ApiObject => ({ kind: 'PodDisruptionBudget', metadata: { name: 'b' }, spec: { selector: { matchLabels: { app: 'a' } }, ...spec }, status });

describe('pod conditions', () => {
  it('reference behaviour: a new condition is added with a transition time; same status keeps the old time', () => {
    const status: Obj = {};
    setPodCondition(status, { type: 'PodScheduled', status: 'True' }, 't1');
    assert.deepEqual(status.conditions, [{ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: 't1' }]);
    setPodCondition(status, { type: 'PodScheduled', status: 'True', reason: 'again' }, 't2');
    assert.equal((status.conditions as Obj[])[0]?.lastTransitionTime, 't1');
    setPodCondition(status, { type: 'PodScheduled', status: 'False' }, 't3');
    assert.equal((status.conditions as Obj[])[0]?.lastTransitionTime, 't3');
  });
});

describe('binding', () => {
  const cases: { target: Obj; want: string[] }[] = [
    { target: { kind: 'Node', name: 'n1' }, want: [] },
    { target: { name: 'n1' }, want: [] },
    { target: { kind: 'Pod', name: 'n1' }, want: ['target.kind'] },
    { target: { kind: 'Node' }, want: ['target.name'] },
  ];
  for (const c of cases) {
    it(`reference behaviour: target ${JSON.stringify(c.target)}`, () => assert.deepEqual(validateBinding({ target: c.target }).map((e) => e.field), c.want));
  }

  it('reference behaviour: the bound pod has the node, the annotations and PodScheduled', () => {
    const p = pod('p', {}, { phase: 'Pending' }, { annotations: { a: '1' } });
    const b = boundPod(p, 'n1', { b: '2' }, 'now');
    assert.equal((b.spec as Obj).nodeName, 'n1');
    assert.deepEqual(b.metadata?.annotations, { a: '1', b: '2' });
    assert.equal(((b.status as Obj).conditions as Obj[])[0]?.type, 'PodScheduled');
    assert.equal((p.spec as Obj).nodeName, undefined, 'the input is not changed');
  });
});

describe('eviction and disruption budgets', () => {
  const ignorable: [string, ApiObject, boolean][] = [
    ['pending', pod('p', {}, { phase: 'Pending' }), true],
    ['succeeded', pod('p', {}, { phase: 'Succeeded' }), true],
    ['failed', pod('p', {}, { phase: 'Failed' }), true],
    ['being deleted', pod('p', {}, ready, { deletionTimestamp: 'x' }), true],
    ['running', pod('p', {}, ready), false],
  ];
  for (const [name, p, want] of ignorable) {
    it(`reference behaviour: a ${name} pod ${want ? 'skips' : 'goes through'} the budget check`, () => assert.equal(canIgnoreBudget(p), want));
  }

  it('reference behaviour: budgets match by selector; a missing selector matches nothing', () => {
    const p = pod('p', { app: 'a' });
    const none: ApiObject = { kind: 'PodDisruptionBudget', metadata: { name: 'n' }, spec: {} };
    const all: ApiObject = { kind: 'PodDisruptionBudget', metadata: { name: 'all' }, spec: { selector: {} } };
    const other = pdb({ selector: { matchLabels: { app: 'b' } } });
    assert.deepEqual(budgetsFor(p, [pdb({}), none, all, other]).map((b) => b.metadata?.name), ['b', 'all']);
  });

  it('reference behaviour: an eviction spends one disruption and lists the pod as disrupted', () => {
    const now = '2026-01-01T00:10:00Z';
    const budget = pdb({}, { disruptionsAllowed: 2, currentHealthy: 3, disruptedPods: { gone: '2026-01-01T00:09:00Z', old: '2026-01-01T00:00:00Z', kept: '2026-01-01T00:09:30Z' } });
    const status = statusAfterEviction(budget, 2, 'p1', now, new Set(['p1', 'old', 'kept']));
    assert.equal(status.disruptionsAllowed, 1);
    assert.equal(status.currentHealthy, 3, 'other counters are kept');
    assert.deepEqual(status.disruptedPods, { kept: '2026-01-01T00:09:30Z', p1: now }, 'entries of deleted pods and past the timeout are dropped');
  });

  it('reference behaviour: an unready pod may go under AlwaysAllow, or while the budget is met', () => {
    assert.equal(isPodReady(pod('p', {}, ready)), true);
    assert.equal(isPodReady(pod('p', {}, { phase: 'Running' })), false);
    assert.equal(unreadyPodMayGo(pdb({ unhealthyPodEvictionPolicy: 'AlwaysAllow' }), { currentHealthy: 0, desiredHealthy: 5 }), true);
    assert.equal(unreadyPodMayGo(pdb({}), { currentHealthy: 2, desiredHealthy: 2 }), true);
    assert.equal(unreadyPodMayGo(pdb({}), { currentHealthy: 1, desiredHealthy: 2 }), false);
    assert.equal(unreadyPodMayGo(pdb({}), { currentHealthy: 0, desiredHealthy: 0 }), false);
  });

  it('reference behaviour: the 429 names the budget and its counts', () => {
    const e = budgetViolation('web', 2, 1).toStatus();
    assert.equal(e.code, 429);
    assert.equal(e.reason, 'TooManyRequests');
    assert.deepEqual(e.details?.causes, [{ reason: 'DisruptionBudget', message: 'The disruption budget web needs 2 healthy pods and has 1 currently' }]);
  });

  it('reference behaviour: dryRun comes from the body or the query and they must agree; the propagation policy is checked', () => {
    const q = (s: string) => new URLSearchParams(s);
    assert.equal(evictionOptions({}, q('')).dryRun, false);
    assert.equal(evictionOptions({}, q('dryRun=All')).dryRun, true);
    assert.equal(evictionOptions({ deleteOptions: { dryRun: ['All'] } }, q('')).dryRun, true);
    assert.deepEqual(evictionOptions({ deleteOptions: { preconditions: { uid: 'u' } } }, q('')).preconditions, { uid: 'u' });
    assert.throws(() => evictionOptions({ deleteOptions: { dryRun: ['Some'] } }, q('')), { code: 400 });
    assert.throws(() => evictionOptions({}, q('dryRun=Yes')), { code: 400 });
    assert.throws(() => evictionOptions({ deleteOptions: { propagationPolicy: 'Sideways' } }, q('')), { code: 400 });
    assert.equal(evictionOptions({ deleteOptions: { propagationPolicy: 'Foreground' } }, q('')).propagationPolicy, 'Foreground');
  });
});

describe('log, exec and proxy requests', () => {
  const two = { metadata: { name: 'p' }, spec: { initContainers: [{ name: 'init' }], containers: [{ name: 'a' }, { name: 'b' }] } };
  it('reference behaviour: the container is the one named, or the only one', () => {
    assert.equal(resolveContainer(pod('p', {}), ''), 'app');
    assert.equal(resolveContainer(two, 'init'), 'init');
    assert.throws(() => resolveContainer(two, 'x'), { code: 400, message: 'container x is not valid for pod p' });
    assert.throws(() => resolveContainer(two, ''), { code: 400, message: 'a container name must be specified for pod p, choose one of: [init a b]' });
    assert.throws(() => resolveContainer({ metadata: { name: 'p' }, spec: {} }, ''), { code: 400, message: 'a container name must be specified for pod p' });
  });

  const logCases: [string, string[]][] = [
    ['tailLines=10&limitBytes=5&sinceSeconds=3', []],
    ['tailLines=-1', ['tailLines']],
    ['limitBytes=0', ['limitBytes']],
    ['sinceSeconds=0', ['sinceSeconds']],
    ['sinceSeconds=5&sinceTime=2024-01-01T00:00:00Z', ['']],
  ];
  for (const [query, want] of logCases) {
    it(`reference behaviour: log options ${query}`, () => assert.deepEqual(logOptionErrors(new URLSearchParams(query)).map((e) => e.field), want));
  }
  it('reference behaviour: a log option that is not an integer is a 400', () => {
    assert.throws(() => logOptionErrors(new URLSearchParams('tailLines=ten')), { code: 400 });
  });

  it('reference behaviour: proxy names are name, name:port or scheme:name:port', () => {
    assert.deepEqual(splitProxyName('web'), { name: 'web', port: '' });
    assert.deepEqual(splitProxyName('web:8080'), { name: 'web', port: '8080' });
    assert.deepEqual(splitProxyName('https:web:443'), { name: 'web', port: '443' });
    assert.equal(splitProxyName('a:b:c:d'), undefined);
  });
});

describe('component status probes', () => {
  it('reference behaviour: a refused connection reads as the reference client error', () => {
    assert.equal(
      probeErrorText('https://127.0.0.1:10259/healthz', { code: 'ECONNREFUSED' }),
      'Get "https://127.0.0.1:10259/healthz": dial tcp 127.0.0.1:10259: connect: connection refused',
    );
  });

  it('reference behaviour: probing a closed port is a failure with that message', async () => {
    // A port that was just free: bind, note it, close.
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const port = (srv.address() as { port: number }).port;
    await new Promise((r) => srv.close(r));
    const url = `https://127.0.0.1:${port}/healthz`;
    assert.deepEqual(await httpsProbe(url), { result: 'failure', message: probeErrorText(url, { code: 'ECONNREFUSED' }), error: '' });
  });
});
