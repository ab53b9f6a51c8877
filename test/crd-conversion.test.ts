/**
 * CRD conversion webhooks through a whole server (issue 18): a real HTTPS conversion webhook started here
 * with its own CA, converting Widgets between v1 (`spec.replicas`, the storage version) and v2 (`spec.size`).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ADMISSIONREGISTRATION_GROUP, APIEXTENSIONS_GROUP, META_GROUP } from '../src/api/naming.js';
import { closeWebhookConnections } from '../src/admission/webhook/index.js';
import { startServer, type RunningServer } from '../src/index.js';
import { client, watchEvents } from './helpers/client.js';
import { twoVersionWidgetCrd, waitFor } from './helpers/crd.js';
import { kubectl } from './helpers/kubectl.js';
import { startWebhookServer, type Review, type WebhookServer } from './helpers/webhook-server.js';

const CRDS = `/apis/${APIEXTENSIONS_GROUP}/v1/customresourcedefinitions`;
type Mode = 'ok' | 'wrong-uid' | 'wrong-count' | 'rename' | 'fail';

/** The webhook's conversion: v1 spec.replicas <-> v2 spec.size, the rest kept. */
function convert(obj: any, desired: string): any {
  const spec = desired.endsWith('/v2') ? { size: obj.spec?.replicas } : { replicas: obj.spec?.size };
  return { ...obj, apiVersion: desired, spec };
}

function widgetCrd(group: string, clientConfig: Record<string, unknown>, reviewVersions = ['v1']) {
  return twoVersionWidgetCrd(group, { strategy: 'Webhook', webhook: { clientConfig, conversionReviewVersions: reviewVersions } }, 'size', true);
}

