import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { EVENTS_GROUP } from '../api/naming.js';
import { ENCRYPTION_CONFIG_VERSION, EncryptionConfigError, loadEncryptionConfiguration, parseEncryptionConfiguration } from './config.js';

const b64 = (n: number) => Buffer.alloc(n, 1).toString('base64');
const K16 = b64(16);
const K32 = b64(32);
const doc = (resources: unknown, top: Record<string, unknown> = {}) =>
  JSON.stringify({ apiVersion: ENCRYPTION_CONFIG_VERSION, kind: 'EncryptionConfiguration', resources, ...top });
const gcm = (secret = K32, name = 'key1') => ({ aesgcm: { keys: [{ name, secret }] } });
const rule = (resources: unknown, providers: unknown = [gcm()]) => ({ resources, providers });
const kms = (over: Record<string, unknown>) => ({ kms: { apiVersion: 'v2', name: 'p', endpoint: 'unix:///tmp/kms.sock', ...over } });

describe('spec 2.12: EncryptionConfiguration: accepted documents', () => {
  it('spec 2.12: YAML with every local provider type, names and wildcards', () => {
    const cfg = parseEncryptionConfiguration(
      [
        `apiVersion: ${ENCRYPTION_CONFIG_VERSION}`,
        'kind: EncryptionConfiguration',
        'resources:',
        '- resources: [secrets, deployments.apps]',
        '  providers:',
        `  - aesgcm: {keys: [{name: a, secret: ${K16}}, {name: b, secret: ${b64(24)}}]}`,
        `  - aescbc: {keys: [{name: c, secret: ${K32}}]}`,
        `  - secretbox: {keys: [{name: d, secret: ${K32}}]}`,
        '  - identity: {}',
        "- resources: ['*.apps']",
        '  providers: [{identity: {}}]',
        "- resources: ['*.']",
        '  providers: [{identity: {}}]',
        "- resources: ['*.*']",
        '  providers: [{identity: {}}]',
      ].join('\n'),
    );
    assert.deepEqual(cfg.resources.map((r) => r.resources), [['secrets', 'deployments.apps'], ['*.apps'], ['*.'], ['*.*']]);
    assert.deepEqual(cfg.resources[0]!.providers.map((p) => p.type), ['aesgcm', 'aescbc', 'secretbox', 'identity']);
    const first = cfg.resources[0]!.providers[0]!;
    assert.ok(first.type === 'aesgcm');
    assert.deepEqual(first.keys.map((k) => [k.name, k.secret.length]), [['a', 16], ['b', 24]]);
  });

  it('spec 2.12, spec 8: kms defaults: apiVersion v1, timeout 3s, cachesize 1000 for v1 only', () => {
    const cfg = parseEncryptionConfiguration(doc([rule(['secrets'], [{ kms: { name: 'one', endpoint: 'unix:///run/kms.sock' } }, kms({ name: 'two' })])]), { kmsV1: true });
    const [a, b] = cfg.resources[0]!.providers;
    assert.deepEqual(a, { type: 'kms', kms: { apiVersion: 'v1', name: 'one', endpoint: '/run/kms.sock', timeoutMs: 3000, cachesize: 1000 } });
    assert.deepEqual(b, { type: 'kms', kms: { apiVersion: 'v2', name: 'two', endpoint: '/tmp/kms.sock', timeoutMs: 3000 } });
    const neg = parseEncryptionConfiguration(doc([rule(['secrets'], [{ kms: { name: 'n', endpoint: 'unix:///s', cachesize: -1, timeout: '10s' } }])]), { kmsV1: true });
    assert.deepEqual(neg.resources[0]!.providers[0], { type: 'kms', kms: { apiVersion: 'v1', name: 'n', endpoint: '/s', timeoutMs: 10_000, cachesize: -1 } });
  });

  it('reference behaviour: the same resource in two entries is allowed (the later one adds readers)', () => {
    const cfg = parseEncryptionConfiguration(doc([rule(['secrets']), rule(['secrets'], [{ identity: {} }])]));
    assert.equal(cfg.resources.length, 2);
  });

  it('reference behaviour: a later *.* after *. and a core name before *. are allowed', () => {
    assert.equal(parseEncryptionConfiguration(doc([rule(['secrets']), rule(['*.']), rule(['*.*'])])).resources.length, 3);
  });
});

