import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../errors/index.js';
import { pick, type ResourceInfo } from './discovery.js';
import { backoff, backoffDelay, retryOnConflict } from './retry.js';
import { statusErrorFrom } from './status-error.js';
import { Store } from './store.js';
import type { KubeObject } from './types.js';
import { LineSplitter, parseEventLine } from './watch-frames.js';

const obj = (ns: string, name: string, rv: string, team?: string): KubeObject => ({ metadata: { namespace: ns, name, resourceVersion: rv, labels: team ? { team } : {} } });
const info = (group: string, version: string, plural: string, kind: string, shortNames: string[] = [], preferred = true): ResourceInfo => ({
  group, version, plural, kind, singular: kind.toLowerCase(), namespaced: true, verbs: [], shortNames, categories: [], subresources: [], preferred,
});

describe('client parts (pure)', () => {
  it('reference behaviour: watch lines split across chunks, including inside a multi-byte character', () => {
    const s = new LineSplitter();
    const text = Buffer.from('{"type":"ADDED","object":{"metadata":{"name":"é"}}}\n{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"9"}}}\n');
    const cut = text.indexOf(0xc3) + 1;
    assert.deepEqual(s.push(text.subarray(0, cut)), []);
    const lines = [...s.push(text.subarray(cut, cut + 40)), ...s.push(text.subarray(cut + 40)), ...s.end()];
    assert.equal(lines.length, 2);
    assert.equal(parseEventLine(lines[0] as string).object.metadata.name, 'é');
    assert.equal(parseEventLine(lines[1] as string).type, 'BOOKMARK');
  });

  it('reference behaviour: an ERROR watch event is thrown as its StatusError (410 Expired)', () => {
    const line = JSON.stringify({ type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 410, reason: 'Expired', message: 'too old resource version: 1 (5)' } });
    assert.throws(() => parseEventLine(line), (e: unknown) => e instanceof StatusError && e.code === 410 && e.reason === 'Expired');
  });

  it('reference behaviour: error bodies that are not a Status still give a StatusError with the HTTP code (table)', () => {
    const rows: [number, string, string, string][] = [
      [404, '{"kind":"Status","code":404,"reason":"NotFound","message":"x not found","details":{"name":"x"}}', 'NotFound', 'x not found'],
      [503, 'upstream down', 'ServiceUnavailable', 'upstream down'],
      [418, '', 'BadRequest', 'the server answered 418'],
      [502, '<html>', 'InternalError', '<html>'],
    ];
    for (const [code, body, reason, message] of rows) {
      const e = statusErrorFrom(code, Buffer.from(body));
      assert.deepEqual([e.code, e.reason, e.message], [code, reason, message], body);
    }
  });

  it('reference behaviour: resource spellings as the CLI accepts them (table)', () => {
    const all = [
      info('', 'v1', 'events', 'Event', ['ev']),
      info('events.orch.io', 'v1', 'events', 'Event', ['ev']),
      info('apps', 'v1', 'deployments', 'Deployment', ['deploy']),
      info('example.com', 'v1', 'widgets', 'Widget', [], false),
      info('example.com', 'v2', 'widgets', 'Widget', [], true),
    ];
    const rows: [string, string | undefined][] = [
      ['events', '/v1'],
      ['ev', '/v1'],
      ['events.events.orch.io', 'events.orch.io/v1'],
      ['deploy', 'apps/v1'],
      ['Deployment', 'apps/v1'],
      ['deployments.apps', 'apps/v1'],
      ['widgets', 'example.com/v2'],
      ['widgets.v1.example.com', 'example.com/v1'],
      ['widget.example.com', 'example.com/v2'],
      ['deployments.nope', undefined],
      ['gadgets', undefined],
    ];
    for (const [spelling, want] of rows) {
      const r = pick(all, spelling);
      assert.equal(r ? `${r.group}/${r.version}` : undefined, want, spelling);
    }
  });

  it('reference behaviour: the cache store keeps its indexes current through upsert, remove and replace', () => {
    const s = new Store<KubeObject>({ team: (o) => (o.metadata.labels?.team ? [o.metadata.labels.team] : []) });
    s.upsert(obj('a', 'x', '1', 'red'));
    s.upsert(obj('b', 'y', '1', 'red'));
    assert.deepEqual(s.byIndex('team', 'red').length, 2);
    s.upsert(obj('a', 'x', '2', 'blue'));
    assert.deepEqual(s.byIndex('team', 'red').map((o) => o.metadata.name), ['y']);
    assert.deepEqual(s.byIndex('namespace', 'a').map((o) => o.metadata.resourceVersion), ['2']);
    const r = s.replace([obj('a', 'x', '2', 'blue'), obj('c', 'z', '3')]);
    assert.deepEqual([r.added.map((o) => o.metadata.name), r.updated.length, r.removed.map((o) => o.metadata.name)], [['z'], 0, ['y']]);
    assert.deepEqual(s.byIndex('team', 'red'), []);
    assert.equal(s.remove('a/x')?.metadata.name, 'x');
    assert.deepEqual(s.keys(), ['c/z']);
    assert.throws(() => s.byIndex('nope', 'v'), /no index/);
    assert.throws(() => s.addIndexers({ namespace: () => [] }), /already exists/);
  });

  it('reference behaviour: retryOnConflict retries 409 Conflict only, up to its steps', async () => {
    let calls = 0;
    const conflict = () => new StatusError(409, 'Conflict', 'stale');
    assert.equal(await retryOnConflict(async () => (++calls < 3 ? Promise.reject(conflict()) : 'ok')), 'ok');
    assert.equal(calls, 3);
    calls = 0;
    await assert.rejects(retryOnConflict(async () => { calls++; throw conflict(); }, { initialMs: 1, factor: 1, steps: 4 }), /stale/);
    assert.equal(calls, 4);
    calls = 0;
    await assert.rejects(retryOnConflict(async () => { calls++; throw new StatusError(404, 'NotFound', 'gone'); }), /gone/);
    assert.equal(calls, 1);
  });

  it('reference behaviour: backoff delays grow by the factor up to the cap; a false condition times out', async () => {
    assert.deepEqual([0, 1, 2, 3].map((i) => backoffDelay({ initialMs: 10, factor: 5, capMs: 300 }, i)), [10, 50, 250, 300]);
    let n = 0;
    await assert.rejects(backoff({ initialMs: 1, factor: 2, steps: 3 }, async () => (n++, false)), /after 3 attempts/);
    assert.equal(n, 3);
    await assert.rejects(backoff({ initialMs: 1, factor: 0.5, steps: 3 }, async () => true), /factor/);
  });
});
