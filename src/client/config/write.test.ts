import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { CLIENT_CONFIG_ENV } from '../../api/naming.js';
import { loadKubeconfigs, loadingPrecedence } from './load.js';
import { parseKubeconfig } from './model.js';
import { getContexts, saveKubeconfig, setCluster, setContext, setCredentials, useContext, view } from './write.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const TEXT = `current-context: a
clusters:
- name: ca
  cluster: {server: "https://a", certificate-authority-data: ${b64('CA')}}
- name: cb
  cluster: {server: "https://b"}
users:
- name: ua
  user: {token: secret, client-certificate-data: ${b64('C')}, client-key-data: ${b64('K')}}
- name: ub
  user: {password: pw, username: u}
contexts:
- name: b
  context: {cluster: cb, user: ub}
- name: a
  context: {cluster: ca, user: ua, namespace: ns}
`;

describe('config view, use-context, set-* and get-contexts (reference behaviour)', () => {
  const config = parseKubeconfig(TEXT, '/k/config');

  it('reference behaviour: view hides embedded data as DATA+OMITTED and secrets as REDACTED, sorted keys', () => {
    const doc = parse(view(config));
    assert.deepEqual(Object.keys(doc), ['apiVersion', 'clusters', 'contexts', 'current-context', 'kind', 'preferences', 'users']);
    assert.equal(doc.clusters[0].cluster['certificate-authority-data'], 'DATA+OMITTED');
    assert.deepEqual(doc.users[0].user, { 'client-certificate-data': 'DATA+OMITTED', 'client-key-data': 'DATA+OMITTED', token: 'REDACTED' });
    assert.equal(doc.users[1].user.password, 'REDACTED');
    assert.equal(doc.kind, 'Config');
    assert.deepEqual(doc.preferences, {});
  });

  it('reference behaviour: view --raw shows everything; --minify keeps the current context only', () => {
    assert.equal(parse(view(config, { raw: true })).users[0].user.token, 'secret');
    const min = parse(view(config, { minify: true }));
    assert.deepEqual([min.contexts.map((c: { name: string }) => c.name), min.clusters.length, min.users[0].name], [['a'], 1, 'ua']);
    assert.equal(parse(view(config, { minify: true, context: 'b' })).clusters[0].name, 'cb');
    assert.throws(() => view(parseKubeconfig('', '/x'), { minify: true }), /current-context must exist in order to minify/);
  });

  it('reference behaviour: use-context needs an existing context', () => {
    assert.equal(useContext(config, 'b').currentContext, 'b');
    assert.equal(config.currentContext, 'a', 'the input is not changed');
    assert.throws(() => useContext(config, 'zz'), /no context exists with the name: "zz"/);
  });

  it('reference behaviour: get-contexts rows are sorted by name and mark the current one', () => {
    assert.deepEqual(getContexts(config), [
      { current: true, name: 'a', cluster: 'ca', authInfo: 'ua', namespace: 'ns' },
      { current: false, name: 'b', cluster: 'cb', authInfo: 'ub', namespace: '' },
    ]);
    assert.throws(() => getContexts(config, ['q']), /context q not found/);
  });

  const edits: [string, () => unknown, unknown][] = [
    ['set-context creates', () => setContext(config, 'n', { cluster: 'cb', namespace: 'x' }).contexts.at(-1), { name: 'n', value: { cluster: 'cb', namespace: 'x' } }],
    ['set-context changes and clears', () => setContext(config, 'a', { user: 'ub', namespace: '' }).contexts[1]!.value, { cluster: 'ca', user: 'ub' }],
    ['set-cluster CA file replaces data', () => setCluster(config, 'ca', { 'certificate-authority': '/p/ca.crt' }).clusters[0]!.value, { server: 'https://a', 'certificate-authority': '/p/ca.crt' }],
    ['set-cluster insecure drops the CA', () => setCluster(config, 'ca', { 'insecure-skip-tls-verify': true }).clusters[0]!.value, { server: 'https://a', 'insecure-skip-tls-verify': true }],
    ['set-credentials token file replaces token', () => setCredentials(config, 'ua', { tokenFile: '/t' }).users[0]!.value.token, undefined],
    ['set-credentials cert file replaces data', () => setCredentials(config, 'ua', { 'client-certificate': '/c' }).users[0]!.value['client-certificate-data'], undefined],
    [
      'set-credentials exec merges',
      () => setCredentials(setCredentials(config, 'e', { exec: { command: 'p', apiVersion: 'v' } }), 'e', { exec: { interactiveMode: 'Never' } }).users.at(-1)!.value,
      { exec: { command: 'p', apiVersion: 'v', interactiveMode: 'Never' } },
    ],
  ];
  for (const [name, run, want] of edits) {
    it(`reference behaviour: ${name}`, () => assert.deepEqual(run(), want));
  }

  it('reference behaviour: saving writes each change to the file it came from, new entries to the first file, mode 0600', () => {
    const dir = mkdtempSync(join(tmpdir(), 'orch-kwrite-'));
    const first = join(dir, 'first');
    const second = join(dir, 'second');
    writeFileSync(first, 'clusters:\n- name: one\n  cluster: {server: "https://1"}\n');
    writeFileSync(second, 'current-context: c2\nclusters:\n- name: one\n  cluster: {server: "https://shadowed"}\n- name: two\n  cluster: {server: "https://2"}\ncontexts:\n- name: c2\n  context: {cluster: two}\n- name: c3\n  context: {cluster: one}\n');
    const loaded = loadKubeconfigs(loadingPrecedence(undefined, { [CLIENT_CONFIG_ENV]: [first, second].join(delimiter) }));
    let next = setCluster(loaded.config, 'two', { server: 'https://2b', 'certificate-authority': join(dir, 'pki', 'ca.crt') });
    next = setContext(next, 'fresh', { cluster: 'one' });
    next = useContext(next, 'c3');
    assert.deepEqual(saveKubeconfig(loaded, next).sort(), [first, second].sort());
    const a = parse(readFileSync(first, 'utf8'));
    const b = parse(readFileSync(second, 'utf8'));
    assert.deepEqual(a.contexts, [{ context: { cluster: 'one' }, name: 'fresh' }]);
    assert.equal(a['current-context'], undefined);
    assert.equal(b['current-context'], 'c3', 'current-context goes where it was set');
    assert.deepEqual(b.clusters[1], { cluster: { 'certificate-authority': 'pki/ca.crt', server: 'https://2b' }, name: 'two' });
    assert.equal(b.clusters[0].cluster.server, 'https://shadowed', 'an entry hidden by the merge is kept');
    assert.equal(statSync(first).mode & 0o777, 0o600);
    assert.equal(statSync(second).mode & 0o777, 0o600);
    const again = loadKubeconfigs(loaded.precedence);
    assert.equal(again.config.clusters.find((c) => c.name === 'two')!.value['certificate-authority'], join(dir, 'pki', 'ca.crt'));
    assert.deepEqual(saveKubeconfig(again, again.config), [], 'nothing changed, nothing written');
  });

  it('reference behaviour: saving into a file that does not exist yet creates it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'orch-kwrite-'));
    const file = join(dir, 'sub', 'config');
    const loaded = loadKubeconfigs(loadingPrecedence(undefined, { HOME: dir, [CLIENT_CONFIG_ENV]: file }));
    saveKubeconfig(loaded, useContext(setContext(loaded.config, 'x', { cluster: 'c' }), 'x'));
    const doc = parse(readFileSync(file, 'utf8'));
    assert.deepEqual([doc.apiVersion, doc.kind, doc['current-context'], doc.contexts[0].name], ['v1', 'Config', 'x', 'x']);
  });
});
