import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { GROUP_SUFFIX } from '../src/api/naming.js';
import { parseFlags, type CliOptions } from '../src/cmd/apiserver-flags.js';
import { startServer, type RunningServer } from '../src/index.js';
import { client } from './helpers/client.js';

const S = GROUP_SUFFIX;
const FLOWCONTROL = `flowcontrol.apiserver.${S}`;
const RESOURCE_GROUP = `resource.${S}`;
const BIN = fileURLToPath(new URL('../bin/orch-apiserver.js', import.meta.url));

const groupNames = (apis: { groups: { name: string }[] }) => apis.groups.map((g) => g.name);
const warningsOf = (headers: Record<string, string | string[] | undefined>): string => {
  const w = headers.warning;
  return Array.isArray(w) ? w.join(', ') : (w ?? '');
};

describe('--runtime-config: which versions are served (spec 9.4, 3.2)', () => {
  it('batch/v1=false: its paths are 404 and the group leaves /apis and /apis/batch', async () => {
    const server = await startServer({ port: 0, storage: { type: 'memory' }, runtimeConfig: 'batch/v1=false' });
    try {
      const call = client(server);
      assert.equal((await call('GET', '/apis/batch/v1/namespaces/default/jobs')).status, 404);
      assert.equal((await call('GET', '/apis/batch/v1/cronjobs')).status, 404);
      assert.equal((await call('GET', '/apis/batch/v1')).status, 404);
      assert.equal((await call('GET', '/apis/batch')).status, 404);
      const apis = (await call('GET', '/apis')).json;
      assert.ok(!groupNames(apis).includes('batch'));
      assert.ok(groupNames(apis).includes('apps'), 'other groups stay');
      assert.equal((await call('GET', '/apis/apps/v1/namespaces/default/deployments')).status, 200);
    } finally {
      await server.close();
    }
  });

  it('enabling an alpha version (resource v1alpha3) serves it and lists it in discovery', async () => {
    const server = await startServer({ port: 0, storage: { type: 'memory' }, runtimeConfig: { [`${RESOURCE_GROUP}/v1alpha3`]: true } });
    try {
      const call = client(server);
      const list = await call('GET', `/apis/${RESOURCE_GROUP}/v1alpha3/deviceclasses`);
      assert.equal(list.status, 200, list.text);
      assert.equal(list.json.kind, 'DeviceClassList');
      const group = (await call('GET', '/apis')).json.groups.find((g: { name: string }) => g.name === RESOURCE_GROUP);
      assert.deepEqual(group?.versions.map((v: { version: string }) => v.version), ['v1alpha3']);
      const resources = (await call('GET', `/apis/${RESOURCE_GROUP}/v1alpha3`)).json.resources.map((r: { name: string }) => r.name);
      assert.ok(resources.includes('resourceclaims'));
    } finally {
      await server.close();
    }
  });

  it('by default an alpha version is not served (spec 3.2)', async () => {
    const server = await startServer({ port: 0, storage: { type: 'memory' } });
    try {
      const call = client(server);
      assert.equal((await call('GET', `/apis/${RESOURCE_GROUP}/v1alpha3/deviceclasses`)).status, 404);
      assert.ok(!groupNames((await call('GET', '/apis')).json).includes(RESOURCE_GROUP));
    } finally {
      await server.close();
    }
  });

  it('a removed version (extensions/v1beta1=true) or a malformed entry fails the start, naming it (spec 9.6)', async () => {
    await assert.rejects(
      startServer({ port: 0, storage: { type: 'memory' }, runtimeConfig: 'extensions/v1beta1=true' }),
      (e: Error) => e.message.startsWith('--runtime-config: extensions/v1beta1 was removed in release 1.22 (Ingress: use ') && e.message.includes(`networking.${S}/v1 Ingress`),
    );
    await assert.rejects(startServer({ port: 0, storage: { type: 'memory' }, runtimeConfig: 'batch/v1=maybe' }), /--runtime-config: invalid value "maybe" for "batch\/v1"/);
  });
});

