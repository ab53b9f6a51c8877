import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ensureServingCerts, issueClientCert } from '../server/tls.js';
import { dialThrough } from '../util/dialer.js';
import { webhookBackend } from '../util/webhook-backend.js';
import { startConnectProxy, type ConnectProxy } from '../../test/helpers/connect-proxy.js';
import { httpConnectDialer, type ProxyEndpoint } from './http-connect.js';

describe('HTTP CONNECT egress dialer (spec 2.12 egress selection)', () => {
  let dir: string;
  let target: https.Server;
  let targetPort: number;
  let ca: string;
  let clientCert: { certPem: string; keyPem: string };
  let serving: { certPem: string; keyPem: string };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-egress-'));
    const certs = await ensureServingCerts(join(dir, 'pki'), { hosts: ['127.0.0.1', 'localhost'] });
    ca = certs.caCertPem;
    serving = certs;
    clientCert = await issueClientCert(certs, { commonName: 'egress-client' });
    target = https.createServer({ cert: certs.certPem, key: certs.keyPem }, (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ path: req.url }));
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    targetPort = (target.address() as AddressInfo).port;
  });
  after(async () => {
    target.closeAllConnections();
    await new Promise<void>((resolve) => target.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  /** Calls the HTTPS target through the dialer with node's own agent, as the webhook clients do. */
  async function getThrough(endpoint: ProxyEndpoint): Promise<string> {
    const agent = dialThrough(new https.Agent({ ca }), httpConnectDialer(endpoint, 'test'), true);
    try {
      return await new Promise<string>((resolve, reject) => {
        https
          .get({ host: '127.0.0.1', port: targetPort, path: '/through', agent }, (res) => {
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString()));
            res.on('end', () => resolve(body));
          })
          .on('error', reject);
      });
    } finally {
      agent.destroy();
    }
  }

  const cases: { name: string; start: () => Promise<ConnectProxy>; endpoint: (p: ConnectProxy) => ProxyEndpoint }[] = [
    {
      name: 'a proxy over plain TCP (http:// URL)',
      start: () => startConnectProxy({ kind: 'tcp' }),
      endpoint: (p) => ({ kind: 'tcp', host: '127.0.0.1', port: Number(new URL(p.address).port) }),
    },
    {
      name: 'a proxy over TLS with a client certificate (https:// URL)',
      start: () => startConnectProxy({ kind: 'tls', cert: serving.certPem, key: serving.keyPem, ca }),
      endpoint: (p) => ({ kind: 'tls', host: 'localhost', port: Number(new URL(p.address).port), ca, cert: clientCert.certPem, key: clientCert.keyPem }),
    },
    {
      name: 'a proxy on a Unix socket (transport.uds)',
      start: () => startConnectProxy({ kind: 'uds', path: join(dir, `proxy-${Date.now()}.sock`) }),
      endpoint: (p) => ({ kind: 'uds', path: p.address }),
    },
  ];
  for (const c of cases) {
    it(`spec 2.12: HTTPConnect through ${c.name} tunnels to the target, TLS to the target inside the tunnel`, async () => {
      const proxy = await c.start();
      try {
        const body = await getThrough(c.endpoint(proxy));
        assert.deepEqual(JSON.parse(body), { path: '/through' });
        assert.deepEqual(proxy.tunnels, [`127.0.0.1:${targetPort}`]);
      } finally {
        await proxy.close();
      }
    });
  }

  it('reference behaviour: a proxy that refuses the CONNECT fails the call with the proxy and the target named', async () => {
    const proxy = await startConnectProxy({ kind: 'tcp' }, { refuse: true });
    try {
      const port = Number(new URL(proxy.address).port);
      const dialer = httpConnectDialer({ kind: 'tcp', host: '127.0.0.1', port }, 'test');
      await assert.rejects(dialer.dial('127.0.0.1', 9), /proxy http:\/\/127\.0\.0\.1:\d+ while dialing 127\.0\.0\.1:9: the proxy answered "HTTP\/1\.1 403 Forbidden"/);
    } finally {
      await proxy.close();
    }
  });

  it('reference behaviour: a TLS proxy without the client certificate is not reached', async () => {
    const proxy = await startConnectProxy({ kind: 'tls', cert: serving.certPem, key: serving.keyPem, ca });
    try {
      const other = await issueClientCert(await ensureServingCerts(join(dir, 'other-pki'), { hosts: ['localhost'] }), { commonName: 'stranger' });
      const port = Number(new URL(proxy.address).port);
      const dialer = httpConnectDialer({ kind: 'tls', host: 'localhost', port, ca, cert: other.certPem, key: other.keyPem }, 'test');
      await assert.rejects(dialer.dial('127.0.0.1', targetPort), /proxy https:\/\/localhost:\d+ while dialing/);
      assert.deepEqual(proxy.tunnels, []);
    } finally {
      await proxy.close();
    }
  });

  it('spec 2.12: the shared webhook backend posts through its dialer and keeps the tunnel alive for the next call', async () => {
    const proxy = await startConnectProxy({ kind: 'tcp' });
    const port = Number(new URL(proxy.address).port);
    const backend = webhookBackend({ url: new URL(`https://127.0.0.1:${targetPort}/review`), ca }, 5000, httpConnectDialer({ kind: 'tcp', host: '127.0.0.1', port }, 'cp'));
    try {
      assert.deepEqual(JSON.parse(await backend.post('{}')), { path: '/review' });
      assert.deepEqual(JSON.parse(await backend.post('{}')), { path: '/review' });
      assert.deepEqual(proxy.tunnels, [`127.0.0.1:${targetPort}`]);
    } finally {
      backend.close();
      await proxy.close();
    }
  });
});
