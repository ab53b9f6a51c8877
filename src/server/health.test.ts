import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HealthChecks } from './health.js';

const q = (s = '') => new URLSearchParams(s);

function failing(reason: string) {
  return () => {
    throw new Error(reason);
  };
}

test('non-verbose success is a bare ok', async () => {
  const h = new HealthChecks();
  for (const e of ['livez', 'readyz', 'healthz'] as const) {
    assert.deepEqual(await h.handle(e, '', q()), { code: 200, body: 'ok' });
  }
});

test('verbose lists built-in checks and ends with the passed line', async () => {
  const h = new HealthChecks();
  h.add('etcd', async () => {}, ['livez', 'readyz', 'healthz']);
  assert.deepEqual(await h.handle('livez', '', q('verbose')), {
    code: 200,
    body: '[+]ping ok\n[+]log ok\n[+]etcd ok\nlivez check passed\n',
  });
  assert.deepEqual(await h.handle('healthz', '', q('verbose=1')), {
    code: 200,
    body: '[+]ping ok\n[+]log ok\n[+]etcd ok\nhealthz check passed\n',
  });
  // readyz always carries the shutdown check, last.
  assert.deepEqual(await h.handle('readyz', '', q('verbose')), {
    code: 200,
    body: '[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]shutdown ok\nreadyz check passed\n',
  });
});

test('checks only appear on the endpoints they were added to', async () => {
  const h = new HealthChecks();
  h.add('informer-sync', () => {}, ['readyz']);
  assert.match((await h.handle('readyz', '', q('verbose'))).body, /\[\+\]informer-sync ok/);
  assert.doesNotMatch((await h.handle('livez', '', q('verbose'))).body, /informer-sync/);
  assert.equal((await h.handle('livez', 'informer-sync', q())).code, 404);
});

test('a failing check gives 500 with the withheld reason, verbose or not', async () => {
  const h = new HealthChecks();
  h.add('etcd', failing('connection refused'), ['livez', 'readyz']);
  const expected = { code: 500, body: '[+]ping ok\n[+]log ok\n[-]etcd failed: reason withheld\nlivez check failed\n' };
  assert.deepEqual(await h.handle('livez', '', q()), expected);
  assert.deepEqual(await h.handle('livez', '', q('verbose')), expected);
  assert.doesNotMatch(expected.body, /connection refused/);
  assert.equal((await h.handle('healthz', '', q())).code, 200);
});

test('async rejections and non-Error throws count as failures', async () => {
  const h = new HealthChecks();
  h.add('a', async () => Promise.reject(new Error('late')), ['readyz']);
  h.add('b', () => {
    throw 'plain string';
  }, ['readyz']);
  const r = await h.handle('readyz', '', q());
  assert.equal(r.code, 500);
  assert.match(r.body, /\[-\]a failed: reason withheld\n\[-\]b failed: reason withheld\n\[\+\]shutdown ok\nreadyz check failed\n$/);
  assert.deepEqual(await h.handle('readyz', 'b', q()), { code: 500, body: 'internal server error: plain string\n' });
});

test('exclude skips a check and lists it as excluded: ok', async () => {
  const h = new HealthChecks();
  h.add('etcd', failing('down'), ['readyz']);
  assert.deepEqual(await h.handle('readyz', '', q('verbose&exclude=etcd')), {
    code: 200,
    body: '[+]ping ok\n[+]log ok\n[+]etcd excluded: ok\n[+]shutdown ok\nreadyz check passed\n',
  });
  assert.deepEqual(await h.handle('readyz', '', q('exclude=etcd')), { code: 200, body: 'ok' });
});

test('several excludes and unknown excludes warn', async () => {
  const h = new HealthChecks();
  const r = await h.handle('livez', '', q('verbose&exclude=log&exclude=zzz&exclude=aaa'));
  assert.equal(r.code, 200);
  assert.equal(
    r.body,
    '[+]ping ok\n[+]log excluded: ok\nwarn: some health checks cannot be excluded: no matches for "aaa","zzz"\nlivez check passed\n',
  );
});

test('per-check path: ok, failure with reason, unknown 404', async () => {
  const h = new HealthChecks();
  h.add('etcd', failing('context deadline exceeded'), ['livez', 'readyz']);
  h.add('poststarthook/start-informers', () => {}, ['readyz']);
  assert.deepEqual(await h.handle('livez', 'ping', q()), { code: 200, body: 'ok' });
  assert.deepEqual(await h.handle('readyz', 'poststarthook/start-informers', q()), { code: 200, body: 'ok' });
  assert.deepEqual(await h.handle('readyz', 'etcd', q()), { code: 500, body: 'internal server error: context deadline exceeded\n' });
  assert.deepEqual(await h.handle('readyz', 'nope', q()), { code: 404, body: '404 page not found\n' });
  assert.deepEqual(await h.handle('readyz', 'shutdown', q()), { code: 200, body: 'ok' });
});

test('setShuttingDown fails readyz only', async () => {
  const h = new HealthChecks();
  h.setShuttingDown();
  assert.deepEqual(await h.handle('readyz', '', q()), {
    code: 500,
    body: '[+]ping ok\n[+]log ok\n[-]shutdown failed: reason withheld\nreadyz check failed\n',
  });
  assert.deepEqual(await h.handle('readyz', 'shutdown', q()), { code: 500, body: 'internal server error: process is shutting down\n' });
  assert.deepEqual(await h.handle('livez', '', q()), { code: 200, body: 'ok' });
  assert.deepEqual(await h.handle('healthz', '', q()), { code: 200, body: 'ok' });
  // Excluding it lets an operator see the rest.
  assert.equal((await h.handle('readyz', '', q('exclude=shutdown'))).code, 200);
});

test('livez grace period: failing livez checks pass until it ends; readyz is unaffected', async () => {
  let t = 1_000;
  const h = new HealthChecks({ livezGracePeriodMs: 500, now: () => t });
  h.add('etcd', failing('not yet'), ['livez', 'readyz']);
  assert.deepEqual(await h.handle('livez', '', q('verbose')), {
    code: 200,
    body: '[+]ping ok\n[+]log ok\n[+]etcd ok\nlivez check passed\n',
  });
  assert.deepEqual(await h.handle('livez', 'etcd', q()), { code: 200, body: 'ok' });
  assert.equal((await h.handle('readyz', '', q())).code, 500);
  t = 1_500;
  assert.equal((await h.handle('livez', '', q())).code, 500);
  assert.deepEqual(await h.handle('livez', 'etcd', q()), { code: 500, body: 'internal server error: not yet\n' });
});

test('duplicate and reserved names are rejected', () => {
  const h = new HealthChecks();
  assert.throws(() => h.add('ping', () => {}, ['livez']), /already registered/);
  assert.throws(() => h.add('shutdown', () => {}, ['readyz']), /reserved/);
  h.add('etcd', () => {}, ['livez']);
  assert.throws(() => h.add('etcd', () => {}, ['livez']), /already registered/);
});
