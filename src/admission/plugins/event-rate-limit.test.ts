import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EVENT_RATE_LIMIT_CONFIG_GROUP, EVENTS_GROUP } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { StatusError } from '../../errors/index.js';
import { admissionPluginContract, admissionRequest } from '../testing/contract.js';
import type { AdmissionRequest } from '../types.js';
import { DEFAULT_CACHE_SIZE, parseEventRateLimitConfiguration, type EventLimit } from './event-rate-limit-config.js';
import { EventRateLimitPlugin, eventRateLimitPlugin, limitKey, sourceAndObjectKey } from './event-rate-limit.js';

const API_VERSION = `${EVENT_RATE_LIMIT_CONFIG_GROUP}/v1alpha1`;
const coreEvent = (over: Record<string, unknown> = {}): ApiObject => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: 'e', namespace: 'default' },
  involvedObject: { kind: 'Pod', namespace: 'default', name: 'p', uid: 'u1', apiVersion: 'v1' },
  source: { component: 'kubelet', host: 'n1' },
  ...over,
});
const eventWrite = (o: { namespace?: string; user?: string; object?: ApiObject; group?: string; dryRun?: boolean; operation?: 'CREATE' | 'UPDATE' } = {}): AdmissionRequest =>
  admissionRequest({
    operation: o.operation ?? 'CREATE',
    namespace: o.namespace ?? 'default',
    name: 'e',
    resource: { group: o.group ?? '', version: 'v1', resource: 'events' },
    kind: { group: o.group ?? '', version: 'v1', kind: 'Event' },
    object: o.object ?? coreEvent(),
    dryRun: o.dryRun ?? false,
    user: { username: o.user ?? 'alice', groups: [] },
  });
const limit = (type: EventLimit['type'], qps: number, burst: number, cacheSize = DEFAULT_CACHE_SIZE): EventLimit => ({ type, qps, burst, cacheSize });

/** 'ok' or the status code and message a request got. */
function outcome(p: EventRateLimitPlugin, req: AdmissionRequest): string {
  try {
    p.validate(req);
    return 'ok';
  } catch (e) {
    assert.ok(e instanceof StatusError);
    return `${e.code} ${e.message}`;
  }
}

admissionPluginContract('EventRateLimit', {
  make: () => new EventRateLimitPlugin([limit('Namespace', 1, 1)], () => 0),
  cases: [
    { title: 'an event within the limit', request: () => eventWrite() },
    { title: 'a config map (not limited)', request: () => admissionRequest({ operation: 'CREATE', name: 'c' }) },
  ],
});

test('spec 2.12 (EventRateLimit): each limit type counts by its own key', () => {
  const other = coreEvent({ involvedObject: { kind: 'Pod', namespace: 'default', name: 'q', uid: 'u2', apiVersion: 'v1' } });
  const table: [EventLimit['type'], AdmissionRequest, AdmissionRequest, boolean][] = [
    // [type, first request, second request, whether the second shares the first's bucket]
    ['Server', eventWrite({ namespace: 'a', user: 'x' }), eventWrite({ namespace: 'b', user: 'y' }), true],
    ['Namespace', eventWrite({ namespace: 'a' }), eventWrite({ namespace: 'a', user: 'y' }), true],
    ['Namespace', eventWrite({ namespace: 'a' }), eventWrite({ namespace: 'b' }), false],
    ['User', eventWrite({ user: 'x', namespace: 'a' }), eventWrite({ user: 'x', namespace: 'b' }), true],
    ['User', eventWrite({ user: 'x' }), eventWrite({ user: 'y' }), false],
    ['SourceAndObject', eventWrite(), eventWrite({ user: 'y' }), true],
    ['SourceAndObject', eventWrite(), eventWrite({ object: other }), false],
  ];
  for (const [type, first, second, shared] of table) {
    const p = new EventRateLimitPlugin([limit(type, 1, 1)], () => 0);
    assert.equal(outcome(p, first), 'ok');
    const got = outcome(p, second);
    assert.equal(got === 'ok', !shared, `${type}: ${got}`);
  }
});

test('reference behaviour (EventRateLimit): 429 TooManyRequests with the limit and key, and Retry-After until the next token', () => {
  let now = 0;
  const p = new EventRateLimitPlugin([limit('Namespace', 0.5, 2)], () => now);
  assert.equal(outcome(p, eventWrite()), 'ok');
  assert.equal(outcome(p, eventWrite()), 'ok');
  let err: StatusError | undefined;
  try {
    p.validate(eventWrite());
  } catch (e) {
    err = e as StatusError;
  }
  assert.ok(err instanceof StatusError);
  assert.equal(err.code, 429);
  assert.equal(err.reason, 'TooManyRequests');
  assert.equal(err.message, 'Too many requests: limit reached on type Namespace for key default');
  assert.equal(err.headers?.['Retry-After'], '2');
  assert.equal(err.details?.retryAfterSeconds, 2);
  now = 2000;
  assert.equal(outcome(p, eventWrite()), 'ok', 'a token is back after 1/qps seconds');
});

