import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CERTIFICATES_GROUP, NETWORKING_GROUP, REFERENCE_META_GROUP_ALIAS, SCHEDULING_GROUP } from '../src/api/naming.js';
import { startServer, type RunningServer } from '../src/index.js';
import { b64, certificatePem, certificateRequestPem } from '../src/registry/resources/certificates/testing.js';
import { kubeconfigYaml } from '../src/server/kubeconfig.js';
import { client } from './helpers/client.js';
import { kubectl } from './helpers/kubectl.js';

const PC = `/apis/${SCHEDULING_GROUP}/v1/priorityclasses`;
const CSR = `/apis/${CERTIFICATES_GROUP}/v1/certificatesigningrequests`;
const ING = `/apis/${NETWORKING_GROUP}/v1/namespaces/default/ingresses`;
const priorityClass = (name: string, extra: object) => ({ apiVersion: `${SCHEDULING_GROUP}/v1`, kind: 'PriorityClass', metadata: { name }, value: 1000, ...extra });

describe('cluster-level types over HTTPS (reference behaviour of scheduling, certificates, networking)', () => {
  let dir: string;
  let server: RunningServer;
  let call: ReturnType<typeof client>;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-cluster-types-'));
    // dave's group makes him an administrator, so the request is his alone to record.
    writeFileSync(join(dir, 'tokens.csv'), 'tok-dave,dave,uid-dave,"system:masters,ops"\n');
    server = await startServer({ port: 0, dataDir: join(dir, 'data'), storage: { type: 'memory' }, tokenAuthFile: join(dir, 'tokens.csv') });
    call = client(server);
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reference behaviour: the two system priority classes exist after start', async () => {
    const r = await call('GET', PC);
    assert.equal(r.status, 200, r.text);
    const byName = Object.fromEntries(r.json.items.map((pc: any) => [pc.metadata.name, pc]));
    assert.equal(byName['system-node-critical']?.value, 2000001000);
    assert.equal(byName['system-cluster-critical']?.value, 2000000000);
    assert.equal(byName['system-cluster-critical']?.preemptionPolicy, 'PreemptLowerPriority');
    assert.equal(typeof byName['system-node-critical']?.description, 'string');
  });

  it('reference behaviour (Priority admission): a second globalDefault class is 403 naming the existing one; the first stays the only default', async () => {
    const first = await call('POST', PC, { body: priorityClass('default-one', { globalDefault: true }) });
    assert.equal(first.status, 201, first.text);
    assert.equal(first.json.preemptionPolicy, 'PreemptLowerPriority');
    const second = await call('POST', PC, { body: priorityClass('default-two', { globalDefault: true }) });
    assert.equal(second.status, 403, second.text);
    assert.equal(second.json.reason, 'Forbidden');
    assert.match(second.json.message, /^priorityclasses\.scheduling\.[a-z.]+ "default-two" is forbidden: PriorityClass default-one is already marked as default\. Only one default can exist$/);
    assert.equal((await call('GET', `${PC}/default-two`)).status, 404, 'the rejected class was not stored');
    // Marking an existing class as default is refused the same way; the default itself may be updated.
    assert.equal((await call('POST', PC, { body: priorityClass('plain', {}) })).status, 201);
    const promote = await call('PATCH', `${PC}/plain`, { raw: JSON.stringify({ globalDefault: true }), headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(promote.status, 403, promote.text);
    const relabel = await call('PATCH', `${PC}/default-one`, { raw: JSON.stringify({ description: 'still the default' }), headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(relabel.status, 200, relabel.text);
  });

  it('reference behaviour: a CSR created by a token user records that user and is approved through the approval subresource', async () => {
    const request = b64(await certificateRequestPem('dave'));
    const body = {
      apiVersion: `${CERTIFICATES_GROUP}/v1`,
      kind: 'CertificateSigningRequest',
      metadata: { name: 'dave-client' },
      spec: { request, signerName: 'example.com/client', usages: ['client auth'], username: 'someone-else', expirationSeconds: 3600 },
      status: { conditions: [{ type: 'Approved', status: 'True', reason: 'SelfApproved' }] },
    };
    const created = await call('POST', CSR, { body, token: 'tok-dave' });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.spec.username, 'dave', 'the body cannot name another requester');
    assert.equal(created.json.spec.uid, 'uid-dave');
    assert.deepEqual(created.json.spec.groups, ['system:masters', 'ops', 'system:authenticated']);
    assert.deepEqual(created.json.status, {}, 'a request cannot be created approved');

    // The main resource cannot approve; the approval subresource can.
    const viaMain = await call('PUT', `${CSR}/dave-client`, { body: { ...created.json, status: { conditions: [{ type: 'Approved', status: 'True' }] } } });
    assert.equal(viaMain.status, 200, viaMain.text);
    assert.equal(viaMain.json.status.conditions, undefined, 'status is ignored on the main resource');
    const current = (await call('GET', `${CSR}/dave-client`)).json;
    const approval = { ...current, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Test', message: 'approved by the test' }] } };
    const approved = await call('PUT', `${CSR}/dave-client/approval`, { body: approval });
    assert.equal(approved.status, 200, approved.text);
    assert.equal(approved.json.status.conditions[0].type, 'Approved');
    assert.equal(typeof approved.json.status.conditions[0].lastUpdateTime, 'string');
    assert.equal(approved.json.spec.username, 'dave');

    // The signer issues through status; approval conditions cannot be dropped there.
    const cert = b64(await certificatePem('dave'));
    const issued = await call('PUT', `${CSR}/dave-client/status`, { body: { ...approved.json, status: { ...approved.json.status, certificate: cert } } });
    assert.equal(issued.status, 200, issued.text);
    assert.equal(issued.json.status.certificate, cert);
    const denied = await call('PUT', `${CSR}/dave-client/approval`, { body: { ...issued.json, status: { conditions: [{ type: 'Denied', status: 'True' }] } } });
    assert.equal(denied.status, 422, 'an approval cannot be removed');

    const table = await call('GET', `${CSR}/dave-client`, { headers: { accept: `application/json;as=Table;g=${REFERENCE_META_GROUP_ALIAS};v=v1` } });
    assert.deepEqual(table.json.columnDefinitions.map((c: any) => c.name), ['Name', 'Age', 'SignerName', 'Requestor', 'RequestedDuration', 'Condition']);
    assert.deepEqual(table.json.rows[0].cells.slice(2), ['example.com/client', 'dave', '60m', 'Approved,Issued']);
  });

  it('reference behaviour: the requests of `kubectl certificate approve` (GET, then PUT approval with one more condition) approve', async () => {
    // Real kubectl refuses every group but its own for this command, so its two requests are replayed here.
    const spec = { request: b64(await certificateRequestPem('k')), signerName: 'example.com/x', usages: ['digital signature'] };
    const made = await call('POST', CSR, { body: { apiVersion: `${CERTIFICATES_GROUP}/v1`, kind: 'CertificateSigningRequest', metadata: { name: 'by-kubectl' }, spec } });
    assert.equal(made.status, 201, made.text);
    const csr = (await call('GET', `${CSR}/by-kubectl`)).json;
    const condition = { type: 'Approved', status: 'True', reason: 'KubectlApprove', message: 'This CSR was approved by kubectl certificate approve.', lastUpdateTime: '2024-01-01T00:00:00Z' };
    csr.status.conditions = [...(csr.status.conditions ?? []), condition];
    const r = await call('PUT', `${CSR}/by-kubectl/approval`, { body: csr });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.status.conditions.map((c: any) => [c.type, c.status, c.reason, c.lastUpdateTime]), [['Approved', 'True', 'KubectlApprove', '2024-01-01T00:00:00Z']]);
    assert.equal(typeof r.json.status.conditions[0].lastTransitionTime, 'string');
    const again = await call('PUT', `${CSR}/by-kubectl/approval`, { body: r.json });
    assert.equal(again.status, 200, 'approving an approved request changes nothing');
    assert.equal(again.json.metadata.resourceVersion, r.json.metadata.resourceVersion);
  });

  it('reference behaviour: CSRs are selectable by spec.signerName; kubectl get shows the reference columns', async () => {
    const bySigner = await call('GET', `${CSR}?fieldSelector=${encodeURIComponent('spec.signerName=example.com/x')}`);
    assert.equal(bySigner.status, 200, bySigner.text);
    assert.deepEqual(bySigner.json.items.map((c: any) => c.metadata.name), ['by-kubectl']);
    const config = join(dir, 'admin.kubeconfig');
    writeFileSync(config, kubeconfigYaml({ server: server.url, caCertPem: server.caCertPem, user: 'admin', token: server.adminToken }));
    const pcs = await kubectl(config)(['get', 'pc']);
    assert.match(pcs.split('\n')[0] ?? '', /^NAME\s+VALUE\s+GLOBAL-DEFAULT\s+AGE\s+PREEMPTIONPOLICY$/);
    assert.match(pcs, /system-node-critical\s+2000001000\s+false\s+\S+\s+PreemptLowerPriority/);
    const csrs = await kubectl(config)(['get', 'csr']);
    assert.match(csrs.split('\n')[0] ?? '', /^NAME\s+AGE\s+SIGNERNAME\s+REQUESTOR\s+REQUESTEDDURATION\s+CONDITION$/);
  });

  it('reference behaviour: an Ingress path without pathType is 422 naming the field', async () => {
    const backend = { service: { name: 'web', port: { number: 80 } } };
    const r = await call('POST', ING, {
      body: { apiVersion: `${NETWORKING_GROUP}/v1`, kind: 'Ingress', metadata: { name: 'web' }, spec: { rules: [{ host: 'example.com', http: { paths: [{ path: '/', backend }] } }] } },
    });
    assert.equal(r.status, 422, r.text);
    assert.deepEqual(r.json.details.causes.map((c: any) => c.field), ['spec.rules[0].http.paths[0].pathType']);
    assert.equal((await call('GET', `${ING}/web`)).status, 404);
  });
});
