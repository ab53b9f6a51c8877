/**
 * The admission plugins that read the AdmissionConfiguration file, through running servers: EventRateLimit
 * (429s with Retry-After) and ImagePolicyWebhook against a real HTTPS backend whose CA and certificates
 * are generated here (allow, deny, cache, backend down or failing, fail-open).
 */
import assert from 'node:assert/strict';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ADMISSION_CONFIG_GROUP, EVENT_RATE_LIMIT_CONFIG_GROUP, EVENTS_GROUP, GROUP_SUFFIX, IMAGE_POLICY_GROUP } from '../src/api/naming.js';
import { startServer, type RunningServer } from '../src/index.js';
import { ensureServingCerts, issueClientCert } from '../src/server/tls.js';
import { failsToStart, startApiserver, stopAll, tempDir } from './helpers/apiserver-process.js';
import { client } from './helpers/client.js';
import { kubectl } from './helpers/kubectl.js';

const ADMISSION_V1 = `${ADMISSION_CONFIG_GROUP}/v1`;
const admissionConfig = (plugins: { name: string; configuration: unknown }[]) =>
  JSON.stringify({ apiVersion: ADMISSION_V1, kind: 'AdmissionConfiguration', plugins });
// The ServiceAccount plugin would make pods wait for a default account; these tests are about other plugins.
const NO_SERVICE_ACCOUNT = ['ServiceAccount'];

// Processes and temporary directories of every describe below, cleaned once all have run.
after(() => stopAll());

const coreEvent = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name },
  involvedObject: { kind: 'Pod', name: 'web', namespace: 'limited' },
  reason: 'Started',
  message: 'started',
  type: 'Normal',
  source: { component: 'kubelet', host: 'node-1' },
});