describe('CRD conversion webhooks (issue 18)', () => {
  let dir: string;
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  let hook: WebhookServer;
  let mode: Mode = 'ok';

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-crd-conv-'));
    server = await startServer({ port: 0, dataDir: join(dir, 'data'), storage: { type: 'sqlite', path: join(dir, 'orch.db') }, writeKubeconfig: true });
    call = client(server);
    hook = await startWebhookServer((r: Review) => {
      if (r.kind === 'AdmissionReview') {
        const patch = Buffer.from(JSON.stringify([{ op: 'replace', path: '/spec/replicas', value: 42 }])).toString('base64');
        return { response: { uid: r.request.uid, allowed: true, patchType: 'JSONPatch', patch } };
      }
      const { uid, desiredAPIVersion, objects } = r.request as { uid: string; desiredAPIVersion: string; objects: any[] };
      if (mode === 'fail') return { raw: JSON.stringify({ apiVersion: r.apiVersion, kind: r.kind, response: { uid, result: { status: 'Failure', message: 'widgets refuse today' } } }) };
      let converted = objects.map((o) => convert(o, desiredAPIVersion));
      if (mode === 'wrong-count') converted = [...converted, ...converted];
      if (mode === 'rename') converted = converted.map((o) => ({ ...o, metadata: { ...o.metadata, name: 'other' } }));
      const response = { uid: mode === 'wrong-uid' ? 'not-the-uid' : uid, convertedObjects: converted, result: { status: 'Success' } };
      return { raw: JSON.stringify({ apiVersion: r.apiVersion, kind: 'ConversionReview', response }) };
    }, ['convert.default.svc']);
  });
  after(async () => {
    await hook?.close();
    closeWebhookConnections();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function defineCrd(group: string, clientConfig: Record<string, unknown>, reviewVersions?: string[]) {
    const created = await call('POST', CRDS, { body: widgetCrd(group, clientConfig, reviewVersions) });
    assert.equal(created.status, 201, created.text);
    await waitFor('served', async () => (await call('GET', `/apis/${group}/v2/namespaces/default/widgets`)).status === 200);
  }
  const path = (g: string, v: string, name = '') => `/apis/${g}/${v}/namespaces/default/widgets${name ? `/${name}` : ''}`;
  const widget = (g: string, v: string, name: string, spec: Record<string, number>) => ({ apiVersion: `${g}/${v}`, kind: 'Widget', metadata: { name }, spec });

  it('reference behaviour: create in v1, read in v2 and the reverse; objects are stored in the storage version; storedVersions stays [v1]', async () => {
    const g = 'url.conv.example.com';
    await defineCrd(g, { url: `${hook.url}/convert`, caBundle: hook.caBundle });
    mode = 'ok';
    assert.equal((await call('POST', path(g, 'v1'), { body: widget(g, 'v1', 'a', { replicas: 3 }) })).status, 201);
    const before = hook.reviews.length;
    const inV1 = await call('GET', path(g, 'v1', 'a'));
    assert.deepEqual(inV1.json.spec, { replicas: 3 });
    assert.equal(hook.reviews.length, before, 'an object already in the wanted version is never sent');
    const inV2 = await call('GET', path(g, 'v2', 'a'));
    assert.equal(inV2.status, 200, inV2.text);
    assert.equal(inV2.json.apiVersion, `${g}/v2`);
    assert.deepEqual(inV2.json.spec, { size: 3 });
    const review = hook.reviews.at(-1) as Review;
    assert.equal(review.apiVersion, `${APIEXTENSIONS_GROUP}/v1`);
    assert.equal(review.request.desiredAPIVersion, `${g}/v2`);
    assert.match(hook.paths.at(-1) as string, /^\/convert\?timeout=30s$/);

    const created = await call('POST', path(g, 'v2'), { body: widget(g, 'v2', 'b', { size: 5 }) });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.json.spec, { size: 5 });
    assert.deepEqual((await call('GET', path(g, 'v1', 'b'))).json.spec, { replicas: 5 });
    assert.deepEqual((await call('GET', `${CRDS}/widgets.${g}`)).json.status.storedVersions, ['v1']);

    // A patch through the non-storage version: the stored object changes in v1.
    const patched = await call('PATCH', path(g, 'v2', 'b'), { raw: JSON.stringify({ spec: { size: 7 } }), headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(patched.json.spec, { size: 7 });
    assert.deepEqual((await call('GET', path(g, 'v1', 'b'))).json.spec, { replicas: 7 });

    // A list in v2 is converted in one review, order kept.
    const beforeList = hook.reviews.length;
    const list = await call('GET', path(g, 'v2'));
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.json.items.map((i: any) => [i.metadata.name, i.apiVersion, i.spec.size]), [['a', `${g}/v2`, 3], ['b', `${g}/v2`, 7]]);
    assert.equal(hook.reviews.length, beforeList + 1);
    const paged = await call('GET', `${path(g, 'v2')}?limit=1`);
    assert.deepEqual(paged.json.items.map((i: any) => i.spec), [{ size: 3 }]);
  });

  it('reference behaviour: a watch of the non-storage version sends converted objects, initial and live', async () => {
    const g = 'url.conv.example.com';
    mode = 'ok';
    const events = watchEvents(server, `${path(g, 'v2')}?watch=true`, 3, 5000, () => {
      setTimeout(() => void call('POST', path(g, 'v1'), { body: widget(g, 'v1', 'c', { replicas: 9 }) }), 100);
    });
    const got = await events;
    assert.deepEqual(got.map((e) => [e.type, e.object.metadata.name, e.object.apiVersion, e.object.spec.size]), [
      ['ADDED', 'a', `${g}/v2`, 3],
      ['ADDED', 'b', `${g}/v2`, 7],
      ['ADDED', 'c', `${g}/v2`, 9],
    ]);
  });

  it('reference behaviour: a watch resumed from a resourceVersion replays the history converted, in order', async () => {
    const g = 'url.conv.example.com';
    mode = 'ok';
    const from = (await call('GET', path(g, 'v2'))).json.metadata.resourceVersion as string;
    for (const [name, replicas] of [['d', 4], ['e', 5]] as const) assert.equal((await call('POST', path(g, 'v1'), { body: widget(g, 'v1', name, { replicas }) })).status, 201);
    const got = await watchEvents(server, `${path(g, 'v2')}?watch=true&resourceVersion=${from}`, 2, 5000);
    assert.deepEqual(got.map((e) => [e.type, e.object.metadata.name, e.object.apiVersion, e.object.spec.size]), [
      ['ADDED', 'd', `${g}/v2`, 4],
      ['ADDED', 'e', `${g}/v2`, 5],
    ]);
    // Later tests count this group's objects.
    for (const name of ['d', 'e']) assert.equal((await call('DELETE', path(g, 'v1', name))).status, 200);
  });

  const failures: [Mode | 'down', RegExp][] = [
    ['fail', /widgets refuse today/],
    ['wrong-uid', /response uid "not-the-uid" is not the request uid/],
    ['wrong-count', /2 converted objects were returned for 1 sent/],
    ['rename', /changed metadata.name from "a" to "other"/],
  ];
  for (const [m, why] of failures) {
    it(`reference behaviour: an answer with ${m} is a 500 naming the webhook conversion of the resource`, async () => {
      const g = 'url.conv.example.com';
      mode = m as Mode;
      try {
        const r = await call('GET', path(g, 'v2', 'a'));
        assert.equal(r.status, 500, r.text);
        assert.equal(r.json.reason, 'InternalError');
        assert.match(r.json.message, new RegExp(`^conversion webhook for ${g.replace(/\./g, '\\.')}/Widget failed: `));
        assert.match(r.json.message, why);
        const write = await call('POST', path(g, 'v2'), { body: widget(g, 'v2', `w-${m}`, { size: 1 }) });
        assert.equal(write.status, 500, 'a write in the non-storage version fails too');
      } finally {
        mode = 'ok';
      }
    });
  }

  it('reference behaviour: the webhook down is a 500 naming the resource and the webhook URL', async () => {
    const g = 'down.conv.example.com';
    await defineCrd(g, { url: 'https://127.0.0.1:1/convert', caBundle: hook.caBundle });
    assert.equal((await call('POST', path(g, 'v1'), { body: widget(g, 'v1', 'a', { replicas: 1 }) })).status, 201);
    const r = await call('GET', path(g, 'v2', 'a'));
    assert.equal(r.status, 500, r.text);
    assert.match(r.json.message, /^conversion webhook for down\.conv\.example\.com\/Widget failed: Post "https:\/\/127\.0\.0\.1:1\/convert\?timeout=30s": /);
  });

  it('reference behaviour: conversionReviewVersions [v1beta1] sends a v1beta1 ConversionReview; a service reference is resolved', async () => {
    const g = 'svc.conv.example.com';
    // Endpoints may not hold loopback addresses, so the service is an ExternalName for localhost.
    const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'convert' }, spec: { type: 'ExternalName', externalName: 'localhost' } };
    assert.equal((await call('POST', '/api/v1/namespaces/default/services', { body: svc })).status, 201);
    await defineCrd(g, { service: { namespace: 'default', name: 'convert', path: '/svc', port: hook.port }, caBundle: hook.caBundle }, ['v1beta1']);
    mode = 'ok';
    assert.equal((await call('POST', path(g, 'v2'), { body: widget(g, 'v2', 'a', { size: 2 }) })).status, 201);
    const review = hook.reviews.at(-1) as Review;
    assert.equal(review.apiVersion, `${APIEXTENSIONS_GROUP}/v1beta1`);
    assert.match(hook.paths.at(-1) as string, /^\/svc\?timeout=30s$/);
    assert.deepEqual((await call('GET', path(g, 'v1', 'a'))).json.spec, { replicas: 2 });
  });

  it('reference behaviour: a custom resource table is Name plus exactly its printer columns (no Age added)', async () => {
    const g = 'url.conv.example.com';
    mode = 'ok';
    const table = await call('GET', path(g, 'v2'), { headers: { accept: `application/json;as=Table;v=v1;g=${META_GROUP}` } });
    assert.equal(table.json.kind, 'Table', table.text);
    assert.deepEqual(table.json.columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'Count']);
    assert.deepEqual(table.json.rows.map((r: { cells: unknown[] }) => r.cells), [['a', 3], ['b', 7], ['c', 9]]);
  });

  it('reference behaviour: a mutating webhook\'s spec change on update bumps a custom resource\'s generation', async () => {
    const g = 'url.conv.example.com';
    mode = 'ok';
    const mwc = {
      apiVersion: `${ADMISSIONREGISTRATION_GROUP}/v1`,
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'widget-mutator' },
      webhooks: [{
        name: 'mutate.widgets.example.com',
        clientConfig: { url: `${hook.url}/mutate`, caBundle: hook.caBundle },
        rules: [{ operations: ['UPDATE'], apiGroups: [g], apiVersions: ['v1'], resources: ['widgets'] }],
        objectSelector: { matchLabels: { mutate: 'yes' } },
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
      }],
    };
    const created = await call('POST', `/apis/${mwc.apiVersion}/mutatingwebhookconfigurations`, { body: mwc });
    assert.equal(created.status, 201, created.text);
    const before = (await call('GET', path(g, 'v1', 'a'))).json;
    assert.equal(before.metadata.generation, 1);
    // Only a label changes in the request; the webhook changes spec.replicas. Retry until admission sees the configuration.
    let after: any;
    await waitFor('mutated', async () => {
      const r = await call('PATCH', path(g, 'v1', 'a'), { raw: JSON.stringify({ metadata: { labels: { mutate: 'yes', n: String(Date.now()) } } }), headers: { 'content-type': 'application/merge-patch+json' } });
      after = r.json;
      return r.status === 200 && after.spec.replicas === 42;
    });
    assert.equal(after.metadata.generation, before.metadata.generation + 1);
    assert.equal((await call('DELETE', `/apis/${mwc.apiVersion}/mutatingwebhookconfigurations/widget-mutator`)).status, 200);
  });

  it('reference behaviour: real kubectl gets a converted resource in both versions, with each version\'s printer columns', async () => {
    const g = 'url.conv.example.com';
    mode = 'ok';
    const k = kubectl(server.kubeconfigPath as string);
    const inV1 = await k(['get', `widgets.v1.${g}`, 'a', '-n', 'default']);
    assert.match(inV1, /NAME\s+COUNT\s*\n/, 'a CRD\'s printer columns are the whole table: no AGE added');
    assert.match(inV1, /\ba\s+42\b/, "spec.replicas as the mutating webhook test left it");
    const inV2 = JSON.parse(await k(['get', `widgets.v2.${g}`, 'b', '-n', 'default', '-o', 'json']));
    assert.equal(inV2.apiVersion, `${g}/v2`);
    assert.deepEqual(inV2.spec, { size: 7 });
  });
});
