/**
 * A custom resource's conversion webhook failing while admission needs it (issues 15, 18): admission
 * webhooks registered (matchPolicy Equivalent) for v2 of a CRD stored in v1 see a v1 request converted
 * to v2. When that conversion fails (the conversion webhook answers a failure, or nothing listens), the
 * request ends with a 500 carrying the conversion's message, the admission webhook is not called and
 * nothing is stored. A v1 request itself needs no conversion, so the failure can only come from admission.
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

const FAILING = 'convfail.example.com';
const DOWN = 'convdown.example.com';
const REG = `/apis/${ADMISSIONREGISTRATION_GROUP}/v1`;
const path = (g: string, v: string, name = '') => `/apis/${g}/${v}/namespaces/default/widgets${name ? `/${name}` : ''}`;
const widget = (g: string, name: string, replicas: number, labels: Record<string, string> = {}) => ({ apiVersion: `${g}/v1`, kind: 'Widget', metadata: { name, labels }, spec: { replicas } });
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');


/** One admission webhook for v2 widgets of both groups (Equivalent is the default matchPolicy). */
function configuration(kind: 'Mutating' | 'Validating', hook: WebhookServer, label: string) {
  return {
    apiVersion: `${ADMISSIONREGISTRATION_GROUP}/v1`,
    kind: `${kind}WebhookConfiguration`,
    metadata: { name: `convfail-${label}` },
    webhooks: [{
      name: `${label}.widgets.example.com`,
      clientConfig: { url: `${hook.url}/${label}`, caBundle: hook.caBundle },
      rules: [{ operations: ['CREATE'], apiGroups: [FAILING, DOWN], apiVersions: ['v2'], resources: ['widgets'] }],
      objectSelector: { matchLabels: { test: label } },
      failurePolicy: 'Ignore', // a conversion failure is not a call failure: it fails the request all the same
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
    }],
  };
}

describe('admission webhooks when the conversion to their version fails', () => {
  let dir: string;
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  let hook: WebhookServer;
  let conversion: 'ok' | 'fail' = 'ok';
  const admissions = () => hook.reviews.filter((r) => r.kind === 'AdmissionReview').length;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-adm-convfail-'));
    server = await startServer({ port: 0, dataDir: join(dir, 'data'), storage: { type: 'sqlite', path: join(dir, 'orch.db') } });
    call = client(server);
    hook = await startWebhookServer((r: Review, p: string) => {
      if (r.kind === 'ConversionReview') {
        const { uid, desiredAPIVersion, objects } = r.request as { uid: string; desiredAPIVersion: string; objects: any[] };
        const response = conversion === 'fail'
          ? { uid, convertedObjects: [], result: { status: 'Failure', message: 'widgets refuse to convert today' } }
          : { uid, convertedObjects: objects.map((o) => ({ ...o, apiVersion: desiredAPIVersion, spec: desiredAPIVersion.endsWith('/v2') ? { size: o.spec.replicas } : { replicas: o.spec.size } })), result: { status: 'Success' } };
        return { raw: JSON.stringify({ apiVersion: r.apiVersion, kind: 'ConversionReview', response }) };
      }
      const uid = r.request.uid;
      if (p.startsWith('/validate')) return { response: { uid, allowed: true } };
      const patch = Buffer.from(JSON.stringify([{ op: 'add', path: '/metadata/annotations', value: { seen: String(r.request.object.spec.size) } }])).toString('base64');
      return { response: { uid, allowed: true, patchType: 'JSONPatch', patch } };
    });
    const crds = `/apis/${APIEXTENSIONS_GROUP}/v1/customresourcedefinitions`;
    assert.equal((await call('POST', crds, { body: twoVersionWidgetCrd(FAILING, webhookConversion(`${hook.url}/convert`, hook.caBundle)) })).status, 201);
    assert.equal((await call('POST', crds, { body: twoVersionWidgetCrd(DOWN, webhookConversion('https://127.0.0.1:1/convert', hook.caBundle)) })).status, 201);
    await waitFor('served', async () => (await call('GET', path(FAILING, 'v2'))).status === 200 && (await call('GET', path(DOWN, 'v1'))).status === 200);
    for (const [kind, label] of [['Mutating', 'mutate'], ['Validating', 'validate']] as const) {
      assert.equal((await call('POST', `${REG}/${kind.toLowerCase()}webhookconfigurations`, { body: configuration(kind, hook, label) })).status, 201);
      // Active once a v1 create reaches the webhook (converted to v2) while the conversion works.
      let n = 0;
      await waitFor(`admission uses the ${kind} configuration`, async () => {
        const before = admissions();
        const r = await call('POST', path(FAILING, 'v1'), { body: widget(FAILING, `${label}-probe-${n++}`, 1, { test: label }) });
        assert.equal(r.status, 201, r.text);
        return admissions() > before;
      });
    }
  });
  after(async () => {
    await hook?.close();
    closeWebhookConnections();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reference behaviour: the mutating webhook for v2 sees a v1 create converted to v2 while the conversion works', async () => {
    const r = await call('POST', path(FAILING, 'v1'), { body: widget(FAILING, 'works', 4, { test: 'mutate' }) });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.metadata.annotations?.seen, '4', 'the webhook read spec.size, the v2 field');
    assert.deepEqual(r.json.spec, { replicas: 4 });
  });

  it('reference behaviour: a conversion webhook answering a failure fails a v1 create with its 500, calls no admission webhook and stores nothing', async () => {
    conversion = 'fail';
    try {
      const before = admissions();
      const r = await call('POST', path(FAILING, 'v1'), { body: widget(FAILING, 'refused', 1, { test: 'mutate' }) });
      assert.equal(r.status, 500, r.text);
      assert.equal(r.json.kind, 'Status');
      assert.equal(r.json.reason, 'InternalError');
      assert.match(r.json.message, new RegExp(`^Internal error occurred: conversion webhook for ${escape(FAILING)}/Widget failed: .*widgets refuse to convert today`));
      assert.equal(admissions(), before, 'the admission webhook was not called');
      assert.equal((await call('GET', path(FAILING, 'v1', 'refused'))).status, 404, 'nothing stored');
      const unmatched = await call('POST', path(FAILING, 'v1'), { body: widget(FAILING, 'unwatched', 1) });
      assert.equal(unmatched.status, 201, `without a webhook for v2 the same create needs no conversion: ${unmatched.text}`);
    } finally {
      conversion = 'ok';
    }
  });

  it('reference behaviour: a conversion webhook that is down fails a v1 create at the validating webhook for v2 with a 500 naming its URL; nothing is stored', async () => {
    const before = admissions();
    const r = await call('POST', path(DOWN, 'v1'), { body: widget(DOWN, 'stranded', 1, { test: 'validate' }) });
    assert.equal(r.status, 500, r.text);
    assert.equal(r.json.reason, 'InternalError');
    assert.match(r.json.message, new RegExp(`^Internal error occurred: conversion webhook for ${escape(DOWN)}/Widget failed: Post "https://127\\.0\\.0\\.1:1/convert\\?timeout=30s": `));
    assert.equal(admissions(), before, 'the admission webhook was not called');
    assert.equal((await call('GET', path(DOWN, 'v1', 'stranded'))).status, 404, 'nothing stored');
    assert.equal((await call('POST', path(DOWN, 'v1'), { body: widget(DOWN, 'direct', 1) })).status, 201, 'a v1 create no webhook watches is stored');
  });
});
