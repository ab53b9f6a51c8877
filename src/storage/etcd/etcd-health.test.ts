import assert from 'node:assert/strict';
import { it } from 'node:test';
import { StorageError } from '../errors.js';
import { healthFailure } from './etcd-backend.js';
import { retryableRead, toStorageError } from './etcd-rpc.js';

const timeout = new StorageError('Timeout', 'etcd Range: etcd did not answer in time (deadline exceeded)');

const cases: { name: string; error: unknown; connected: boolean; want: RegExp }[] = [
  { name: 'no connection at all', error: timeout, connected: false, want: /^etcd unreachable: no member accepts connections/ },
  { name: 'connected, read timed out', error: timeout, connected: true, want: /linearizable read within 2000 ms: no leader, .*lost quorum/ },
  { name: 'connected, etcd says no leader', error: new StorageError('Unavailable', 'etcd Range: etcdserver: no leader'), connected: true, want: /lost quorum/ },
  { name: 'anything else', error: new StorageError('Unavailable', 'etcd Range: permission denied'), connected: true, want: /^error getting data from etcd: etcd Range: permission denied$/ },
];

for (const c of cases) {
  it(`the etcd readiness reason names the cause: ${c.name} (reference behaviour, etcd check)`, () => {
    assert.match(healthFailure(c.error, c.connected, 2000), c.want);
  });
}

it('spec 2.12: with etcd behind an egress proxy, a failed proxy dial is the readiness reason when no member is connected', () => {
  const dial = 'proxy http://127.0.0.1:9 while dialing 10.0.0.1:2379: the proxy answered "HTTP/1.1 403 Forbidden"';
  assert.equal(healthFailure(timeout, false, 2000, dial), `etcd unreachable through the egress proxy: ${dial} (${timeout.message})`);
  // Connected again: an old dial failure no longer explains anything.
  assert.match(healthFailure(timeout, true, 2000, dial), /lost quorum/);
});

it('etcd\'s own "context deadline exceeded" is a Timeout, not Unavailable (reference behaviour)', () => {
  assert.equal(toStorageError({ code: 2, details: 'context deadline exceeded' }, 'etcd Range').code, 'Timeout');
  assert.equal(toStorageError({ code: 4, details: 'Deadline exceeded' }, 'etcd Range').code, 'Timeout');
  assert.equal(toStorageError({ code: 14, details: 'connection refused' }, 'etcd Range').code, 'Unavailable');
});

it('only a read whose connection went away is sent again; a refused one is not (reference behaviour, client retries)', () => {
  const table: [unknown, boolean][] = [
    [{ code: 14, details: 'Connection dropped' }, true],
    [{ code: 4, details: 'Deadline exceeded' }, false],
    [{ code: 3, details: 'etcdserver: key is not provided' }, false],
    [new Error('plain'), false],
    [undefined, false],
  ];
  for (const [error, want] of table) assert.equal(retryableRead(error), want, JSON.stringify(error));
});
