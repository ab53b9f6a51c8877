import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { DEFINITIONS, MESSAGES, RESOURCES } from './index.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

test('the checked-in generated modules are what scripts/generate-api.ts makes from reference/', () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/generate-api.ts', '--check'], { cwd: root, encoding: 'utf8' });
  assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
});

test('generated data carries no prose and no maker root in its names', () => {
  // A `description` key holding text would be prose; a property named `description` holds a schema object.
  const prose: string[] = [];
  const walk = (v: unknown, path: string): void => {
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${path}[${i}]`));
    else if (typeof v === 'object' && v !== null) {
      for (const [k, x] of Object.entries(v)) {
        if (k === 'description' && typeof x === 'string') prose.push(path);
        walk(x, `${path}.${k}`);
      }
    }
  };
  walk(DEFINITIONS, 'definitions');
  assert.deepEqual(prose, []);
  for (const name of [...Object.keys(DEFINITIONS), ...Object.keys(MESSAGES)]) assert.ok(!/^(io\.[a-z]+|[a-z]+\.io)\./.test(name), name);
});

test('spec 4.1: every resource of the reference names its kind, scope and verbs', () => {
  const deployments = RESOURCES.find((r) => r.group === 'apps' && r.version === 'v1' && r.plural === 'deployments');
  assert.deepEqual(deployments && { kind: deployments.kind, namespaced: deployments.namespaced, verbs: deployments.verbs }, {
    kind: 'Deployment',
    namespaced: true,
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  });
  assert.deepEqual(
    deployments?.subresources.map((s) => [s.name, `${s.group}/${s.version}`, s.kind, s.verbs.join(',')]),
    [
      ['scale', 'autoscaling/v1', 'Scale', 'get,patch,update'],
      ['status', 'apps/v1', 'Deployment', 'get,patch,update'],
    ],
  );
  const namespaces = RESOURCES.find((r) => r.group === '' && r.plural === 'namespaces');
  assert.equal(namespaces?.namespaced, false);
  // Connect subresources list the verbs of their HTTP methods, as the reference's discovery does.
  assert.deepEqual(RESOURCES.find((r) => r.plural === 'pods')?.subresources.find((s) => s.name === 'exec')?.verbs, ['create', 'get']);
});

test('spec 4.4: proto field names are mapped to their JSON names and embedded structs are inline', () => {
  assert.ok(MESSAGES['api.admissionregistration.v1.ValidatingWebhookConfiguration']?.webhooks);
  assert.equal(MESSAGES['api.core.v1.Volume']?.volumeSource?.inline, true);
  assert.equal(MESSAGES['api.authentication.v1.UserInfo']?.extra?.mapValue?.type, 'stringlist');
  assert.equal(MESSAGES['api.core.v1.Pod']?.metadata?.message, 'apimachinery.pkg.apis.meta.v1.ObjectMeta');
});
