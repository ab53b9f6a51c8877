import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, it } from 'node:test';
import { CLIENT_CONFIG_ENV } from '../../api/naming.js';
import { loadKubeconfigs, loadingPrecedence } from './load.js';

const cluster = (name: string, server: string) => `- name: ${name}\n  cluster: {server: "${server}"}\n`;

describe('kubeconfig file precedence and merging (reference behaviour)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-kload-'));
  const a = join(dir, 'a');
  const b = join(dir, 'b');
  const c = join(dir, 'c');
  writeFileSync(a, `clusters:\n${cluster('one', 'https://a1')}users:\n- name: ua\n  user: {token: ta}\npreferences: {colors: true}\n`);
  writeFileSync(b, `current-context: from-b\nclusters:\n${cluster('one', 'https://b1')}${cluster('two', 'https://b2')}contexts:\n- name: from-b\n  context: {cluster: two}\n`);
  writeFileSync(c, `current-context: from-c\nclusters:\n${cluster('two', 'https://c2')}${cluster('three', 'https://c3')}contexts:\n- name: from-b\n  context: {cluster: three}\n- name: from-c\n  context: {cluster: one}\n`);

  it('reference behaviour: across 3 files the first file that sets an entry or current-context wins', () => {
    const env = { [CLIENT_CONFIG_ENV]: [a, b, c].join(delimiter) };
    const { config, precedence } = loadKubeconfigs(loadingPrecedence(undefined, env));
    assert.deepEqual(precedence.files, [a, b, c]);
    const servers = Object.fromEntries(config.clusters.map((e) => [e.name, [e.value.server, e.source]]));
    assert.deepEqual(servers, { one: ['https://a1', a], two: ['https://b2', b], three: ['https://c3', c] });
    assert.equal(config.currentContext, 'from-b');
    assert.equal(config.currentContextSource, b);
    assert.deepEqual(Object.fromEntries(config.contexts.map((e) => [e.name, e.value.cluster])), { 'from-b': 'two', 'from-c': 'one' });
    assert.deepEqual(config.users.map((e) => e.name), ['ua']);
    assert.deepEqual(config.preferences, { colors: true });
  });

  it('reference behaviour: files the environment lists but that do not exist are skipped; duplicates read once', () => {
    const env = { [CLIENT_CONFIG_ENV]: [join(dir, 'nope'), c, '', c].join(delimiter) };
    const { config, precedence } = loadKubeconfigs(loadingPrecedence(undefined, env));
    assert.deepEqual(precedence.files, [join(dir, 'nope'), c]);
    assert.equal(precedence.defaultFile, c, 'new entries go to the first listed file that exists');
    assert.equal(config.currentContext, 'from-c');
  });

  it('reference behaviour: --kubeconfig wins over the environment, and must exist', () => {
    const env = { [CLIENT_CONFIG_ENV]: a };
    const p = loadingPrecedence('c', env, dir);
    assert.deepEqual(p, { files: [c], explicitFile: c, defaultFile: c });
    assert.equal(loadKubeconfigs(p).config.currentContext, 'from-c');
    assert.throws(() => loadKubeconfigs(loadingPrecedence(join(dir, 'absent'), env)), /kubeconfig .*absent: cannot be read/);
  });

  it('reference behaviour: without flag or variable the file under the home directory is read, if present', () => {
    const home = join(dir, 'home');
    const p = loadingPrecedence(undefined, { HOME: home });
    assert.deepEqual(p.files, [join(home, '.orch', 'config')]);
    assert.deepEqual(loadKubeconfigs(p).config.clusters, [], 'a missing default file is an empty configuration');
    mkdirSync(join(home, '.orch'), { recursive: true });
    writeFileSync(join(home, '.orch', 'config'), `clusters:\n${cluster('h', 'https://h')}`);
    assert.equal(loadKubeconfigs(p).config.clusters[0]!.name, 'h');
  });

  it('reference behaviour: with several listed files none of which exists, new entries go to the last', () => {
    const env = { [CLIENT_CONFIG_ENV]: [join(dir, 'x1'), join(dir, 'x2')].join(delimiter) };
    assert.equal(loadingPrecedence(undefined, env).defaultFile, join(dir, 'x2'));
  });
});
