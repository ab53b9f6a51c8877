/**
 * matchPolicy Equivalent with conversion through a whole server (issue 15): a mutating webhook registered
 * for flowcontrol v1 FlowSchemas, a real HTTPS server started here, sees a v1beta3 request as v1 (with
 * `requestKind`/`requestResource` in v1beta3), and its patch, written against v1, lands in the object.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMISSIONREGISTRATION_GROUP, GROUP_SUFFIX } from '../src/api/naming.js';
import { closeWebhookConnections } from '../src/admission/webhook/index.js';
import { startServer, type RunningServer } from '../src/index.js';
import { client, type Response } from './helpers/client.js';
import { allow, patchOf, startWebhookServer, type Review, type WebhookServer } from './helpers/webhook-server.js';

const FC = `flowcontrol.apiserver.${GROUP_SUFFIX}`;
const MWC = `/apis/${ADMISSIONREGISTRATION_GROUP}/v1/mutatingwebhookconfigurations`;
const LABEL = 'equivalent-test';

function flowSchema(name: string, version: string) {
  return {
    apiVersion: `${FC}/${version}`,
    kind: 'FlowSchema',
    metadata: { name, labels: { test: LABEL } },
    spec: {
      priorityLevelConfiguration: { name: 'global-default' },
      matchingPrecedence: 5000,
      distinguisherMethod: { type: 'ByUser' },
      rules: [{ subjects: [{ kind: 'Group', group: { name: 'example-group' } }], resourceRules: [{ verbs: ['get'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'] }] }],
    },
  };
}

describe('matchPolicy Equivalent converts to the webhook\'s version (issue 15)', () => {
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  let hooks: WebhookServer;

  before(async () => {
    server = await startServer({ port: 0, storage: { type: 'memory' } });
    call = client(server);
    hooks = await startWebhookServer((r: Review) =>
      allow(r, {
        patchType: 'JSONPatch',
        // Paths and values as the webhook's own version (v1) has them.
        patch: patchOf([
          { op: 'add', path: '/metadata/annotations', value: { 'seen-as': String(r.request.object?.apiVersion) } },
          { op: 'replace', path: '/spec/matchingPrecedence', value: 777 },
        ]),
      }),
    );
    const configuration = {
      metadata: { name: 'fc-v1' },
      webhooks: [
        {
          name: 'fc-v1.example.com',
          clientConfig: { url: `${hooks.url}/mutate`, caBundle: hooks.caBundle },
          rules: [{ operations: ['CREATE'], apiGroups: [FC], apiVersions: ['v1'], resources: ['flowschemas'] }],
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          objectSelector: { matchLabels: { test: LABEL } },
        },
      ],
    };
    const r = await call('POST', MWC, { body: configuration });
    assert.equal(r.status, 201, r.text);
  });
  after(async () => {
    await hooks.close();
    closeWebhookConnections();
    await server.close();
  });

  /** The configuration reaches admission through the watch cache: new names until the webhook was called. */
  async function createUntilCalled(version: string): Promise<{ r: Response; name: string }> {
    const deadline = Date.now() + 3000;
    for (let n = 0; ; n++) {
      const name = `eq-${version}-${n}`;
      const before = hooks.reviews.length;
      const r = await call('POST', `/apis/${FC}/${version}/flowschemas`, { body: flowSchema(name, version) });
      if (hooks.reviews.length > before || Date.now() > deadline) return { r, name };
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('reference behaviour: a v1 webhook sees a v1beta3 request as v1, with requestKind and requestResource in v1beta3', async () => {
    const { r, name } = await createUntilCalled('v1beta3');
    assert.equal(r.status, 201, r.text);
    const review = hooks.reviews.at(-1) as Review;
    assert.deepEqual(review.request.kind, { group: FC, version: 'v1', kind: 'FlowSchema' });
    assert.deepEqual(review.request.resource, { group: FC, version: 'v1', resource: 'flowschemas' });
    assert.deepEqual(review.request.requestKind, { group: FC, version: 'v1beta3', kind: 'FlowSchema' });
    assert.deepEqual(review.request.requestResource, { group: FC, version: 'v1beta3', resource: 'flowschemas' });
    assert.equal(review.request.object.apiVersion, `${FC}/v1`);
    assert.equal(review.request.object.kind, 'FlowSchema');
    assert.equal(review.request.object.metadata.name, name);

    // The v1 patch applied, and the answer is in the version the client asked for.
    assert.equal(r.json.apiVersion, `${FC}/v1beta3`);
    assert.equal(r.json.spec.matchingPrecedence, 777);
    assert.deepEqual(r.json.metadata.annotations, { 'seen-as': `${FC}/v1` });
    const stored = await call('GET', `/apis/${FC}/v1/flowschemas/${name}`);
    assert.equal(stored.json.spec.matchingPrecedence, 777);
  });

  it('reference behaviour: a request in the webhook\'s own version is sent unconverted, kind and requestKind alike', async () => {
    const { r } = await createUntilCalled('v1');
    assert.equal(r.status, 201, r.text);
    const review = hooks.reviews.at(-1) as Review;
    assert.deepEqual(review.request.kind, review.request.requestKind);
    assert.deepEqual(review.request.requestKind, { group: FC, version: 'v1', kind: 'FlowSchema' });
    assert.equal(review.request.object.apiVersion, `${FC}/v1`);
    assert.equal(r.json.spec.matchingPrecedence, 777);
  });
});