describe('deprecated APIs warn (spec 7)', () => {
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  before(async () => {
    server = await startServer({ port: 0, storage: { type: 'memory' } });
    call = client(server);
  });
  after(() => server.close());

  const v1beta3Warning = `299 - "${FLOWCONTROL}/v1beta3 FlowSchema is deprecated in v1.29+, unavailable in v1.32+; use ${FLOWCONTROL}/v1 FlowSchema"`;
  const flowSchema = (apiVersion: string, name: string, extra: object = {}) => ({
    apiVersion,
    kind: 'FlowSchema',
    metadata: { name },
    spec: { priorityLevelConfiguration: { name: 'global-default' }, matchingPrecedence: 5000, ...extra },
  });

  it('a flowcontrol v1beta3 list, get and create carry the 299 warning; the same on v1 carries none', async () => {
    const created = await call('POST', `/apis/${FLOWCONTROL}/v1/flowschemas`, { body: flowSchema(`${FLOWCONTROL}/v1`, 'warned') });
    assert.equal(created.status, 201, created.text);
    assert.equal(warningsOf(created.headers), '');
    const list = await call('GET', `/apis/${FLOWCONTROL}/v1beta3/flowschemas`);
    assert.equal(list.status, 200, list.text);
    assert.equal(warningsOf(list.headers), v1beta3Warning);
    const got = await call('GET', `/apis/${FLOWCONTROL}/v1beta3/flowschemas/warned`);
    assert.equal(got.status, 200, got.text);
    assert.equal(warningsOf(got.headers), v1beta3Warning);
    const made = await call('POST', `/apis/${FLOWCONTROL}/v1beta3/flowschemas`, { body: flowSchema(`${FLOWCONTROL}/v1beta3`, 'made-beta') });
    assert.equal(made.status, 201, made.text);
    assert.equal(warningsOf(made.headers), v1beta3Warning);
    for (const path of [`/apis/${FLOWCONTROL}/v1/flowschemas`, `/apis/${FLOWCONTROL}/v1/flowschemas/warned`]) {
      const r = await call('GET', path);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.headers.warning, undefined, path);
    }
  });

  it('the deprecation warning comes first, beside unknown-field warnings', async () => {
    const r = await call('POST', `/apis/${FLOWCONTROL}/v1beta3/flowschemas`, { body: flowSchema(`${FLOWCONTROL}/v1beta3`, 'two-warnings', { bogus: 1 }) });
    assert.equal(r.status, 201, r.text);
    const w = warningsOf(r.headers);
    assert.ok(w.startsWith(v1beta3Warning), w);
    assert.match(w, /unknown field \\?"spec\.bogus\\?"/);
  });

  it('v1 ComponentStatus warns as the reference does', async () => {
    const r = await call('GET', '/api/v1/componentstatuses');
    assert.equal(r.status, 200, r.text);
    assert.equal(warningsOf(r.headers), '299 - "v1 ComponentStatus is deprecated in v1.19+"');
    assert.equal((await call('GET', '/api/v1/namespaces')).headers.warning, undefined);
  });
});

describe('orch-apiserver --runtime-config (spec 9.4)', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('parses into the server options and rejects unknown versions before any process starts', () => {
    const server = (args: string[]) => (parseFlags(args) as CliOptions).server;
    assert.deepEqual(server(['--runtime-config=batch/v1=false,api/alpha']).runtimeConfig, { 'batch/v1': false, 'api/alpha': true });
    assert.equal(server([]).runtimeConfig, undefined);
    assert.throws(() => parseFlags(['--runtime-config=apps/v1beta2=true']), /--runtime-config: apps\/v1beta2 was removed in release 1\.16/);
    assert.throws(() => parseFlags(['--runtime-config=nope.example.com/v1']), /--runtime-config: unknown group\/version "nope.example.com\/v1"/);
  });

  it('the flag reaches the server: batch is not served', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orch-rc-'));
    dirs.push(dir);
    const child = spawn(process.execPath, [BIN, '--secure-port=0', `--data-dir=${dir}`, '--storage-backend=memory', '--runtime-config=batch/v1=false'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      let stderr = '';
      child.stderr.on('data', (c) => (stderr += c));
      let url = '';
      const kubeconfig = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout }).on('line', (l) => {
          url = /listening on (\S+)/.exec(l)?.[1] ?? url;
          const k = /--kubeconfig (\S+)/.exec(l);
          if (k) resolve(k[1]!);
        });
        void exited.then((code) => reject(new Error(`exited ${code}: ${stderr}`)));
      });
      const cfg = parse(readFileSync(kubeconfig, 'utf8'));
      const call = client({ url, caCertPem: Buffer.from(cfg.clusters[0].cluster['certificate-authority-data'], 'base64').toString(), adminToken: cfg.users[0].user.token });
      assert.equal((await call('GET', '/apis/batch/v1/jobs')).status, 404);
      assert.ok(!groupNames((await call('GET', '/apis')).json).includes('batch'));
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('a removed version makes the command exit 1 with the message', async () => {
    const child = spawn(process.execPath, [BIN, '--secure-port=0', '--storage-backend=memory', '--runtime-config=batch/v1beta1'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    assert.equal(code, 1);
    assert.match(stderr, /--runtime-config: batch\/v1beta1 was removed in release 1\.25 \(CronJob: use batch\/v1 CronJob\)/);
  });
});
