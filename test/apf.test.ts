/**
 * API priority and fairness through the whole server (issue 20): the built-in objects, the response
 * headers, configuration edits through the API, the Dangling condition, one user's flood against another
 * user's writes, and the max-in-flight limits when priority and fairness is off.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect as h2connect, type ClientHttp2Session } from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { APF_AUTOUPDATE_ANNOTATION } from '../src/api/naming.js';
import { startServer, type RunningServer } from '../src/index.js';
import { failsToStart, stopAll, tempDir } from './helpers/apiserver-process.js';
import { client } from './helpers/client.js';

const FC = '/apis/flowcontrol.apiserver.orch.io/v1';
const FS_HEADER = 'x-orch-pf-flowschema-uid';
const PL_HEADER = 'x-orch-pf-prioritylevel-uid';
const CM = '/api/v1/namespaces/default/configmaps';

function h2(server: RunningServer): ClientHttp2Session {
  const s = h2connect(server.url, { ca: server.caCertPem });
  s.on('error', () => undefined);
  return s;
}
/** One request on an HTTP/2 session: status and headers (the body is read and dropped). */
function h2req(s: ClientHttp2Session, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const r = s.request({ ':method': method, ':path': path, authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) });
    let headers: Record<string, unknown> = {};
    r.on('response', (h) => (headers = h));
    r.on('data', () => undefined);
    r.on('end', () => resolve({ status: Number(headers[':status']), headers }));
    r.on('error', reject);
    r.end(body ? JSON.stringify(body) : undefined);
  });
}