test('reference behaviour (EventRateLimit): several limits reached are listed together; every limit takes its token', () => {
  const p = new EventRateLimitPlugin([limit('Server', 1, 1), limit('User', 1, 2)], () => 0);
  assert.equal(outcome(p, eventWrite()), 'ok');
  assert.equal(outcome(p, eventWrite()), '429 Too many requests: limit reached on type Server for key ');
  assert.equal(outcome(p, eventWrite()), '429 Too many requests: [limit reached on type Server for key , limit reached on type User for key alice]');
});

test('reference behaviour (EventRateLimit): only core Event creates and updates count; dry runs, the events group and other kinds are never limited', () => {
  const p = new EventRateLimitPlugin([limit('Server', 1, 1)], () => 0);
  assert.deepEqual([p.handles('CREATE'), p.handles('UPDATE'), p.handles('DELETE'), p.handles('CONNECT')], [true, true, false, false]);
  for (let i = 0; i < 3; i++) {
    assert.equal(outcome(p, eventWrite({ dryRun: true })), 'ok');
    assert.equal(outcome(p, admissionRequest({ operation: 'CREATE', name: 'c' })), 'ok');
  }
  for (let i = 0; i < 3; i++) assert.equal(outcome(p, eventWrite({ group: EVENTS_GROUP, operation: 'UPDATE' })), 'ok', 'the events group is not limited');
  assert.equal(outcome(p, eventWrite()), 'ok');
  assert.match(outcome(p, eventWrite()), /^429 /, 'the second core event empties the server bucket');
});

test('reference behaviour (EventRateLimit): the SourceAndObject key joins source and object fields; events/v1 reads its own field names', () => {
  assert.equal(sourceAndObjectKey(coreEvent()), 'kubeletn1Poddefaultpu1v1');
  const v1 = { apiVersion: `${EVENTS_GROUP}/v1`, kind: 'Event', deprecatedSource: { component: 'c' }, regarding: { kind: 'Node', name: 'n' } };
  assert.equal(sourceAndObjectKey(v1), 'cNoden');
  assert.equal(sourceAndObjectKey(undefined), '');
  assert.equal(limitKey('Server', eventWrite()), '');
});

test('reference behaviour (EventRateLimit cacheSize): a namespace pushed out of the LRU starts with a full bucket', () => {
  const p = new EventRateLimitPlugin([limit('Namespace', 1, 1, 1)], () => 0);
  assert.equal(outcome(p, eventWrite({ namespace: 'a' })), 'ok');
  assert.match(outcome(p, eventWrite({ namespace: 'a' })), /^429 /);
  assert.equal(outcome(p, eventWrite({ namespace: 'b' })), 'ok');
  assert.equal(outcome(p, eventWrite({ namespace: 'a' })), 'ok');
});

test('spec 2.12 (EventRateLimit Configuration): defaults, and every bad field named with its path', () => {
  const doc = (limits: unknown, extra: Record<string, unknown> = {}) => ({ apiVersion: API_VERSION, kind: 'Configuration', limits, ...extra });
  assert.deepEqual(parseEventRateLimitConfiguration(doc([{ type: 'Namespace', qps: 5, burst: 10 }, { type: 'Server', qps: 1, burst: 2, cacheSize: 7 }])), [
    { type: 'Namespace', qps: 5, burst: 10, cacheSize: 4096 },
    { type: 'Server', qps: 1, burst: 2, cacheSize: 7 },
  ]);
  const table: [unknown, string][] = [
    [undefined, 'no configuration given: EventRateLimit needs a Configuration'],
    [doc([]), 'limits: Invalid value: []: must not be empty'],
    [doc(undefined), 'limits: Invalid value: []: must not be empty'],
    [doc([{ qps: 1, burst: 1 }]), 'limits[0].type: Required value'],
    [doc([{ type: 'Pod', qps: 1, burst: 1 }]), 'limits[0].type: Unsupported value: "Pod": supported values: "Namespace", "Server", "SourceAndObject", "User"'],
    [doc([{ type: 'User', qps: 0, burst: 1 }]), 'limits[0].qps: Invalid value: 0: must be positive'],
    [doc([{ type: 'User', qps: 1, burst: -3 }]), 'limits[0].burst: Invalid value: -3: must be positive'],
    [doc([{ type: 'User', qps: 1 }]), 'limits[0].burst: Invalid value: 0: must be positive'],
    [doc([{ type: 'User', qps: 1.5, burst: 1 }]), 'limits[0].qps: Invalid value: 1.5: must be a 32-bit integer'],
    [doc([{ type: 'User', qps: 1, burst: 1, cacheSize: -1 }]), 'limits[0].cacheSize: Invalid value: -1: must not be negative'],
    [doc([{ type: 'User', qps: 1, burst: 1, rate: 2 }]), 'limits[0].rate: unknown field'],
    [doc([{ type: 'User', qps: 1, burst: 1 }, { type: 'User', qps: 2, burst: 2 }]), 'limits[1].type: Duplicate value: "User"'],
    [doc([{ type: 'User', qps: 1, burst: 1 }], { kind: 'Other' }), 'kind: Unsupported value "Other"'],
    [{ kind: 'Configuration', limits: [{ type: 'User', qps: 1, burst: 1 }] }, 'apiVersion: Unsupported value ""'],
  ];
  for (const [raw, want] of table) {
    assert.throws(() => parseEventRateLimitConfiguration(raw), (e: Error) => e.message.includes(want), want);
  }
  assert.throws(() => eventRateLimitPlugin({} as never, undefined), /no configuration given/);
});
