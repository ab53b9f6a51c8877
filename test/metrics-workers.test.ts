/**
 * `/metrics` of the real `orch-apiserver` process (spec 3.4): the hidden-metrics flag, and with `--workers`
 * one answer that sums every worker's figures.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { client } from './helpers/client.js';
import { failsToStart, startApiserver, stopAll, tempDir } from './helpers/apiserver-process.js';
import { sample } from './helpers/metrics-text.js';

after(stopAll);

describe('metrics flags of orch-apiserver (spec 3.4)', () => {
  for (const value of ['1.31', '1.29', '1.30.0', 'latest']) {
    it(`spec 3.4: --show-hidden-metrics-for-version=${value} stops the start, naming the flag`, async () => {
      const d = tempDir();
      assert.match(await failsToStart([`--data-dir=${join(d, 'data')}`, '--storage-backend=memory', `--show-hidden-metrics-for-version=${value}`]), /--show-hidden-metrics-for-version: invalid value/);
    });
  }
});

describe('/metrics with --workers (spec 3.4)', () => {
  it('spec 3.4: one scrape answers for every worker: requests spread over two workers are all counted', async () => {
    const d = tempDir();
    const s = await startApiserver([`--data-dir=${join(d, 'data')}`, '--workers=2', '--controllers=', '--show-hidden-metrics-for-version=1.30']);
    await s.stderrLine(/all 2 workers serving/, 20_000);
    const call = client(s.target);
    // Each request opens its own connection, so the supervisor deals them to both workers.
    const n = 20;
    const created = await Promise.all(Array.from({ length: n }, (_, i) => call('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `w-${i}` } } })));
    assert.deepEqual(new Set(created.map((r) => r.status)), new Set([201]));
    const labels = { verb: 'POST', resource: 'configmaps', code: '201' };
    for (let i = 0; i < 4; i++) {
      const r = await call('GET', '/metrics');
      assert.equal(r.status, 200);
      assert.equal(sample(r.text, 'apiserver_request_total', labels), n, 'every scrape, whichever worker answers it, sums both');
      assert.equal(sample(r.text, 'apiserver_storage_objects', { resource: 'configmaps' }), n, 'same store: not doubled');
    }
  });
});
