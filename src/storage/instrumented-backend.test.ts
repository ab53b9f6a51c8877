import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Backend } from './backend.js';
import { isStorageError } from './errors.js';
import { InstrumentedBackend, type StorageCallHook, type StorageOperation } from './instrumented-backend.js';
import { MemoryBackend } from './memory/memory-backend.js';
import { backendContract, sameProcessPeer } from './testing/contract.js';

const enc = (s: string) => new TextEncoder().encode(s);

interface Seen {
  started: string[];
  finished: string[];
}

/** Records every started and finished call; `run` wraps the call so its use is visible too. */
function recordingHook(seen: Seen, opts: { withRun: boolean }): StorageCallHook<string> {
  return {
    start(operation, key) {
      seen.started.push(`${operation} ${key}`);
      return `${operation} ${key}`;
    },
    ...(opts.withRun ? { run: <T>(state: string, call: () => Promise<T>) => (seen.started.push(`run ${state}`), call()) } : {}),
    finish(state, operation, key, failed, error) {
      assert.equal(state, `${operation} ${key}`);
      seen.finished.push(`${state} ${failed ? `failed ${isStorageError(error) ? error.code : String(error)}` : 'ok'}`);
    },
  };
}

const declining: StorageCallHook<never> = { start: () => undefined, finish: () => assert.fail('a declined call is never finished') };

// The decorator is a Backend like any other: the shared contract holds through it, hook active or declining.
backendContract('instrumented decorator (recording hook with run) over memory', {
  open: async () => new InstrumentedBackend(new MemoryBackend({ compactIntervalMs: 0 }), recordingHook({ started: [], finished: [] }, { withRun: true })),
  peer: async (b) => sameProcessPeer(b),
});
backendContract('instrumented decorator (declining hook) over memory', {
  open: async () => new InstrumentedBackend(new MemoryBackend({ compactIntervalMs: 0 }), declining),
  peer: async (b) => sameProcessPeer(b),
});

describe('storage decorator: which calls the hook sees', () => {
  for (const withRun of [false, true]) {
    it(`reports each key-value operation with its key and outcome (run hook: ${withRun})`, async () => {
      const seen: Seen = { started: [], finished: [] };
      const b = new InstrumentedBackend(new MemoryBackend({ compactIntervalMs: 0 }), recordingHook(seen, { withRun }));
      const created = await b.create('/a/1', enc('x'));
      await assert.rejects(b.create('/a/1', enc('y')));
      await b.get('/a/1');
      await b.list('/a/');
      await b.count('/a/');
      const updated = await b.update('/a/1', enc('z'), created.modRevision);
      await assert.rejects(b.update('/a/1', enc('w'), created.modRevision));
      await b.delete('/a/1', updated.modRevision);
      await assert.rejects(b.delete('/a/1'));
      // Neither forwarded nor counted: revision queries, compaction, the change feed.
      await b.currentRevision();
      await b.compactedRevision();
      await b.compact();
      const ac = new AbortController();
      b.watch('/a/', 0, ac.signal);
      ac.abort();
      await new Promise((r) => setImmediate(r));
      const ops: [StorageOperation, string, string][] = [
        ['create', '/a/1', 'ok'],
        ['create', '/a/1', 'failed KeyExists'],
        ['get', '/a/1', 'ok'],
        ['list', '/a/', 'ok'],
        ['count', '/a/', 'ok'],
        ['update', '/a/1', 'ok'],
        ['update', '/a/1', 'failed Conflict'],
        ['delete', '/a/1', 'ok'],
        ['delete', '/a/1', 'failed NotFound'],
      ];
      assert.deepEqual(seen.finished, ops.map(([op, key, outcome]) => `${op} ${key} ${outcome}`));
      const expectStarted = ops.flatMap(([op, key]) => (withRun ? [`${op} ${key}`, `run ${op} ${key}`] : [`${op} ${key}`]));
      assert.deepEqual(seen.started, expectStarted);
      await b.close();
    });
  }

  it('a declined call returns the inner promise itself (no extra promise, no closure)', () => {
    const answers = new Map<string, Promise<unknown>>();
    const answer = (name: string) => {
      const p = Promise.resolve(name);
      answers.set(name, p);
      return p;
    };
    const inner = {
      name: 'fake',
      get: () => answer('get'),
      list: () => answer('list'),
      count: () => answer('count'),
      create: () => answer('create'),
      update: () => answer('update'),
      delete: () => answer('delete'),
    } as unknown as Backend;
    const b = new InstrumentedBackend(inner, declining);
    const calls: [string, Promise<unknown>][] = [
      ['get', b.get('/k')],
      ['list', b.list('/k/')],
      ['count', b.count('/k/')],
      ['create', b.create('/k', enc(''))],
      ['update', b.update('/k', enc(''), 1)],
      ['delete', b.delete('/k')],
    ];
    for (const [name, p] of calls) assert.equal(p, answers.get(name), name);
  });

  it('forwards the optional methods only when the inner backend has them', async () => {
    let progress = 0;
    let health = 0;
    const withThem = new InstrumentedBackend(
      Object.assign(new MemoryBackend({ compactIntervalMs: 0 }), { requestProgress: (r: number) => (progress = r), healthCheck: async () => void health++ }),
      declining,
    );
    withThem.requestProgress?.(7);
    await withThem.healthCheck?.();
    assert.equal(progress, 7);
    assert.equal(health, 1);
    const without = new InstrumentedBackend({ name: 'bare' } as Backend, declining);
    assert.equal(without.requestProgress, undefined);
    assert.equal(without.healthCheck, undefined);
    assert.equal(without.name, 'bare');
    await withThem.close();
  });
});