describe('EventRateLimit in a running server (spec 2.12)', () => {
  const dir = tempDir('orch-erl-');
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  before(async () => {
    const file = join(dir, 'admission.json');
    const limits = [{ type: 'Namespace', qps: 1, burst: 3 }];
    writeFileSync(file, admissionConfig([{ name: 'EventRateLimit', configuration: { apiVersion: `${EVENT_RATE_LIMIT_CONFIG_GROUP}/v1alpha1`, kind: 'Configuration', limits } }]));
    server = await startServer({ port: 0, storage: { type: 'memory' }, enableAdmissionPlugins: ['EventRateLimit'], admissionControlConfigFile: file });
    call = client(server);
    for (const ns of ['limited', 'other']) {
      assert.equal((await call('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } })).status, 201);
    }
  });
  after(() => server.close());

  it('reference behaviour (EventRateLimit): past the burst an Event create is 429 TooManyRequests with Retry-After, and nothing is stored', async () => {
    for (let i = 0; i < 3; i++) {
      const r = await call('POST', '/api/v1/namespaces/limited/events', { body: coreEvent(`burst-${i}`) });
      assert.equal(r.status, 201, r.text);
    }
    // One token a second comes back: keep writing (a bounded number of times) until the bucket is empty.
    let refused;
    for (let i = 0; i < 10 && !refused; i++) {
      const r = await call('POST', '/api/v1/namespaces/limited/events', { body: coreEvent(`more-${i}`) });
      if (r.status === 429) refused = { ...r, name: `more-${i}` };
      else assert.equal(r.status, 201, r.text);
    }
    assert.ok(refused, 'a create past the limit was refused');
    assert.equal(refused.json.reason, 'TooManyRequests');
    assert.equal(refused.json.message, 'Too many requests: limit reached on type Namespace for key limited');
    assert.equal(refused.headers['retry-after'], '1');
    assert.equal((await call('GET', `/api/v1/namespaces/limited/events/${refused.name}`)).status, 404);

    // As on the reference only the core Event kind is limited, not writes through the events group; a dry
    // run is not counted or limited; another namespace and other kinds are untouched.
    const v1 = await call('POST', `/apis/${EVENTS_GROUP}/v1/namespaces/limited/events`, {
      body: { apiVersion: `${EVENTS_GROUP}/v1`, kind: 'Event', metadata: { name: 'v1-ev' }, eventTime: '2026-01-01T00:00:00.000000Z', action: 'A', reason: 'R', type: 'Normal', reportingController: 'x/y', reportingInstance: 'i', regarding: { kind: 'Pod', name: 'web', namespace: 'limited' } },
    });
    assert.equal(v1.status, 201, v1.text);
    assert.equal((await call('POST', '/api/v1/namespaces/limited/events?dryRun=All', { body: coreEvent('dry') })).status, 201);
    assert.equal((await call('POST', '/api/v1/namespaces/other/events', { body: { ...coreEvent('elsewhere'), involvedObject: { kind: 'Pod', name: 'web', namespace: 'other' } } })).status, 201);
    assert.equal((await call('POST', '/api/v1/namespaces/limited/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' } } })).status, 201);
  });

  it('spec 2.12 (EventRateLimit): a bad or missing Configuration fails the start naming the field', async () => {
    const conf = (limits: unknown) => ({ apiVersion: `${EVENT_RATE_LIMIT_CONFIG_GROUP}/v1alpha1`, kind: 'Configuration', limits });
    const table: [unknown, RegExp][] = [
      [conf([{ type: 'Namespace', qps: 1, burst: 0 }]), /admission plugin EventRateLimit: limits\[0\]\.burst: Invalid value: 0: must be positive/],
      [conf([{ type: 'Pod', qps: 1, burst: 1 }]), /limits\[0\]\.type: Unsupported value: "Pod"/],
      [conf([]), /limits: Invalid value: \[\]: must not be empty/],
    ];
    for (const [i, [configuration, want]] of table.entries()) {
      const file = join(dir, `bad-${i}.json`);
      writeFileSync(file, admissionConfig([{ name: 'EventRateLimit', configuration }]));
      assert.match(await failsToStart(['--storage-backend=memory', `--data-dir=${dir}`, '--enable-admission-plugins=EventRateLimit', `--admission-control-config-file=${file}`]), want);
    }
    assert.match(await failsToStart(['--storage-backend=memory', `--data-dir=${dir}`, '--enable-admission-plugins=EventRateLimit']), /admission plugin EventRateLimit: no configuration given/);
  });
});

interface ImageBackend {
  url: string;
  reviews: any[];
  /** Common names of the client certificates the calls came with. */
  clients: string[];
  close(): Promise<void>;
}

