import assert from 'node:assert/strict';
import { connect } from 'node:http2';
import { Agent, request as httpsRequest } from 'node:https';
import { describe, it } from 'node:test';
import { startServer } from '../index.js';

// The reference's http.Server.Shutdown: idle keep-alive connections close at once, a request already read
// gets its whole answer (HTTP/1.1 with `Connection: close`), and watch streams end cleanly (HTTP/1.1: the
// chunked body's last chunk; HTTP/2: END_STREAM after a GOAWAY), so close() needs no deadline.

const CM = '/api/v1/namespaces/default/configmaps';

describe('shutdown drains connections (reference behaviour: http.Server.Shutdown)', () => {
  it('idle keep-alive connections close, a request read before the drain gets its whole answer with Connection: close, watches end cleanly', async () => {
    const server = await startServer({ port: 0, storage: { type: 'memory' } });
    const auth = { authorization: `Bearer ${server.adminToken}` };
    const url = (p: string) => new URL(p, server.url);

    // An idle keep-alive connection.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const idleClosed = new Promise<void>((resolve, reject) => {
      const req = httpsRequest(url(CM), { agent, ca: server.caCertPem, headers: auth }, (res) => {
        res.resume();
        res.on('end', () => setImmediate(() => {
          const sockets = Object.values(agent.freeSockets).flat();
          assert.equal(sockets.length, 1, 'the connection is kept alive');
          sockets[0]!.once('close', () => resolve());
        }));
      });
      req.on('error', reject);
      req.end();
    });

    // A watch over HTTP/1.1 and one over HTTP/2.
    const http1Watch = new Promise<string>((resolve, reject) => {
      const req = httpsRequest(url(`${CM}?watch=1`), { agent: false, ca: server.caCertPem, headers: auth }, (res) => {
        res.resume();
        res.on('end', () => resolve('end'));
        res.on('aborted', () => resolve('aborted'));
      });
      req.on('error', reject);
      req.end();
    });
    const session = connect(server.url, { ca: server.caCertPem });
    const goaway = new Promise<void>((r) => session.once('goaway', () => r()));
    const h2Watch = new Promise<string>((resolve) => {
      const stream = session.request({ ':path': `${CM}?watch=1`, ...auth });
      stream.resume();
      stream.on('end', () => resolve('end'));
      stream.on('error', (e) => resolve(String(e)));
    });

    // A create whose body is half sent when the drain begins.
    const body = Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'late' }, data: { k: 'v' } }));
    let headersSeen!: () => void;
    const serverHasIt = new Promise<void>((r) => (headersSeen = r));
    let startDrain!: () => void;
    const drainStarted = new Promise<void>((r) => (startDrain = r));
    const halfSent = new Promise<{ status: number; connection: string | undefined; json: { metadata: { name: string } } }>((resolve, reject) => {
      const req = httpsRequest(
        url(CM),
        // `Expect: 100-continue`: the interim answer shows the server has read the headers.
        { method: 'POST', agent: false, ca: server.caCertPem, headers: { ...auth, 'content-type': 'application/json', 'content-length': String(body.length), expect: '100-continue' } },
        (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, json: JSON.parse(text) }));
        },
      );
      req.on('error', reject);
      req.once('continue', () => {
        req.write(body.subarray(0, 10));
        headersSeen();
      });
      void drainStarted.then(() => req.end(body.subarray(10)));
    });
    await serverHasIt;

    const t0 = Date.now();
    const closed = server.close();
    startDrain();
    const created = await halfSent;
    assert.equal(created.status, 201);
    assert.equal(created.json.metadata.name, 'late');
    assert.equal(created.connection, 'close', 'the answer tells the client the connection closes');
    await idleClosed;
    assert.equal(await http1Watch, 'end', 'the HTTP/1.1 watch ends with its last chunk');
    assert.equal(await h2Watch, 'end', 'the HTTP/2 watch ends with END_STREAM');
    await goaway;
    await closed;
    assert.ok(Date.now() - t0 < 4000, `close() finished without waiting out the drain deadline (${Date.now() - t0} ms)`);
    session.destroy();
    agent.destroy();
  });
});
