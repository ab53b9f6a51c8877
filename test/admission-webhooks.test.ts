/**
 * Admission webhooks through a whole server (issue 15): real HTTPS webhook servers started here, with
 * certificates generated here, configured through the API like a user would.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMISSIONREGISTRATION_GROUP } from '../src/api/naming.js';
import { closeWebhookConnections } from '../src/admission/webhook/index.js';
import { startServer, type RunningServer } from '../src/index.js';
import { client, type Response } from './helpers/client.js';
import { allow, patchOf, startWebhookServer, type Review, type WebhookServer } from './helpers/webhook-server.js';

const VWC = `/apis/${ADMISSIONREGISTRATION_GROUP}/v1/validatingwebhookconfigurations`;
const MWC = `/apis/${ADMISSIONREGISTRATION_GROUP}/v1/mutatingwebhookconfigurations`;
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

const configMap = (name: string, labels: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data: { a: 'b' } });

function webhook(name: string, clientConfig: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    name,
    clientConfig,
    rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    objectSelector: { matchLabels: { test: name } },
    ...extra,
  };
}

describe('admission webhooks through the server (issue 15)', () => {
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  let hooks: WebhookServer;

  before(async () => {
    server = await startServer({ port: 0, storage: { type: 'memory' } });
    call = client(server);
    hooks = await startWebhookServer((r: Review, path: string) => {
      const labels = r.request.object?.metadata?.labels ?? {};
      if (labels.test === 'reinvoke.example.com') {
        const data = r.request.object?.data ?? {};
        // /first records whether it saw the second webhook's change; /second makes that change.
        const op = path.startsWith('/first')
          ? { op: 'add', path: `/data/${'b' in data ? 'firstSawB' : 'firstSawNoB'}`, value: 'yes' }
          : { op: 'add', path: '/data/b', value: 'from-second' };
        return allow(r, { patchType: 'JSONPatch', patch: patchOf([op]) });
      }
      if (labels.test === 'deny.example.com') return { response: { uid: r.request.uid, allowed: false, status: { code: 422, message: 'configmaps named like this are refused' } } };
      if (labels.test === 'mutate.example.com') {
        return allow(r, { patchType: 'JSONPatch', patch: patchOf([{ op: 'add', path: '/data/added', value: 'by-webhook' }]), warnings: ['mutated by the webhook'] });
      }
      return allow(r);
    }, ['hooks.default.svc']);
  });
  after(async () => {
    await hooks.close();
    closeWebhookConnections();
    await server.close();
  });

  /** Configuration changes reach admission through the watch cache: retry until the effect shows. */
  async function until(attempt: () => Promise<Response>, done: (r: Response) => boolean): Promise<Response> {
    const deadline = Date.now() + 3000;
    for (;;) {
      const r = await attempt();
      if (done(r) || Date.now() > deadline) return r;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('reference behaviour: a validating webhook denial reaches the client with its code and message, and nothing is stored', async () => {
    const cfg = { metadata: { name: 'deny' }, webhooks: [webhook('deny.example.com', { url: `${hooks.url}/deny`, caBundle: hooks.caBundle })] };
    assert.equal((await call('POST', VWC, { body: cfg })).status, 201);
    let n = 0;
    const r = await until(
      () => call('POST', CONFIGMAPS, { body: configMap(`denied-${n++}`, { test: 'deny.example.com' }) }),
      (x) => x.status === 422,
    );
    assert.equal(r.status, 422);
    assert.equal(r.json.message, 'admission webhook "deny.example.com" denied the request: configmaps named like this are refused');
    assert.equal((await call('GET', `${CONFIGMAPS}/denied-${n - 1}`)).status, 404);
  });

  it('spec 2.11, spec 8: a mutating webhook patch is stored and its warnings come back as Warning headers', async () => {
    const cfg = { metadata: { name: 'mutate' }, webhooks: [webhook('mutate.example.com', { url: `${hooks.url}/mutate`, caBundle: hooks.caBundle })] };
    assert.equal((await call('POST', MWC, { body: cfg })).status, 201);
    let n = 0;
    const r = await until(
      () => call('POST', CONFIGMAPS, { body: configMap(`mutated-${n++}`, { test: 'mutate.example.com' }) }),
      (x) => x.json?.data?.added === 'by-webhook',
    );
    assert.equal(r.status, 201);
    assert.equal(r.json.data.added, 'by-webhook');
    assert.match(String(r.headers.warning), /mutated by the webhook/);
  });

  it('reference behaviour: reinvocationPolicy IfNeeded calls a mutating webhook once more after a later webhook changed the object', async () => {
    const hook = (name: string, path: string, reinvocationPolicy: string) =>
      webhook(name, { url: `${hooks.url}${path}`, caBundle: hooks.caBundle }, { reinvocationPolicy, objectSelector: { matchLabels: { test: 'reinvoke.example.com' } } });
    // Mutating webhooks run in the order of their configurations' names: "r1" before "r2".
    assert.equal((await call('POST', MWC, { body: { metadata: { name: 'r1' }, webhooks: [hook('first.example.com', '/first', 'IfNeeded')] } })).status, 201);
    assert.equal((await call('POST', MWC, { body: { metadata: { name: 'r2' }, webhooks: [hook('second.example.com', '/second', 'Never')] } })).status, 201);
    let n = 0;
    const r = await until(
      () => call('POST', CONFIGMAPS, { body: configMap(`reinvoked-${n++}`, { test: 'reinvoke.example.com' }) }),
      (x) => x.json?.data?.firstSawB === 'yes',
    );
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(
      { first: r.json.data.firstSawNoB, again: r.json.data.firstSawB, second: r.json.data.b },
      { first: 'yes', again: 'yes', second: 'from-second' },
    );
    const calls = hooks.paths.filter((p) => p.startsWith('/first')).length;
    assert.ok(calls >= 2, `the first webhook was called ${calls} times`);
  });

  it('reference behaviour: a webhook behind a Service is called at the service address and verified by <name>.<namespace>.svc', async () => {
    // Endpoints may not hold loopback addresses (reference validation), so the loopback service here is an
    // ExternalName one; endpoint routing is covered with hand-built objects in admission/webhook.
    const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'hooks' }, spec: { type: 'ExternalName', externalName: 'localhost' } };
    assert.equal((await call('POST', '/api/v1/namespaces/default/services', { body: svc })).status, 201);
    const cc = { service: { namespace: 'default', name: 'hooks', path: '/via-service', port: hooks.port }, caBundle: hooks.caBundle };
    const cfg = { metadata: { name: 'service' }, webhooks: [webhook('service.example.com', cc)] };
    assert.equal((await call('POST', VWC, { body: cfg })).status, 201);
    let n = 0;
    const r = await until(
      () => call('POST', CONFIGMAPS, { body: configMap(`svc-${n++}`, { test: 'service.example.com' }) }),
      () => hooks.paths.some((p) => p.startsWith('/via-service')),
    );
    assert.equal(r.status, 201);
    assert.ok(hooks.paths.includes('/via-service?timeout=10s'));
  });

  it('reference behaviour: failurePolicy Ignore lets writes through when the webhook is unreachable; Fail refuses with 500', async () => {
    const dead = { url: 'https://127.0.0.1:1/nothing', caBundle: hooks.caBundle };
    const ignore = { metadata: { name: 'dead-ignore' }, webhooks: [webhook('ignore.example.com', dead, { failurePolicy: 'Ignore' })] };
    assert.equal((await call('POST', VWC, { body: ignore })).status, 201);
    assert.equal((await call('POST', CONFIGMAPS, { body: configMap('ignored', { test: 'ignore.example.com' }) })).status, 201);
    const fail = { metadata: { name: 'dead-fail' }, webhooks: [webhook('fail.example.com', dead)] };
    assert.equal((await call('POST', VWC, { body: fail })).status, 201);
    let n = 0;
    const r = await until(
      () => call('POST', CONFIGMAPS, { body: configMap(`failed-${n++}`, { test: 'fail.example.com' }) }),
      (x) => x.status === 500,
    );
    assert.equal(r.status, 500);
    assert.match(r.json.message, /^Internal error occurred: failed calling webhook "fail\.example\.com": failed to call webhook: Post "https:\/\/127\.0\.0\.1:1\/nothing\?timeout=10s"/);
  });

  it('spec 7: a dry run reaches a webhook with sideEffects None, which sees dryRun true, and nothing is stored', async () => {
    // v1 only stores None/NoneOnDryRun, so a dry run reaches the webhook, which sees dryRun: true.
    const before = hooks.reviews.length;
    const r = await call('POST', `${CONFIGMAPS}?dryRun=All`, { body: configMap('dry', { test: 'mutate.example.com' }) });
    assert.equal(r.status, 201);
    const seen = hooks.reviews.slice(before).find((x) => x.request.name === 'dry');
    assert.equal(seen?.request.dryRun, true);
    assert.equal((await call('GET', `${CONFIGMAPS}/dry`)).status, 404);
  });

  it('reference behaviour: invalid webhook configurations are 422 naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ sideEffects: undefined }, 'webhooks[0].sideEffects'],
      [{ timeoutSeconds: 31 }, 'webhooks[0].timeoutSeconds'],
      [{ objectSelector: { matchExpressions: [{ key: 'a', operator: 'Near' }] } }, 'webhooks[0].objectSelector.matchExpressions[0].operator'],
      [{ matchConditions: [{ name: 'c', expression: 'object.metadata +' }] }, 'webhooks[0].matchConditions[0].expression'],
      [{ clientConfig: { url: 'http://insecure.example.com/x' } }, 'webhooks[0].clientConfig.url'],
      [{ clientConfig: { url: 'https://a.example.com/x', service: { namespace: 'a', name: 'b' } } }, 'webhooks[0].clientConfig'],
    ];
    for (const [extra, field] of cases) {
      const cfg = { metadata: { name: 'bad' }, webhooks: [webhook('bad.example.com', { url: 'https://a.example.com/x' }, extra)] };
      const r = await call('POST', VWC, { body: cfg });
      assert.equal(r.status, 422, field);
      assert.ok((r.json.details.causes as { field: string }[]).some((c) => c.field === field), `${field}: ${r.json.message}`);
    }
  });
});
