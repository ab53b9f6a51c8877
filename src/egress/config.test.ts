import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { APISERVER_GROUP } from '../api/naming.js';
import { buildDialers, EgressConfigError, parseEgressSelectorConfiguration } from './index.js';

const V1BETA1 = `${APISERVER_GROUP}/v1beta1`;
const doc = (selections: unknown[], head: Record<string, unknown> = {}) =>
  JSON.stringify({ apiVersion: V1BETA1, kind: 'EgressSelectorConfiguration', ...head, egressSelections: selections });
const FILES = new Set(['/pki/ca.crt', '/pki/client.crt', '/pki/client.key']);
const exists = (p: string) => FILES.has(p);
const parse = (text: string) => parseEgressSelectorConfiguration(text, 'egress.yaml', exists);
const problemsOf = (text: string): string[] => {
  try {
    parse(text);
  } catch (e) {
    assert.ok(e instanceof EgressConfigError);
    return e.problems;
  }
  return [];
};
const tls = { caBundle: '/pki/ca.crt', clientCert: '/pki/client.crt', clientKey: '/pki/client.key' };
const httpConnect = (transport: unknown) => ({ proxyProtocol: 'HTTPConnect', transport });

describe('EgressSelectorConfiguration (spec 2.12)', () => {
  it('spec 2.12: valid documents parse in v1beta1 and v1alpha1, names are case-insensitive and master is controlplane', () => {
    const out = parse(
      doc([
        { name: 'Cluster', connection: httpConnect({ tcp: { url: 'https://proxy:8131', tlsConfig: tls } }) },
        { name: 'master', connection: { proxyProtocol: 'Direct' } },
        { name: 'etcd', connection: { proxyProtocol: 'Direct' } },
      ]),
    );
    assert.deepEqual(
      out.map((s) => [s.name, s.writtenName, s.proxyProtocol]),
      [
        ['cluster', 'cluster', 'HTTPConnect'],
        ['controlplane', 'master', 'Direct'],
        ['etcd', 'etcd', 'Direct'],
      ],
    );
    const alpha = `apiVersion: ${APISERVER_GROUP}/v1alpha1\nkind: EgressSelectorConfiguration\negressSelections:\n- name: controlplane\n  connection:\n    proxyProtocol: HTTPConnect\n    transport:\n      uds:\n        udsName: /run/proxy.sock\n`;
    assert.deepEqual(parse(alpha)[0]!.transport, { uds: { udsName: '/run/proxy.sock' } });
  });

  const P = 'egressSelections[0].connection';
  const table: { name: string; selections: unknown[]; want: string[]; head?: Record<string, unknown> }[] = [
    { name: 'an unknown protocol', selections: [{ name: 'cluster', connection: { proxyProtocol: 'SOCKS5' } }], want: [`${P}.proxyProtocol: Unsupported value: "SOCKS5": supported values: "Direct", "HTTPConnect", "GRPC"`] },
    { name: 'Direct with a transport', selections: [{ name: 'cluster', connection: { proxyProtocol: 'Direct', transport: { uds: { udsName: '/x' } } } }], want: [`${P}.transport: Invalid value: "direct": Transport config should be absent for direct connect`] },
    { name: 'HTTPConnect without a transport', selections: [{ name: 'cluster', connection: { proxyProtocol: 'HTTPConnect' } }], want: [`${P}.transport: Required value: transport must be set for HTTPConnect`] },
    { name: 'both tcp and uds', selections: [{ name: 'cluster', connection: httpConnect({ tcp: { url: 'http://p:1' }, uds: { udsName: '/x' } }) }], want: [`${P}.transport.tcp: Invalid value: TCP and UDS cannot both be set`] },
    { name: 'neither tcp nor uds', selections: [{ name: 'cluster', connection: httpConnect({}) }], want: [`${P}.transport.tcp: Required value: One of TCP or UDS must be set`] },
    { name: 'TLS files with an http URL', selections: [{ name: 'cluster', connection: httpConnect({ tcp: { url: 'http://p:1', tlsConfig: tls } }) }], want: [`${P}.transport.tcp.tlsConfig: Invalid value: "nil": TLSConfig config should not be present when using HTTP`] },
    { name: 'an https URL without tlsConfig', selections: [{ name: 'cluster', connection: httpConnect({ tcp: { url: 'https://p:1' } }) }], want: [`${P}.transport.tcp.tlsConfig: Required value: TLSConfig must be present when using HTTPS`] },
    {
      name: 'an https URL without client key and cert',
      selections: [{ name: 'cluster', connection: httpConnect({ tcp: { url: 'https://p:1', tlsConfig: { caBundle: '/pki/ca.crt' } } }) }],
      want: [`${P}.transport.tcp.tlsConfig.clientCert: Invalid value: "nil": Using TLS requires clientCert`, `${P}.transport.tcp.tlsConfig.clientKey: Invalid value: "nil": Using TLS requires clientKey`],
    },
    {
      name: 'TLS files that do not exist',
      selections: [{ name: 'cluster', connection: httpConnect({ tcp: { url: 'https://p:1', tlsConfig: { caBundle: '/no/ca', clientCert: '/no/crt', clientKey: '/no/key' } } }) }],
      want: [
        `${P}.transport.tcp.tlsConfig.caBundle: Invalid value: "/no/ca": TLS config ca bundle does not exist`,
        `${P}.transport.tcp.tlsConfig.clientCert: Invalid value: "/no/crt": TLS client cert does not exist`,
        `${P}.transport.tcp.tlsConfig.clientKey: Invalid value: "/no/key": TLS client key does not exist`,
      ],
    },
    { name: 'a URL scheme other than http and https', selections: [{ name: 'cluster', connection: httpConnect({ tcp: { url: 'tcp://p:1' } }) }], want: [`${P}.transport.tcp.url: Invalid value: "tcp://p:1": supported connection protocols are http:// and https://`] },
    { name: 'an empty udsName', selections: [{ name: 'cluster', connection: httpConnect({ uds: { udsName: '' } }) }], want: [`${P}.transport.uds.udsName: Invalid value: "nil": UDSName should be present for UDS connections`] },
    { name: 'GRPC over TCP', selections: [{ name: 'cluster', connection: { proxyProtocol: 'GRPC', transport: { tcp: { url: 'http://p:1' } } } }], want: [`${P}.transport.tcp: Invalid value: TCP is not supported for GRPC`] },
    { name: 'GRPC without uds', selections: [{ name: 'cluster', connection: { proxyProtocol: 'GRPC', transport: {} } }], want: [`${P}.transport.uds: Required value: UDS must be set with GRPC`] },
    {
      name: 'a repeated name (any case)',
      selections: [{ name: 'etcd', connection: { proxyProtocol: 'Direct' } }, { name: 'ETCD', connection: { proxyProtocol: 'Direct' } }],
      want: ['egressSelections[1].name: Duplicate value: "etcd"'],
    },
    { name: 'an unknown name', selections: [{ name: 'nodes', connection: { proxyProtocol: 'Direct' } }], want: ['egressSelections[0].name: Unsupported value: "nodes": supported values: "cluster", "controlplane", "etcd", "master"'] },
    { name: 'an unknown field', selections: [{ name: 'etcd', connection: { proxyProtocol: 'Direct', proxy: 'x' } }], want: [`${P}.proxy: unknown field`] },
    {
      name: 'a wrong apiVersion and kind',
      selections: [],
      head: { apiVersion: 'v1', kind: 'Egress' },
      want: ['kind: Invalid value: "Egress": must be EgressSelectorConfiguration', `apiVersion: Unsupported value: "v1": supported values: "${V1BETA1}", "${APISERVER_GROUP}/v1alpha1"`],
    },
  ];
  for (const c of table) {
    it(`spec 2.12: ${c.name} is refused with its field path`, () => {
      assert.deepEqual(problemsOf(doc(c.selections, c.head)), c.want);
    });
  }

  it('spec 2.12: the error names the file and lists every problem', () => {
    assert.throws(
      () => parse(doc([{ name: 'nodes', connection: { proxyProtocol: 'Direct' } }, { name: 'cluster', connection: { proxyProtocol: 'HTTPConnect' } }])),
      (e: Error) => e.message.startsWith('egress.yaml: ') && e.message.includes('egressSelections[0].name') && e.message.includes('egressSelections[1].connection.transport'),
    );
    assert.throws(() => parse('{ not yaml'), /^Error: egress\.yaml: cannot be parsed as YAML or JSON/);
  });

  it('reference behaviour: master is logged as deprecated; master with controlplane and GRPC (etcd included) are refused at start-up; HTTPConnect etcd gets a dialer', () => {
    const logs: string[] = [];
    const direct = { proxyProtocol: 'Direct' as const };
    const dialers = buildDialers([{ name: 'controlplane', writtenName: 'master', ...direct }], 'f', (m) => logs.push(m));
    assert.equal(dialers.controlplane, undefined);
    assert.deepEqual(logs, ['f: egress selection name "master" is deprecated, use "controlplane"']);
    assert.throws(
      () => buildDialers([{ name: 'controlplane', writtenName: 'master', ...direct }, { name: 'controlplane', writtenName: 'controlplane', ...direct }], 'f', () => undefined),
      /f: egressSelections\[1\]\.name: Duplicate value: "controlplane"/,
    );
    assert.throws(
      () => buildDialers([{ name: 'cluster', writtenName: 'cluster', proxyProtocol: 'GRPC', transport: { uds: { udsName: '/s' } } }], 'f', () => undefined),
      /f: egressSelections\[0\]\.connection\.proxyProtocol: Unsupported value: "GRPC": this server does not implement the konnectivity GRPC protocol/,
    );
    assert.throws(
      () => buildDialers([{ name: 'etcd', writtenName: 'etcd', proxyProtocol: 'GRPC', transport: { uds: { udsName: '/s' } } }], 'f', () => undefined),
      /f: egressSelections\[0\]\.connection\.proxyProtocol: Unsupported value: "GRPC"/,
    );
    const etcd = buildDialers([{ name: 'etcd', writtenName: 'etcd', proxyProtocol: 'HTTPConnect', transport: { tcp: { url: 'http://p:1' } } }], 'f', () => undefined);
    assert.equal(typeof etcd.etcd?.dial, 'function');
    assert.equal(etcd.controlplane, undefined);
    const built = buildDialers([{ name: 'cluster', writtenName: 'cluster', proxyProtocol: 'HTTPConnect', transport: { tcp: { url: 'http://p:1' } } }], 'f', () => undefined);
    assert.equal(typeof built.cluster?.dial, 'function');
    assert.equal(built.controlplane, undefined);
  });
});