const until = async (what: string, f: () => Promise<boolean>, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!(await f())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe('API priority and fairness over HTTPS (issue 20)', () => {
  let dir: string;
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-apf-'));
    writeFileSync(join(dir, 'tokens.csv'), 'tok-flood,flooder,uid-f,team\ntok-write,writer,uid-w,team\ntok-bob,bob,uid-b,team\n');
    server = await startServer({
      port: 0,
      dataDir: join(dir, 'data'),
      storage: { type: 'sqlite', path: join(dir, 'data', 'orch.db') },
      tokenAuthFile: join(dir, 'tokens.csv'),
      authorizationModes: ['AlwaysAllow'],
      maxRequestsInflight: 4,
      maxMutatingRequestsInflight: 2,
      apfQueueWaitMs: 300,
    });
    call = client(server);
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reference behaviour: the mandatory and suggested objects exist, with the auto-update annotation', async () => {
    const levels = await call('GET', `${FC}/prioritylevelconfigurations`);
    const names = levels.json.items.map((o: { metadata: { name: string } }) => o.metadata.name).sort();
    assert.deepEqual(names, ['catch-all', 'exempt', 'global-default', 'leader-election', 'node-high', 'system', 'workload-high', 'workload-low']);
    const schemas = await call('GET', `${FC}/flowschemas`);
    const fsNames = schemas.json.items.map((o: { metadata: { name: string } }) => o.metadata.name);
    for (const n of ['exempt', 'catch-all', 'probes', 'system-nodes', 'system-node-high', 'system-leader-election', 'global-default', 'service-accounts']) assert.ok(fsNames.includes(n), n);
    for (const o of [...levels.json.items, ...schemas.json.items]) assert.equal(o.metadata.annotations[APF_AUTOUPDATE_ANNOTATION], 'true', o.metadata.name);
    const globalDefault = levels.json.items.find((o: { metadata: { name: string } }) => o.metadata.name === 'global-default');
    assert.deepEqual(globalDefault.spec.limited, { nominalConcurrencyShares: 20, lendablePercent: 50, limitResponse: { type: 'Queue', queuing: { queues: 128, handSize: 6, queueLengthLimit: 50 } } });
  });

  it('reference behaviour: responses name the FlowSchema and priority level by UID (X-Orch-PF-* headers)', async () => {
    const uid = async (path: string) => (await call('GET', path)).json.metadata.uid;
    const admin = await call('GET', CM);
    assert.equal(admin.headers[FS_HEADER], await uid(`${FC}/flowschemas/exempt`));
    assert.equal(admin.headers[PL_HEADER], await uid(`${FC}/prioritylevelconfigurations/exempt`));
    const bob = await call('GET', CM, { token: 'tok-bob' });
    assert.equal(bob.status, 200);
    assert.equal(bob.headers[FS_HEADER], await uid(`${FC}/flowschemas/global-default`));
    assert.equal(bob.headers[PL_HEADER], await uid(`${FC}/prioritylevelconfigurations/global-default`));
    const probe = await call('GET', '/readyz', { token: null });
    assert.equal(probe.headers[FS_HEADER], await uid(`${FC}/flowschemas/probes`));
  });

  it('reference behaviour: a FlowSchema edit takes effect, and its Dangling condition follows its priority level', async () => {
    const schema = {
      apiVersion: 'flowcontrol.apiserver.orch.io/v1',
      kind: 'FlowSchema',
      metadata: { name: 'for-bob' },
      spec: {
        priorityLevelConfiguration: { name: 'bob-level' },
        matchingPrecedence: 300,
        distinguisherMethod: { type: 'ByUser' },
        rules: [{ subjects: [{ kind: 'User', user: { name: 'bob' } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'] }] }],
      },
    };
    const created = await call('POST', `${FC}/flowschemas`, { body: schema });
    assert.equal(created.status, 201, created.text);
    const dangling = async () => (await call('GET', `${FC}/flowschemas/for-bob`)).json.status?.conditions?.find((c: { type: string }) => c.type === 'Dangling');
    await until('Dangling=True', async () => (await dangling())?.status === 'True');
    assert.equal((await dangling()).reason, 'NotFound');
    // While its level is missing the schema is skipped: bob still lands in global-default.
    const globalDefaultUid = (await call('GET', `${FC}/flowschemas/global-default`)).json.metadata.uid;
    assert.equal((await call('GET', CM, { token: 'tok-bob' })).headers[FS_HEADER], globalDefaultUid);
    const level = await call('POST', `${FC}/prioritylevelconfigurations`, {
      body: { apiVersion: 'flowcontrol.apiserver.orch.io/v1', kind: 'PriorityLevelConfiguration', metadata: { name: 'bob-level' }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, limitResponse: { type: 'Reject' } } } },
    });
    assert.equal(level.status, 201, level.text);
    await until('Dangling=False', async () => (await dangling())?.status === 'False');
    assert.equal((await dangling()).reason, 'Found');
    await until('bob classified by for-bob', async () => (await call('GET', CM, { token: 'tok-bob' })).headers[FS_HEADER] === created.json.metadata.uid);
    assert.equal((await call('GET', CM, { token: 'tok-bob' })).headers[PL_HEADER], level.json.metadata.uid);
    // Narrowed to one namespace, the schema no longer covers bob's reads elsewhere.
    const cur = (await call('GET', `${FC}/flowschemas/for-bob`)).json;
    cur.spec.rules[0].resourceRules[0].namespaces = ['elsewhere'];
    assert.equal((await call('PUT', `${FC}/flowschemas/for-bob`, { body: cur })).status, 200);
    await until('the edit to take effect', async () => (await call('GET', CM, { token: 'tok-bob' })).headers[FS_HEADER] === globalDefaultUid);
    assert.equal((await call('DELETE', `${FC}/flowschemas/for-bob`)).status, 200);
  });

  it('issue 20: one user flooding with lists gets 429s with Retry-After while another user\'s writes all complete', async () => {
    // Big enough lists that a flood keeps every seat of the level busy.
    const data = { v: 'x'.repeat(2000) };
    const setup = h2(server);
    for (let i = 0; i < 200; i += 20) {
      await Promise.all(Array.from({ length: 20 }, (_, j) => h2req(setup, server.adminToken, 'POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `big-${i + j}` }, data })));
    }
    setup.close();
    const flood = h2(server);
    const writes = h2(server);
    let stop = false;
    const floodStatuses = new Map<number, number>();
    let retryAfter: unknown;
    const flooders = Array.from({ length: 150 }, async () => {
      while (!stop) {
        const r = await h2req(flood, 'tok-flood', 'GET', CM);
        floodStatuses.set(r.status, (floodStatuses.get(r.status) ?? 0) + 1);
        if (r.status === 429) retryAfter = r.headers['retry-after'];
      }
    });
    try {
      await new Promise((r) => setTimeout(r, 500));
      const writeStatuses: number[] = [];
      for (let i = 0; i < 20; i++) {
        const r = await h2req(writes, 'tok-write', 'POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `w-${i}` } });
        writeStatuses.push(r.status);
      }
      assert.deepEqual(writeStatuses, Array(20).fill(201), "every write of the other user succeeded");
    } finally {
      stop = true;
      await Promise.all(flooders);
      flood.close();
      writes.close();
    }
    assert.ok((floodStatuses.get(429) ?? 0) > 0, `the flooder got 429s: ${JSON.stringify([...floodStatuses])}`);
    assert.ok((floodStatuses.get(200) ?? 0) > 0, 'and some of its lists were served');
    assert.equal(retryAfter, '1');
  });
});

describe('API priority and fairness: the built-in objects at start (reference behaviour)', () => {
  it('reference behaviour: at start a mandatory object is marked for auto-update again; a suggested one marked "false" keeps its edit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orch-apf-restart-'));
    const opts = { port: 0, dataDir: join(dir, 'data'), storage: { type: 'sqlite' as const, path: join(dir, 'orch.db') } };
    try {
      let s = await startServer(opts);
      let call = client(s);
      const catchAll = (await call('GET', `${FC}/prioritylevelconfigurations/catch-all`)).json;
      // Its spec cannot change (validation), but its annotation can.
      catchAll.metadata.annotations[APF_AUTOUPDATE_ANNOTATION] = 'false';
      assert.equal((await call('PUT', `${FC}/prioritylevelconfigurations/catch-all`, { body: catchAll })).status, 200);
      const gd = (await call('GET', `${FC}/prioritylevelconfigurations/global-default`)).json;
      gd.spec.limited.nominalConcurrencyShares = 66;
      gd.metadata.annotations[APF_AUTOUPDATE_ANNOTATION] = 'false';
      assert.equal((await call('PUT', `${FC}/prioritylevelconfigurations/global-default`, { body: gd })).status, 200);
      const system = (await call('GET', `${FC}/prioritylevelconfigurations/system`)).json;
      system.spec.limited.nominalConcurrencyShares = 55;
      assert.equal((await call('PUT', `${FC}/prioritylevelconfigurations/system`, { body: system })).status, 200);
      await s.close();
      s = await startServer(opts);
      call = client(s);
      const shares = async (n: string) => (await call('GET', `${FC}/prioritylevelconfigurations/${n}`)).json.spec.limited.nominalConcurrencyShares;
      const catchAllNow = (await call('GET', `${FC}/prioritylevelconfigurations/catch-all`)).json;
      assert.equal(catchAllNow.metadata.annotations[APF_AUTOUPDATE_ANNOTATION], 'true', 'mandatory: marked again');
      assert.equal(await shares('global-default'), 66, 'suggested, auto-update off: kept');
      assert.equal(await shares('system'), 30, 'suggested, auto-update on: restored');
      await s.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('max in flight when priority and fairness is off (reference behaviour)', () => {
  after(stopAll);
  it('reference behaviour: limits apply after authentication; system:masters and watches are exempt', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orch-apf-off-'));
    writeFileSync(join(dir, 'tokens.csv'), 'tok-u,user,uid-u,team\n');
    const s = await startServer({ port: 0, storage: { type: 'memory' }, dataDir: join(dir, 'data'), tokenAuthFile: join(dir, 'tokens.csv'), authorizationModes: ['AlwaysAllow'], enablePriorityAndFairness: false, maxRequestsInflight: 1, maxMutatingRequestsInflight: 1 });
    const session = h2(s);
    try {
      // A watch holds no slot, and a request without valid credentials is refused before any limit.
      const watch = session.request({ ':path': `${CM}?watch=1`, authorization: 'Bearer tok-u' });
      watch.on('error', () => undefined);
      watch.resume();
      await new Promise((r) => watch.once('response', r));
      assert.equal((await h2req(session, 'tok-u', 'GET', CM)).status, 200, 'the watch does not use the read slot');
      // The one write slot, held by a create whose body has not finished arriving.
      const held = session.request({ ':method': 'POST', ':path': CM, authorization: 'Bearer tok-u', 'content-type': 'application/json' });
      held.on('error', () => undefined);
      held.write('{');
      await new Promise((r) => setTimeout(r, 200));
      assert.equal((await h2req(session, 'wrong', 'POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } })).status, 401, 'credentials are checked first');
      const limited = await h2req(session, 'tok-u', 'POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' } });
      assert.equal(limited.status, 429);
      assert.equal(limited.headers['retry-after'], '1');
      assert.equal(limited.headers[FS_HEADER], undefined, 'no priority and fairness headers');
      const admin = await h2req(session, s.adminToken, 'POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } });
      assert.equal(admin.status, 201, 'system:masters is not limited');
      held.close();
      watch.close();
      await until('the slot to be free again', async () => (await h2req(session, 'tok-u', 'POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'd' } })).status === 201);
    } finally {
      session.close();
      await s.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reference behaviour: --enable-priority-and-fairness takes a boolean, and a bad value fails the start naming the flag', async () => {
    const dir = tempDir('orch-apf-flag-');
    assert.match(await failsToStart(['--storage-backend=memory', `--data-dir=${dir}`, '--enable-priority-and-fairness=maybe']), /--enable-priority-and-fairness: invalid boolean "maybe"/);
    assert.match(
      await failsToStart(['--storage-backend=memory', `--data-dir=${dir}`, '--max-requests-inflight=0', '--max-mutating-requests-inflight=0']),
      /--max-requests-inflight, --max-mutating-requests-inflight: their sum must be positive/,
    );
  });

  it('reference behaviour: with priority and fairness on, the two limits must leave it seats', async () => {
    await assert.rejects(
      startServer({ port: 0, storage: { type: 'memory' }, maxRequestsInflight: 0, maxMutatingRequestsInflight: 0 }),
      /--max-requests-inflight, --max-mutating-requests-inflight: their sum must be positive when --enable-priority-and-fairness is true/,
    );
  });
});
