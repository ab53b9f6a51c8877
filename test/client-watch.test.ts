import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { StatusError } from '../src/errors/index.js';
import { startServer, type RunningServer } from '../src/index.js';
import { Client, ListWatcher, type KubeObject, type WatchEvent } from '../src/client/index.js';

const CM = { group: '', version: 'v1', plural: 'configmaps' };
const cm = (name: string, labels: Record<string, string> = {}, data: Record<string, string> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const waitFor = async (what: string, f: () => boolean, ms = 8000) => {
  const deadline = Date.now() + ms;
  while (!f()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await sleep(20);
  }
};

// Both transports (HTTP/2, and direct into the filter chain of this process's server) keep one contract.
for (const transport of ['HTTP/2', 'direct'] as const) describe(`client watch, list-watch and informers (${transport} transport) against a real server (issue 19)`, () => {
  let server: RunningServer;
  let client: Client;

  before(async () => {
    // Watches end after 1-2 s (resume is exercised), and history keeps only ~0.5 s (410 is reachable).
    // No in-process controllers: their writes (a root CA ConfigMap per namespace) would show in the watches.
    server = await startServer({ port: 0, storage: { type: 'memory' }, controllers: [], minRequestTimeoutSeconds: 1, history: { windowMs: 500, compactIntervalMs: 100 }, featureGates: { WatchList: true } });
    client = new Client({ server: server.url, caPem: server.caCertPem, credentials: { get: () => ({ token: server.adminToken }) }, ...(transport === 'direct' ? { direct: server.direct } : {}) });
  });
  after(async () => {
    client.close();
    await server.close();
  });

  it('reference behaviour: a watch streams events as they happen and stops on abort', async () => {
    const cms = client.resource(CM, 'w1');
    await client.resource({ group: '', version: 'v1', plural: 'namespaces' }).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'w1' } });
    const { resourceVersion } = await cms.listAll();
    const abort = new AbortController();
    const seen: WatchEvent[] = [];
    const done = (async () => {
      try {
        for await (const e of cms.watch({ resourceVersion, signal: abort.signal })) seen.push(e);
      } catch (e) {
        if (!abort.signal.aborted) throw e;
      }
    })();
    await cms.create(cm('a'));
    await cms.patch('a', 'merge', { data: { x: '1' } });
    await cms.delete('a');
    await waitFor('three events', () => seen.length >= 3);
    abort.abort();
    await done;
    assert.deepEqual(seen.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED a', 'MODIFIED a', 'DELETED a']);
  });

  it('reference behaviour: a watch from a compacted resourceVersion fails with 410 Expired', async () => {
    const cms = client.resource(CM, 'default');
    const old = (await cms.create(cm('old-rv'))).metadata.resourceVersion as string;
    for (let i = 0; i < 3; i++) await cms.patch('old-rv', 'merge', { data: { i: String(i) } });
    await sleep(900);
    await cms.patch('old-rv', 'merge', { data: { i: 'late' } });
    await sleep(300);
    let failure: unknown;
    try {
      for await (const e of cms.watch({ resourceVersion: old })) void e;
    } catch (e) {
      failure = e;
    }
    assert.ok(failure instanceof StatusError, String(failure));
    assert.equal(failure.code, 410);
  });

  it('reference behaviour: list-watch resumes from the last resourceVersion when the server ends the watch', async () => {
    const cms = client.resource(CM, 'default');
    const events: string[] = [];
    let replaced = 0;
    const lw = new ListWatcher(cms, { onReplace: () => replaced++, onEvent: (e) => events.push(`${e.type} ${e.object.metadata.name}`) }, { labelSelector: 'resume=yes' });
    const abort = new AbortController();
    const running = lw.run(abort.signal);
    await waitFor('first list', () => replaced === 1);
    // Server-side watch timeouts are 1-2 s here: these writes span several watch responses.
    for (let i = 0; i < 6; i++) {
      await cms.create(cm(`resume-${i}`, { resume: 'yes' }));
      await sleep(600);
    }
    await waitFor('six events', () => events.length >= 6);
    abort.abort();
    await running;
    assert.deepEqual(events, Array.from({ length: 6 }, (_, i) => `ADDED resume-${i}`), 'no event lost or repeated');
    assert.equal(lw.lists, 1, 'resumed by watch, never listed again');
  });

  it('reference behaviour: informer relists after 410 and reports deletions missed meanwhile with the last known object', async () => {
    const cms = client.resource(CM, 'default');
    await cms.create(cm('gone-later', { inf: 'relist' }, { v: 'last' }));
    const informer = client.informerFactory().informerFor({ gvr: CM, namespace: 'default', labelSelector: 'inf=relist' });
    const deleted: { name: string; unknown: boolean; data: unknown }[] = [];
    const added: string[] = [];
    informer.addEventHandler({ onAdd: (o) => added.push(o.metadata.name as string), onDelete: (o, info) => deleted.push({ name: o.metadata.name as string, unknown: info.finalStateUnknown, data: o.data }) });
    informer.start();
    await informer.waitForSync();
    assert.deepEqual(added, ['gone-later']);
    await informer.stop();
    // While stopped: the object goes, a new one comes, and history moves past the informer's resourceVersion.
    await cms.delete('gone-later');
    await cms.create(cm('came-later', { inf: 'relist' }));
    await sleep(900);
    await cms.create(cm('unrelated'));
    await sleep(300);
    informer.start();
    await waitFor('relist', () => added.includes('came-later'));
    assert.equal(informer.lists, 2, 'the 410 led to a second list');
    assert.deepEqual(deleted, [{ name: 'gone-later', unknown: true, data: { v: 'last' } }]);
    assert.deepEqual(informer.store.keys().sort(), ['default/came-later']);
    await informer.stop();
  });

  it('reference behaviour: informer cache with the namespace index, custom indexers and add/update/delete handlers', async () => {
    const nsApi = client.resource({ group: '', version: 'v1', plural: 'namespaces' });
    for (const ns of ['idx-a', 'idx-b']) await nsApi.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    const factory = client.informerFactory();
    const informer = factory.informerFor({ gvr: CM, labelSelector: 'idx' });
    assert.equal(factory.informerFor({ gvr: CM, labelSelector: 'idx' }), informer, 'one shared informer per resource and selector');
    informer.addIndexers({ byTeam: (o) => (o.metadata.labels?.team ? [o.metadata.labels.team] : []) });
    const log: string[] = [];
    informer.addEventHandler({
      onAdd: (o) => log.push(`add ${o.metadata.name}`),
      onUpdate: (old, o) => log.push(`update ${o.metadata.name} ${old.metadata.labels?.team}->${o.metadata.labels?.team}`),
      onDelete: (o, info) => log.push(`delete ${o.metadata.name} ${info.finalStateUnknown}`),
    });
    await client.resource(CM, 'idx-a').create(cm('one', { idx: '1', team: 'red' }));
    const abort = new AbortController();
    factory.start(abort.signal);
    await factory.waitForSync();
    assert.equal(informer.hasSynced(), true);
    await client.resource(CM, 'idx-b').create(cm('two', { idx: '1', team: 'red' }));
    await client.resource(CM, 'idx-b').patch('two', 'merge', { metadata: { labels: { team: 'blue' } } });
    await client.resource(CM, 'idx-a').delete('one');
    await waitFor('four events', () => log.length >= 4);
    assert.deepEqual(log, ['add one', 'add two', 'update two red->blue', 'delete one false']);
    assert.deepEqual(informer.store.byIndex('namespace', 'idx-b').map((o) => o.metadata.name), ['two']);
    assert.deepEqual(informer.store.byIndex('byTeam', 'blue').map((o) => o.metadata.name), ['two']);
    assert.deepEqual(informer.store.byIndex('byTeam', 'red'), []);
    // A late handler gets the cache's content as adds.
    const late: string[] = [];
    informer.addEventHandler({ onAdd: (o, initial) => late.push(`${o.metadata.name} ${initial}`) });
    assert.deepEqual(late, ['two true']);
    abort.abort();
    await factory.stop();
  });

  it('reference behaviour: list-watch with sendInitialEvents builds the state from the watch itself', async () => {
    const cms = client.resource(CM, 'default');
    await cms.create(cm('initial-1', { wl: 'yes' }));
    await cms.create(cm('initial-2', { wl: 'yes' }));
    let state: string[] = [];
    const events: string[] = [];
    const lw = new ListWatcher(cms, { onReplace: (items) => (state = items.map((i) => i.metadata.name as string).sort()), onEvent: (e) => events.push(`${e.type} ${e.object.metadata.name}`) }, { labelSelector: 'wl=yes', useWatchList: true });
    const abort = new AbortController();
    const running = lw.run(abort.signal);
    await waitFor('initial state', () => state.length === 2);
    await cms.create(cm('initial-3', { wl: 'yes' }));
    await waitFor('a later event', () => events.length === 1);
    abort.abort();
    await running;
    assert.deepEqual(state, ['initial-1', 'initial-2']);
    assert.deepEqual(events, ['ADDED initial-3']);
  });
});
