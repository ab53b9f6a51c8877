import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseKubeconfig, readKubeconfigFile } from './model.js';

const FULL = `apiVersion: v1
kind: Config
preferences: {colors: true}
current-context: dev
clusters:
- name: c1
  cluster:
    server: https://127.0.0.1:6443
    certificate-authority: certs/ca.crt
    tls-server-name: api.local
    proxy-url: http://proxy:3128
    disable-compression: true
    extensions:
    - name: client.authentication.orch.io/exec
      extension: {audience: a}
users:
- name: u1
  user:
    client-certificate: u1.crt
    client-key: /abs/u1.key
    tokenFile: ../tok
    as: bob
    as-groups: [g1, g2]
    as-uid: "7"
    as-user-extra: {scopes: [x]}
- name: u2
  user:
    exec:
      command: ./bin/plugin
      apiVersion: client.authentication.orch.io/v1
      args: [a]
      env: [{name: K, value: V}]
      interactiveMode: Never
      provideClusterInfo: true
- name: u3
  user:
    exec: {command: plugin-on-path, apiVersion: client.authentication.orch.io/v1beta1}
contexts:
- name: dev
  context: {cluster: c1, user: u1, namespace: team}
`;

describe('kubeconfig model (spec 2.10; reference kubeconfig v1)', () => {
  it('reference behaviour: reads every field and resolves relative paths against the file directory', () => {
    const c = parseKubeconfig(FULL, '/home/me/.orch/config');
    assert.equal(c.currentContext, 'dev');
    assert.equal(c.currentContextSource, '/home/me/.orch/config');
    assert.deepEqual(c.preferences, { colors: true });
    const cl = c.clusters[0]!;
    assert.equal(cl.name, 'c1');
    assert.equal(cl.source, '/home/me/.orch/config');
    assert.equal(cl.value['certificate-authority'], '/home/me/.orch/certs/ca.crt');
    assert.equal(cl.value['tls-server-name'], 'api.local');
    assert.equal(cl.value['proxy-url'], 'http://proxy:3128');
    assert.equal(cl.value['disable-compression'], true);
    assert.deepEqual(cl.value.extensions, [{ name: 'client.authentication.orch.io/exec', extension: { audience: 'a' } }]);
    const u1 = c.users[0]!.value;
    assert.equal(u1['client-certificate'], '/home/me/.orch/u1.crt');
    assert.equal(u1['client-key'], '/abs/u1.key');
    assert.equal(u1.tokenFile, '/home/me/tok');
    assert.deepEqual([u1.as, u1['as-groups'], u1['as-uid'], u1['as-user-extra']], ['bob', ['g1', 'g2'], '7', { scopes: ['x'] }]);
    assert.equal(c.users[1]!.value.exec!.command, '/home/me/.orch/bin/plugin');
    assert.deepEqual(c.users[1]!.value.exec!.env, [{ name: 'K', value: 'V' }]);
    assert.equal(c.users[2]!.value.exec!.command, 'plugin-on-path', 'a bare command name is looked up in PATH');
    assert.deepEqual(c.contexts[0]!.value, { cluster: 'c1', user: 'u1', namespace: 'team' });
  });

  it('reference behaviour: an empty file is an empty configuration; null fields are absent', () => {
    assert.deepEqual(parseKubeconfig('', '/x').clusters, []);
    const c = parseKubeconfig('clusters:\n- name: a\n  cluster: {server: "https://h", certificate-authority: null}\n', '/x');
    assert.deepEqual(c.clusters[0]!.value, { server: 'https://h' });
  });

  it('reference behaviour: an unquoted timestamp in an exec env value stays text', () => {
    const c = parseKubeconfig('users:\n- name: u\n  user:\n    exec:\n      apiVersion: client.x/v1\n      command: p\n      interactiveMode: Never\n      env:\n      - name: SINCE\n        value: 2024-01-01T00:00:00Z\n', '/x');
    assert.deepEqual(c.users[0]!.value.exec?.env, [{ name: 'SINCE', value: '2024-01-01T00:00:00Z' }]);
  });

  const errors: [string, string, RegExp][] = [
    ['not YAML', 'clusters: [', /kubeconfig \/d\/f: not valid YAML/],
    ['wrong kind', 'kind: Pod', /\/d\/f: kind: must be "Config"/],
    ['wrong apiVersion', 'apiVersion: v2', /apiVersion: must be "v1"/],
    ['unknown top field', 'bogus: 1', /\/d\/f: bogus: unknown field/],
    ['clusters not a list', 'clusters: {}', /clusters: must be a list/],
    ['entry without name', 'clusters:\n- cluster: {server: x}', /clusters\[0\]\.name: must be a non-empty string/],
    ['duplicate name', 'users:\n- name: a\n  user: {}\n- name: a\n  user: {}', /users\[1\]\.name: duplicate name "a"/],
    ['unknown cluster field', 'clusters:\n- name: a\n  cluster: {sever: x}', /clusters\[0\]\.cluster\.sever: unknown field/],
    ['bool as string', 'clusters:\n- name: a\n  cluster: {insecure-skip-tls-verify: "yes please"}', /insecure-skip-tls-verify: must be true or false/],
    ['bad base64', 'users:\n- name: a\n  user: {client-key-data: "%%%"}', /users\[0\]\.user\.client-key-data: must be base64/],
    ['groups not strings', 'users:\n- name: a\n  user: {as-groups: [{}]}', /as-groups: must be a list of strings/],
    ['exec unknown field', 'users:\n- name: a\n  user: {exec: {cmd: x}}', /users\[0\]\.user\.exec\.cmd: unknown field/],
    ['exec env entry', 'users:\n- name: a\n  user: {exec: {env: [{value: x}]}}', /exec\.env\[0\]: must have a string name/],
    ['auth-provider config', 'users:\n- name: a\n  user: {auth-provider: {name: oidc, config: {a: [1]}}}', /auth-provider\.config: must map names to strings/],
    ['context field', 'contexts:\n- name: a\n  context: {namespace: 3}', /contexts\[0\]\.context\.namespace: must be a string/],
    ['current-context type', 'current-context: [a]', /current-context: must be a string/],
    ['preferences field', 'preferences: {colours: true}', /preferences\.colours: unknown field/],
  ];
  for (const [name, text, re] of errors) {
    it(`reference behaviour: a bad file is an error naming the file and field (${name})`, () => {
      assert.throws(() => parseKubeconfig(text, '/d/f'), re);
    });
  }

  it('reference behaviour: an unreadable file is an error naming it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'orch-kcfg-'));
    assert.throws(() => readKubeconfigFile(join(dir, 'missing')), /kubeconfig .*missing: cannot be read/);
    writeFileSync(join(dir, 'ok'), 'current-context: x\n');
    assert.equal(readKubeconfigFile(join(dir, 'ok')).currentContext, 'x');
  });
});
