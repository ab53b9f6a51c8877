/**
 * matchPolicy Equivalent on a custom resource converted by a webhook (issues 15, 18): a real HTTPS server
 * started here is both the CRD's conversion webhook (v1 `spec.replicas`, the storage version, and v2
 * `spec.size`) and the admission webhooks, registered for v1 only. A request in v2 reaches them converted to
 * v1, and a v1 patch comes back converted to v2.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ADMISSIONREGISTRATION_GROUP, APIEXTENSIONS_GROUP } from '../src/api/naming.js';
import { closeWebhookConnections } from '../src/admission/webhook/index.js';
import { startServer, type RunningServer } from '../src/index.js';
import { client } from './helpers/client.js';
import { twoVersionWidgetCrd, waitFor, webhookConversion } from './helpers/crd.js';
import { startWebhookServer, type Review, type WebhookServer } from './helpers/webhook-server.js';

const G = 'admconv.example.com';
const REG = `/apis/${ADMISSIONREGISTRATION_GROUP}/v1`;
const path = (v: string, name = '') => `/apis/${G}/${v}/namespaces/default/widgets${name ? `/${name}` : ''}`;
const widget = (v: string, name: string, spec: Record<string, number>, labels: Record<string, string> = {}) => ({ apiVersion: `${G}/${v}`, kind: 'Widget', metadata: { name, labels }, spec });

function convert(obj: any, desired: string): any {
  const spec = desired.endsWith('/v2') ? { size: obj.spec?.replicas } : { replicas: obj.spec?.size };
  return { ...obj, apiVersion: desired, spec };
}


/** Admission webhooks on v1 widgets only; `label` keeps each test's objects to its own webhook. */
function configuration(kind: 'Mutating' | 'Validating', hook: WebhookServer, label: string, matchPolicy: 'Equivalent' | 'Exact') {
  return {
    apiVersion: `${ADMISSIONREGISTRATION_GROUP}/v1`,
    kind: `${kind}WebhookConfiguration`,
    metadata: { name: `${kind.toLowerCase()}-${label}` },
    webhooks: [{
      name: `${label}.widgets.example.com`,
      clientConfig: { url: `${hook.url}/${kind.toLowerCase()}`, caBundle: hook.caBundle },
      rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [G], apiVersions: ['v1'], resources: ['widgets'] }],
      objectSelector: { matchLabels: { test: label } },
      matchPolicy,
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
    }],
  };
}