// Each row: the document's resources (or whole text), and what the message must say (path and rule).
const REJECTED: { title: string; text: string; message: RegExp; kmsV1?: boolean }[] = [
  { title: 'an empty file', text: '  \n', message: /is empty/ },
  { title: 'not YAML', text: 'resources: [', message: /not valid YAML or JSON/ },
  { title: 'wrong kind', text: doc([rule(['secrets'])], { kind: 'Other' }), message: /kind: Unsupported value "Other"/ },
  { title: 'wrong apiVersion', text: doc([rule(['secrets'])], { apiVersion: 'v1' }), message: /apiVersion: Unsupported value "v1"/ },
  { title: 'an unknown top-level field', text: doc([rule(['secrets'])], { extra: 1 }), message: /^extra: unknown field/ },
  { title: 'no resources', text: doc([]), message: /resources: Required value: at least one resources is required/ },
  { title: 'an entry without names', text: doc([rule([])]), message: /resources\[0\]\.resources: Required value/ },
  { title: 'an entry without providers', text: doc([rule(['secrets'], [])]), message: /resources\[0\]\.providers: Required value/ },
  { title: 'capital letters', text: doc([rule(['Secrets'])]), message: /resources\[0\]\.resources\[0\]: Invalid value "Secrets": resource name should not contain capital letters/ },
  { title: 'a bare *', text: doc([rule(['*'])]), message: /resources\[0\]\.resources\[0\]: .*use '\*\.' to encrypt all the resources from core API group/ },
  { title: 'an empty name', text: doc([rule([''])]), message: /resources\[0\]\.resources\[0\]: .*must not be empty/ },
  { title: 'a resource without REST API', text: doc([rule(['serviceipallocations'])]), message: /resources which do not have REST API\/s cannot be encrypted/ },
  { title: `*.${EVENTS_GROUP}`, text: doc([rule([`*.${EVENTS_GROUP}`])]), message: /stored using the 'events' API group/ },
  { title: 'the extensions group', text: doc([rule(['ingresses.extensions'])]), message: /'extensions' group has been removed/ },
  { title: 'a resource across groups', text: doc([rule(['secrets.*'])]), message: /encrypting the same resource across groups is not supported/ },
  { title: 'a duplicate name in one entry', text: doc([rule(['secrets', 'secrets'])]), message: /resources\[0\]\.resources: .*the same resource cannot be specified multiple times/ },
  { title: 'a name overlapping *. in one entry', text: doc([rule(['secrets', '*.'])]), message: /resources\[0\]\.resources: .*overlapping resources/ },
  { title: 'a name overlapping *.<group> in one entry', text: doc([rule(['deployments.apps', '*.apps'])]), message: /overlapping resources/ },
  { title: 'anything beside *.* in one entry', text: doc([rule(['configmaps.', '*.*'])]), message: /overlapping resources/ },
  { title: 'a name masked by an earlier *.<group>', text: doc([rule(['*.apps']), rule(['deployments.apps'])]), message: /resources\[1\]\.resources\[0\]: .*resource "deployments\.apps" is masked by earlier rule "\*\.apps"/ },
  { title: 'a name masked by an earlier *.', text: doc([rule(['*.']), rule(['secrets'])]), message: /resources\[1\]\.resources\[0\]: .*is masked by earlier rule "\*\."/ },
  { title: 'a name masked by an earlier *.*', text: doc([rule(['*.*']), rule(['*.apps'])]), message: /is masked by earlier rule "\*\.\*"/ },
  { title: 'an unknown provider', text: doc([rule(['secrets'], [{ aesgmc: { keys: [] } }])]), message: /resources\[0\]\.providers\[0\]\.aesgmc: unknown field: not a provider/ },
  { title: 'an empty provider element', text: doc([rule(['secrets'], [{}])]), message: /resources\[0\]\.providers\[0\]: Invalid value: provider does not contain any of the expected providers/ },
  { title: 'two providers in one element', text: doc([rule(['secrets'], [{ ...gcm(), identity: {} }])]), message: /more than one provider specified in a single element/ },
  { title: 'aesgcm without keys', text: doc([rule(['secrets'], [{ aesgcm: { keys: [] } }])]), message: /providers\[0\]\.aesgcm\.keys: Required value/ },
  { title: 'a key without name', text: doc([rule(['secrets'], [{ aesgcm: { keys: [{ secret: K32 }] } }])]), message: /aesgcm\.keys\[0\]\.name: Required value: name is a mandatory field for a key/ },
  { title: 'a key without secret', text: doc([rule(['secrets'], [{ aesgcm: { keys: [{ name: 'k' }] } }])]), message: /aesgcm\.keys\[0\]\.secret: Required value: secret is a mandatory field for a key/ },
  { title: 'a secret not in base64', text: doc([rule(['secrets'], [gcm('not base64!')])]), message: /aesgcm\.keys\[0\]\.secret: Invalid value "REDACTED": secrets must be base64 encoded/ },
  { title: 'an aesgcm key of 8 bytes', text: doc([rule(['secrets'], [gcm(b64(8))])]), message: /aesgcm\.keys\[0\]\.secret: .*got 8, expected one of \[16 24 32\]/ },
  { title: 'an aescbc key of 16 bytes', text: doc([rule(['secrets'], [{ aescbc: { keys: [{ name: 'k', secret: K16 }] } }])]), message: /aescbc\.keys\[0\]\.secret: .*got 16, expected one of \[32\]/ },
  { title: 'a secretbox key of 24 bytes', text: doc([rule(['secrets'], [{ secretbox: { keys: [{ name: 'k', secret: b64(24) }] } }])]), message: /secretbox\.keys\[0\]\.secret: .*got 24, expected one of \[32\]/ },
  { title: 'an unknown key field', text: doc([rule(['secrets'], [{ aesgcm: { keys: [{ name: 'k', secret: K32, size: 1 }] } }])]), message: /aesgcm\.keys\[0\]\.size: unknown field/ },
  { title: 'fields under identity', text: doc([rule(['secrets'], [{ identity: { x: 1 } }])]), message: /providers\[0\]\.identity\.x: unknown field/ },
  { title: 'a kms apiVersion v3', text: doc([rule(['secrets'], [kms({ apiVersion: 'v3' })])]), message: /kms\.apiVersion: .*only v1 and v2 are supported/ },
  { title: 'a kms without name', text: doc([rule(['secrets'], [kms({ name: '' })])]), message: /kms\.name: Required value/ },
  { title: 'a kms v2 name with a colon', text: doc([rule(['secrets'], [kms({ name: 'a:b' })])]), message: /kms\.name: .*must not contain ':'/ },
  { title: 'two kms v2 with one name', text: doc([rule(['secrets'], [kms({}), kms({})])]), message: /providers\[1\]\.kms\.name: .*duplicate KMS provider name p/ },
  { title: 'a kms without endpoint', text: doc([rule(['secrets'], [kms({ endpoint: '' })])]), message: /kms\.endpoint: .*endpoint is a mandatory field for a kms/ },
  { title: 'a kms over tcp', text: doc([rule(['secrets'], [kms({ endpoint: 'tcp://127.0.0.1:80' })])]), message: /kms\.endpoint: .*unsupported scheme "tcp" for KMS provider, only unix is supported/ },
  { title: 'a kms timeout of 0', text: doc([rule(['secrets'], [kms({ timeout: '0s' })])]), message: /kms\.timeout: .*timeout should be a positive value/ },
  { title: 'a kms timeout that is not a duration', text: doc([rule(['secrets'], [kms({ timeout: 'soon' })])]), message: /kms\.timeout: Invalid value "soon"/ },
  { title: 'a kms v2 cachesize', text: doc([rule(['secrets'], [kms({ cachesize: 10 })])]), message: /kms\.cachesize: .*cachesize is not supported in v2/ },
  { title: 'a kms v1 cachesize of 0', text: doc([rule(['secrets'], [kms({ apiVersion: 'v1', cachesize: 0 })])]), message: /kms\.cachesize: .*should be a positive value, or negative to disable/, kmsV1: true },
  { title: 'a kms v1 provider without the KMSv1 feature gate', text: doc([rule(['secrets'], [kms({ apiVersion: 'v1' })])]), message: /kms\.apiVersion: .*--feature-gates=KMSv1=true/ },
];

