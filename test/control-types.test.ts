import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FLOWCONTROL_PRESERVE_ZERO_SHARES_ANNOTATION, GROUP_SUFFIX } from '../src/api/naming.js';
import { startServer, type RunningServer } from '../src/index.js';
import { client } from './helpers/client.js';

const FC = `/apis/flowcontrol.apiserver.${GROUP_SUFFIX}`;
const AR = `/apis/admissionregistration.${GROUP_SUFFIX}/v1`;
const APIREG = `/apis/apiregistration.${GROUP_SUFFIX}/v1`;

const names = (list: any): string[] => (list.items as any[]).map((i) => i.metadata.name).sort();

describe('flow-control, admission registration and API service objects (whole server)', () => {
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  before(async () => {
    server = await startServer({ port: 0, storage: { type: 'memory' } });
    call = client(server);
  });
  after(() => server.close());

  it('reference behaviour: after start the mandatory and suggested priority levels and flow schemas exist', async () => {
    const levels = await call('GET', `${FC}/v1/prioritylevelconfigurations`);
    assert.equal(levels.status, 200, levels.text);
    for (const n of ['exempt', 'catch-all', 'system', 'node-high', 'leader-election', 'workload-high', 'workload-low', 'global-default']) {
      assert.ok(names(levels.json).includes(n), n);
    }
    const schemas = await call('GET', `${FC}/v1beta3/flowschemas`);
    assert.equal(schemas.status, 200, schemas.text);
    for (const n of ['exempt', 'catch-all', 'system-nodes', 'system-node-high', 'probes', 'system-leader-election', 'endpoint-controller', 'workload-leader-election', 'kube-controller-manager', 'kube-scheduler', 'kube-system-service-accounts', 'service-accounts', 'global-default']) {
      assert.ok(names(schemas.json).includes(n), n);
    }
    const exempt = await call('GET', `${FC}/v1/flowschemas/exempt`);
    assert.equal(exempt.json.spec.matchingPrecedence, 1);
  });

  it('reference behaviour: after start every served group/version has a local, available APIService', async () => {
    const list = await call('GET', `${APIREG}/apiservices`);
    assert.equal(list.status, 200, list.text);
    const got = names(list.json);
    for (const n of ['v1.', 'v1.apps', `v1.flowcontrol.apiserver.${GROUP_SUFFIX}`, `v1beta3.flowcontrol.apiserver.${GROUP_SUFFIX}`, `v1.apiregistration.${GROUP_SUFFIX}`]) assert.ok(got.includes(n), n);
    const apps = (list.json.items as any[]).find((i) => i.metadata.name === 'v1.apps');
    assert.deepEqual(apps.spec, { group: 'apps', version: 'v1', groupPriorityMinimum: 17800, versionPriority: 15 });
    assert.equal(apps.status.conditions[0].type, 'Available');
    assert.equal(apps.status.conditions[0].status, 'True');
    assert.equal(apps.status.conditions[0].reason, 'Local');
  });

  it('spec 9.6: a v1beta3 PriorityLevelConfiguration created with nominalConcurrencyShares 0 reads back through v1 as 30', async () => {
    const created = await call('POST', `${FC}/v1beta3/prioritylevelconfigurations`, {
      body: { metadata: { name: 'beta-zero' }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 0, limitResponse: { type: 'Reject' } } } },
    });
    assert.equal(created.status, 201, created.text);
    const v1 = await call('GET', `${FC}/v1/prioritylevelconfigurations/beta-zero`);
    assert.equal(v1.json.apiVersion, `flowcontrol.apiserver.${GROUP_SUFFIX}/v1`);
    assert.equal(v1.json.spec.limited.nominalConcurrencyShares, 30);
    assert.equal(v1.json.spec.limited.lendablePercent, 0);
  });

  it('spec 9.6: a v1 PriorityLevelConfiguration with an explicit 0 keeps 0, also through a v1beta3 read-modify-write', async () => {
    const created = await call('POST', `${FC}/v1/prioritylevelconfigurations`, {
      body: { metadata: { name: 'v1-zero' }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 0, limitResponse: { type: 'Queue', queuing: {} } } } },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.spec.limited.nominalConcurrencyShares, 0);
    assert.deepEqual(created.json.spec.limited.limitResponse.queuing, { queues: 64, handSize: 8, queueLengthLimit: 50 });
    const beta = await call('GET', `${FC}/v1beta3/prioritylevelconfigurations/v1-zero`);
    assert.equal(beta.json.spec.limited.nominalConcurrencyShares, 0);
    assert.equal(beta.json.metadata.annotations[FLOWCONTROL_PRESERVE_ZERO_SHARES_ANNOTATION], '');
    beta.json.metadata.labels = { touched: 'yes' };
    const put = await call('PUT', `${FC}/v1beta3/prioritylevelconfigurations/v1-zero`, { body: beta.json });
    assert.equal(put.status, 200, put.text);
    const v1 = await call('GET', `${FC}/v1/prioritylevelconfigurations/v1-zero`);
    assert.equal(v1.json.spec.limited.nominalConcurrencyShares, 0);
    assert.equal(v1.json.metadata.labels.touched, 'yes');
    assert.equal(v1.json.metadata.annotations, undefined, 'the annotation is not stored');
  });

  it('spec 9 (1.22 row): a webhook configuration without sideEffects is 422 naming the field, and nothing is stored', async () => {
    const res = await call('POST', `${AR}/validatingwebhookconfigurations`, {
      body: { metadata: { name: 'no-side-effects' }, webhooks: [{ name: 'check.example.com', clientConfig: { url: 'https://hooks.example.com/check' }, admissionReviewVersions: ['v1'] }] },
    });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.json.reason, 'Invalid');
    assert.deepEqual(
      res.json.details.causes.map((c: any) => c.field),
      ['webhooks[0].sideEffects'],
    );
    const get = await call('GET', `${AR}/validatingwebhookconfigurations/no-side-effects`);
    assert.equal(get.status, 404);
  });

  it('spec 9 (1.22 row): a valid webhook configuration is stored with the reference defaults', async () => {
    const res = await call('POST', `${AR}/mutatingwebhookconfigurations`, {
      body: {
        metadata: { name: 'inject' },
        webhooks: [{ name: 'inject.example.com', sideEffects: 'None', admissionReviewVersions: ['v1'], clientConfig: { service: { namespace: 'default', name: 'injector' } } }],
      },
    });
    assert.equal(res.status, 201, res.text);
    const hook = res.json.webhooks[0];
    assert.deepEqual(
      [hook.failurePolicy, hook.matchPolicy, hook.timeoutSeconds, hook.reinvocationPolicy, hook.clientConfig.service.port],
      ['Fail', 'Equivalent', 10, 'Never', 443],
    );
  });
});