/** A real HTTPS image policy backend that demands a client certificate from its own CA. */
async function startImageBackend(dir: string, answer: (review: any) => { status?: number; body: unknown }): Promise<ImageBackend & { ca: string; clientCert: { certPem: string; keyPem: string } }> {
  const certs = await ensureServingCerts(dir, { hosts: ['127.0.0.1'] });
  const clientCert = await issueClientCert(certs, { commonName: 'apiserver' });
  const reviews: any[] = [];
  const clients: string[] = [];
  const server = https.createServer({ cert: certs.certPem, key: certs.keyPem, ca: certs.caCertPem, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      reviews.push(review);
      clients.push(String((req.socket as import('node:tls').TLSSocket).getPeerCertificate().subject?.CN));
      const a = answer(review);
      res.writeHead(a.status ?? 200, { 'content-type': 'application/json' });
      res.end(typeof a.body === 'string' ? a.body : JSON.stringify(a.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}/review`,
    ca: certs.caCertPem,
    clientCert,
    reviews,
    clients,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** Writes the backend kubeconfig (files beside it, named relatively) and an AdmissionConfiguration using it. */
function imagePolicyFiles(dir: string, name: string, b: { url: string; ca: string; clientCert: { certPem: string; keyPem: string } }, policy: Record<string, unknown>): string {
  writeFileSync(join(dir, 'backend-ca.pem'), b.ca);
  writeFileSync(join(dir, 'client.pem'), b.clientCert.certPem);
  writeFileSync(join(dir, 'client-key.pem'), b.clientCert.keyPem);
  const kubeconfig = join(dir, `${name}.kubeconfig`);
  writeFileSync(kubeconfig, JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'images', cluster: { server: b.url, 'certificate-authority': 'backend-ca.pem' } }],
    users: [{ name: 'apiserver', user: { 'client-certificate': 'client.pem', 'client-key': 'client-key.pem' } }],
    contexts: [{ name: 'c', context: { cluster: 'images', user: 'apiserver' } }],
    'current-context': 'c',
  }));
  const file = join(dir, `${name}.admission.json`);
  writeFileSync(file, admissionConfig([{ name: 'ImagePolicyWebhook', configuration: { imagePolicy: { kubeConfigFile: kubeconfig, ...policy } } }]));
  return file;
}

const POLICY_ANNOTATION = `team.image-policy.${GROUP_SUFFIX}/tier`;
const pod = (name: string, image: string, extra: Record<string, unknown> = {}, annotations?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, ...(annotations ? { annotations } : {}) },
  spec: { containers: [{ name: 'c', image }], ...extra },
});
const deciding = (review: any) => {
  const images: string[] = (review.spec.containers ?? []).map((c: any) => c.image);
  const bad = images.find((i) => i.startsWith('evil'));
  return { body: { apiVersion: `${IMAGE_POLICY_GROUP}/v1alpha1`, kind: 'ImageReview', status: bad ? { allowed: false, reason: `${bad} is not signed` } : { allowed: true } } };
};

describe('ImagePolicyWebhook in a running server with a real HTTPS backend (spec 2.11)', () => {
  const dir = tempDir('orch-ipw-');
  const servers: RunningServer[] = [];
  let backend: Awaited<ReturnType<typeof startImageBackend>>;
  const start = async (file: string) => {
    const s = await startServer({ port: 0, storage: { type: 'memory' }, enableAdmissionPlugins: ['ImagePolicyWebhook'], disableAdmissionPlugins: NO_SERVICE_ACCOUNT, admissionControlConfigFile: file });
    servers.push(s);
    return client(s);
  };
  before(async () => {
    backend = await startImageBackend(dir, deciding);
  });
  after(async () => {
    for (const s of servers) await s.close();
    await backend.close();
  });

  it('reference behaviour (ImagePolicyWebhook): the backend sees the images, policy annotations and namespace; it allows or denies with its reason', async () => {
    const call = await start(imagePolicyFiles(dir, 'main', backend, { retryBackoff: 10 }));
    const ok = await call('POST', '/api/v1/namespaces/default/pods', {
      body: pod('ok', 'nginx:1', { initContainers: [{ name: 'i', image: 'busybox:1' }] }, { [POLICY_ANNOTATION]: 'gold', unrelated: 'x' }),
    });
    assert.equal(ok.status, 201, ok.text);
    const review = backend.reviews.at(-1);
    assert.equal(review.apiVersion, `${IMAGE_POLICY_GROUP}/v1alpha1`);
    assert.equal(review.kind, 'ImageReview');
    assert.deepEqual(review.spec, { containers: [{ image: 'nginx:1' }, { image: 'busybox:1' }], annotations: { [POLICY_ANNOTATION]: 'gold' }, namespace: 'default' });
    assert.equal(backend.clients.at(-1), 'apiserver', 'the kubeconfig client certificate was presented');

    const denied = await call('POST', '/api/v1/namespaces/default/pods', { body: pod('bad', 'evil:latest') });
    assert.equal(denied.status, 403, denied.text);
    assert.equal(denied.json.message, 'pods "bad" is forbidden: image policy webhook backend denied one or more images: evil:latest is not signed');
    assert.equal((await call('GET', '/api/v1/namespaces/default/pods/bad')).status, 404);

    // An update that brings in a denied image is refused too.
    const put = await call('PUT', '/api/v1/namespaces/default/pods/ok', { body: { ...ok.json, spec: { ...ok.json.spec, containers: [{ ...ok.json.spec.containers[0], image: 'evil:2' }] } } });
    assert.equal(put.status, 403, put.text);
  });

  it('reference behaviour (ImagePolicyWebhook): the same review is answered from the cache', async () => {
    const call = await start(imagePolicyFiles(dir, 'cache', backend, {}));
    const before = backend.reviews.length;
    for (const name of ['c1', 'c2', 'c3']) assert.equal((await call('POST', '/api/v1/namespaces/default/pods', { body: pod(name, 'redis:7') })).status, 201);
    for (const name of ['d1', 'd2']) assert.equal((await call('POST', '/api/v1/namespaces/default/pods', { body: pod(name, 'evil:x') })).status, 403);
    assert.equal(backend.reviews.length - before, 2, 'one call for the allowed review, one for the denied one');
  });

  it('reference behaviour (ImagePolicyWebhook): a backend that is down or failing is retried once, then defaultAllow decides', async () => {
    const failing = await startImageBackend(join(dir, 'failing'), () => ({ status: 500, body: 'boom' }));
    const closedDown = await start(imagePolicyFiles(join(dir, 'failing'), 'closed', failing, { retryBackoff: 10 }));
    const r = await closedDown('POST', '/api/v1/namespaces/default/pods', { body: pod('f1', 'nginx:1') });
    assert.equal(r.status, 403, r.text);
    assert.equal(r.json.message, 'pods "f1" is forbidden: Error contacting webhook: 500');
    assert.equal(failing.reviews.length, 2, 'one call and one retry');
    await failing.close();

    const gone = { url: failing.url, ca: failing.ca, clientCert: failing.clientCert };
    const closed = await start(imagePolicyFiles(join(dir, 'failing'), 'down-closed', gone, { retryBackoff: 10 }));
    const refused = await closed('POST', '/api/v1/namespaces/default/pods', { body: pod('f2', 'nginx:1') });
    assert.equal(refused.status, 403, refused.text);
    assert.match(refused.json.message, /^pods "f2" is forbidden: Post "https:\/\/127\.0\.0\.1:\d+\/review": .*ECONNREFUSED/);
    assert.equal((await closed('GET', '/api/v1/namespaces/default/pods/f2')).status, 404);

    const open = await start(imagePolicyFiles(join(dir, 'failing'), 'down-open', gone, { retryBackoff: 10, defaultAllow: true }));
    assert.equal((await open('POST', '/api/v1/namespaces/default/pods', { body: pod('f3', 'nginx:1') })).status, 201);
  });

  it('reference behaviour (ImagePolicyWebhook): kubectl shows the denial; a bad configuration fails the start naming the field', async () => {
    const file = imagePolicyFiles(dir, 'kubectl', backend, {});
    const s = await startApiserver(['--storage-backend=memory', `--data-dir=${tempDir()}`, '--enable-admission-plugins=ImagePolicyWebhook', '--disable-admission-plugins=ServiceAccount', `--admission-control-config-file=${file}`]);
    const k = kubectl(s.kubeconfig);
    await assert.rejects(k(['run', 'nope', '--image=evil:9', '--restart=Never']), /pods "nope" is forbidden: image policy webhook backend denied one or more images: evil:9 is not signed/);
    assert.match(await k(['run', 'yes', '--image=nginx:1', '--restart=Never']), /pod\/yes created/);

    const bad = imagePolicyFiles(dir, 'bad', backend, { allowTTL: 7200 });
    assert.match(
      await failsToStart(['--storage-backend=memory', `--data-dir=${dir}`, '--enable-admission-plugins=ImagePolicyWebhook', `--admission-control-config-file=${bad}`]),
      /admission plugin ImagePolicyWebhook: imagePolicy\.allowTTL: Invalid value: 7200: must be 1 to 1800 seconds/,
    );
  });
});