describe('admission webhooks on a custom resource converted by its webhook', () => {
  let dir: string;
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  let hook: WebhookServer;
  const admissions = () => hook.reviews.filter((r) => r.kind === 'AdmissionReview');

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-adm-conv-'));
    server = await startServer({ port: 0, dataDir: join(dir, 'data'), storage: { type: 'sqlite', path: join(dir, 'orch.db') } });
    call = client(server);
    hook = await startWebhookServer((r: Review, p: string) => {
      if (r.kind === 'ConversionReview') {
        const { uid, desiredAPIVersion, objects } = r.request as { uid: string; desiredAPIVersion: string; objects: any[] };
        const response = { uid, convertedObjects: objects.map((o) => convert(o, desiredAPIVersion)), result: { status: 'Success' } };
        return { raw: JSON.stringify({ apiVersion: r.apiVersion, kind: 'ConversionReview', response }) };
      }
      const uid = r.request.uid;
      if (p.startsWith('/validating')) {
        const replicas = r.request.object?.spec?.replicas;
        return { response: { uid, allowed: !(replicas > 100), status: { code: 422, message: `replicas ${replicas} is over 100` } } };
      }
      const patch = Buffer.from(JSON.stringify([{ op: 'replace', path: '/spec/replicas', value: r.request.object.spec.replicas + 1 }])).toString('base64');
      return { response: { uid, allowed: true, patchType: 'JSONPatch', patch } };
    });
    assert.equal((await call('POST', `/apis/${APIEXTENSIONS_GROUP}/v1/customresourcedefinitions`, { body: twoVersionWidgetCrd(G, webhookConversion(`${hook.url}/convert`, hook.caBundle)) })).status, 201);
    await waitFor('served', async () => (await call('GET', path('v2'))).status === 200);
  });
  after(async () => {
    await hook?.close();
    closeWebhookConnections();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Creates the configuration and retries `create` until admission has picked it up (the webhook saw a request). */
  async function withConfiguration(config: { kind: string; metadata: { name: string } }, attempt: () => Promise<boolean>) {
    const plural = `${config.kind.toLowerCase()}s`;
    assert.equal((await call('POST', `${REG}/${plural}`, { body: config })).status, 201);
    await waitFor('admission uses the configuration', attempt);
  }

  it('reference behaviour: a mutating webhook for v1 sees a v2 create converted to v1, and its v1 patch is converted back to v2', async () => {
    let n = 0;
    let created: any;
    await withConfiguration(configuration('Mutating', hook, 'mutate', 'Equivalent'), async () => {
      const r = await call('POST', path('v2'), { body: widget('v2', `m${n++}`, { size: 5 }, { test: 'mutate' }) });
      assert.equal(r.status, 201, r.text);
      created = r.json;
      return created.spec.size === 6;
    });
    assert.equal(created.apiVersion, `${G}/v2`);
    const review = admissions().at(-1) as Review;
    assert.deepEqual(review.request.kind, { group: G, version: 'v1', kind: 'Widget' });
    assert.deepEqual(review.request.resource, { group: G, version: 'v1', resource: 'widgets' });
    assert.deepEqual(review.request.requestKind, { group: G, version: 'v2', kind: 'Widget' });
    assert.deepEqual(review.request.requestResource, { group: G, version: 'v2', resource: 'widgets' });
    assert.equal(review.request.object.apiVersion, `${G}/v1`);
    assert.deepEqual(review.request.object.spec, { replicas: 5 });
    assert.deepEqual((await call('GET', path('v1', created.metadata.name))).json.spec, { replicas: 6 }, 'stored as patched');
  });

  it('reference behaviour: a request in the webhook\'s own version is sent as it came, with kind and requestKind alike', async () => {
    const r = await call('POST', path('v1'), { body: widget('v1', 'plain', { replicas: 1 }, { test: 'mutate' }) });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.json.spec, { replicas: 2 }, 'the webhook was called');
    const review = admissions().at(-1) as Review;
    assert.deepEqual(review.request.kind, review.request.requestKind);
    assert.deepEqual(review.request.kind, { group: G, version: 'v1', kind: 'Widget' });
    assert.deepEqual(review.request.object.spec, { replicas: 1 });
  });

  it('reference behaviour: a validating webhook for v1 judges a v2 update by its v1 form and its denial reaches the client', async () => {
    assert.equal((await call('POST', path('v2'), { body: widget('v2', 'big', { size: 7 }) })).status, 201);
    let denied: any;
    await withConfiguration(configuration('Validating', hook, 'validate', 'Equivalent'), async () => {
      const current = (await call('GET', path('v2', 'big'))).json;
      // Dry run: an attempt made before admission has the configuration must not change the stored object.
      const r = await call('PUT', `${path('v2', 'big')}?dryRun=All`, { body: { ...current, metadata: { ...current.metadata, labels: { test: 'validate' } }, spec: { size: 500 } } });
      denied = r;
      return r.status === 422;
    });
    assert.match(denied.json.message, /^admission webhook "validate\.widgets\.example\.com" denied the request: replicas 500 is over 100$/);
    const review = admissions().at(-1) as Review;
    assert.equal(review.request.operation, 'UPDATE');
    assert.deepEqual(review.request.oldObject.spec, { replicas: 7 }, 'the old object is converted too');
  });

  it('reference behaviour: matchPolicy Exact for v1 is not called for a v2 request', async () => {
    assert.equal((await call('POST', `${REG}/mutatingwebhookconfigurations`, { body: configuration('Mutating', hook, 'exact', 'Equivalent') })).status, 201);
    // The same webhook as Equivalent first, to know when admission has the configuration; then made Exact.
    let n = 0;
    await waitFor('admission uses the configuration', async () => {
      const r = await call('POST', path('v2'), { body: widget('v2', `e${n++}`, { size: 1 }, { test: 'exact' }) });
      return r.status === 201 && r.json.spec.size === 2;
    });
    const current = (await call('GET', `${REG}/mutatingwebhookconfigurations/mutating-exact`)).json;
    current.webhooks[0].matchPolicy = 'Exact';
    assert.equal((await call('PUT', `${REG}/mutatingwebhookconfigurations/mutating-exact`, { body: current })).status, 200);
    await waitFor('admission uses the changed configuration', async () => {
      const r = await call('POST', path('v2'), { body: widget('v2', `e${n++}`, { size: 1 }, { test: 'exact' }) });
      return r.status === 201 && r.json.spec.size === 1;
    });
    const r = await call('POST', path('v1'), { body: widget('v1', `e${n++}`, { replicas: 1 }, { test: 'exact' }) });
    assert.deepEqual(r.json.spec, { replicas: 2 }, 'still called for v1');
  });
});
