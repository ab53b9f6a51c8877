import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { DEFAULT_CLUSTER_NAME, kubeconfigYaml } from './kubeconfig.js';

const CA = '-----BEGIN CERTIFICATE-----\nMIIBca\n-----END CERTIFICATE-----\n';
const CERT = '-----BEGIN CERTIFICATE-----\nMIIBclient\n-----END CERTIFICATE-----\n';
const KEY = '-----BEGIN PRIVATE KEY-----\nMIGHkey\n-----END PRIVATE KEY-----\n';
const unb64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');

describe('kubeconfigYaml', () => {
  it('writes a token kubeconfig with one cluster, user and current context', () => {
    const doc = parse(kubeconfigYaml({ server: 'https://127.0.0.1:6443', caCertPem: CA, user: 'admin', token: 'secret-token' }));
    assert.equal(doc.apiVersion, 'v1');
    assert.equal(doc.kind, 'Config');
    assert.equal(doc.clusters.length, 1);
    assert.equal(doc.clusters[0].name, DEFAULT_CLUSTER_NAME);
    assert.equal(doc.clusters[0].cluster.server, 'https://127.0.0.1:6443');
    assert.equal(unb64(doc.clusters[0].cluster['certificate-authority-data']), CA);
    assert.deepEqual(doc.users, [{ name: 'admin', user: { token: 'secret-token' } }]);
    assert.deepEqual(doc.contexts, [
      { name: `admin@${DEFAULT_CLUSTER_NAME}`, context: { cluster: DEFAULT_CLUSTER_NAME, user: 'admin' } },
    ]);
    assert.equal(doc['current-context'], `admin@${DEFAULT_CLUSTER_NAME}`);
  });

  it('embeds a client certificate and key, and honours names and namespace', () => {
    const text = kubeconfigYaml({
      server: 'https://[::1]:8443',
      caCertPem: CA,
      user: 'jane',
      clientCertPem: CERT,
      clientKeyPem: KEY,
      cluster: 'dev',
      context: 'dev-ctx',
      namespace: 'team-a',
    });
    const doc = parse(text);
    assert.equal(doc.clusters[0].name, 'dev');
    assert.equal(unb64(doc.users[0].user['client-certificate-data']), CERT);
    assert.equal(unb64(doc.users[0].user['client-key-data']), KEY);
    assert.equal(doc.users[0].user.token, undefined);
    assert.deepEqual(doc.contexts[0], { name: 'dev-ctx', context: { cluster: 'dev', user: 'jane', namespace: 'team-a' } });
    assert.equal(doc['current-context'], 'dev-ctx');
    assert.equal(doc.clusters[0].cluster.server, 'https://[::1]:8443');
  });

  it('keeps long base64 values on one line', () => {
    const longCa = `-----BEGIN CERTIFICATE-----\n${'A'.repeat(2000)}\n-----END CERTIFICATE-----\n`;
    const text = kubeconfigYaml({ server: 'https://h', caCertPem: longCa, user: 'u', token: 't' });
    const line = text.split('\n').find((l) => l.includes('certificate-authority-data'));
    assert.ok(line && line.length > 2000);
    assert.equal(unb64(parse(text).clusters[0].cluster['certificate-authority-data']), longCa);
  });

  it('quotes values that YAML would otherwise reinterpret', () => {
    // Clients read kubeconfig as YAML 1.1, where `yes`, `on` and `0123` are not strings unless quoted.
    const text = kubeconfigYaml({ server: 'https://h', caCertPem: CA, user: 'yes', token: '0123', namespace: 'on' });
    for (const version of ['1.1', '1.2'] as const) {
      const doc = parse(text, { version });
      assert.equal(doc.users[0].name, 'yes');
      assert.equal(doc.users[0].user.token, '0123');
      assert.equal(doc.contexts[0].context.namespace, 'on');
    }
  });

  it('rejects a client certificate without its key', () => {
    assert.throws(() => kubeconfigYaml({ server: 'https://h', caCertPem: CA, user: 'u', clientCertPem: CERT }), /together/);
  });
});