describe('spec 2.12: EncryptionConfiguration: every rule refuses the file with its field path', () => {
  for (const r of REJECTED) {
    it(`spec 2.12: ${r.title}`, () => {
      assert.throws(() => parseEncryptionConfiguration(r.text, { kmsV1: r.kmsV1 === true }), (e: unknown) => e instanceof EncryptionConfigError && r.message.test(e.message));
    });
  }

  it('reference behaviour: kms v1 names must be unique only when automatic reload is on', () => {
    const text = doc([rule(['secrets'], [kms({ apiVersion: 'v1' }), kms({ apiVersion: 'v1' })])]);
    assert.equal(parseEncryptionConfiguration(text, { kmsV1: true }).resources.length, 1);
    assert.throws(() => parseEncryptionConfiguration(text, { reload: true, kmsV1: true }), /duplicate KMS provider name p/);
  });

  it('spec 2.12: every problem of a file is reported at once', () => {
    assert.throws(
      () => parseEncryptionConfiguration(doc([rule(['Secrets'], [gcm(b64(5))])])),
      (e: unknown) => e instanceof Error && /capital letters/.test(e.message) && /got 5/.test(e.message),
    );
  });
});

describe('spec 2.12: loading the file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-enc-config-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('spec 2.12: errors start with the file name; a missing file says so', () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, doc([rule(['secrets'], [gcm(b64(7))])]));
    assert.throws(() => loadEncryptionConfiguration(file), (e: unknown) => e instanceof Error && e.message.startsWith(`${file}: resources[0].providers[0].aesgcm.keys[0].secret`));
    assert.throws(() => loadEncryptionConfiguration(join(dir, 'none.yaml')), /none\.yaml: cannot be read/);
  });
});
