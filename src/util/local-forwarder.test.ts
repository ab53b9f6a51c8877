import assert from 'node:assert/strict';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { Dialer } from './dialer.js';
import { startLocalForwarder } from './local-forwarder.js';

/** A Dialer that connects directly and records what it was asked for, or fails while `failWith` is set. */
function recordingDialer(): Dialer & { asked: string[]; failWith?: string } {
  const d: Dialer & { asked: string[]; failWith?: string } = {
    id: 'test',
    asked: [],
    dial(host, port) {
      d.asked.push(`${host}:${port}`);
      if (d.failWith !== undefined) return Promise.reject(new Error(d.failWith));
      return new Promise<Duplex>((resolve, reject) => {
        const s = net.connect({ host, port }, () => resolve(s));
        s.once('error', reject);
      });
    },
  };
  return d;
}

/** Sends `text`, half-closes, and resolves with everything read until the other side closes. */
function exchange(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: '127.0.0.1', port }, () => s.end(text));
    let got = '';
    s.on('data', (c) => (got += c));
    s.on('close', () => resolve(got));
    s.on('error', reject);
  });
}

describe('the loopback forwarder used for etcd through the egress selector (spec 2.12)', () => {
  let echo: net.Server;
  let echoPort: number;
  before(async () => {
    echo = net.createServer((s) => {
      let all = '';
      s.on('data', (c) => (all += c));
      s.on('end', () => s.end(`echo:${all}`));
    });
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    echoPort = (echo.address() as net.AddressInfo).port;
  });
  after(() => echo.close());

  it('spec 2.12: bytes written before the tunnel is up reach the remote end, and the answer comes back', async () => {
    const dialer = recordingDialer();
    const f = await startLocalForwarder(dialer, '127.0.0.1', echoPort);
    try {
      assert.equal(await exchange(f.port, 'hello'), 'echo:hello');
      assert.deepEqual(dialer.asked, [`127.0.0.1:${echoPort}`]);
      assert.equal(f.lastFailure(), undefined);
    } finally {
      await f.close();
    }
  });

  it('spec 2.12: a failed dial closes the local connection and is kept as the last failure until a dial succeeds', async () => {
    const dialer = recordingDialer();
    const f = await startLocalForwarder(dialer, '127.0.0.1', echoPort);
    try {
      dialer.failWith = 'proxy refused';
      assert.equal(await exchange(f.port, 'x'), '');
      assert.equal(f.lastFailure(), 'proxy refused');
      delete dialer.failWith;
      assert.equal(await exchange(f.port, 'y'), 'echo:y');
      assert.equal(f.lastFailure(), undefined);
    } finally {
      await f.close();
    }
  });

  it('spec 2.12: closing the forwarder cuts open tunnels and stops listening', async () => {
    const f = await startLocalForwarder(recordingDialer(), '127.0.0.1', echoPort);
    const open = net.connect({ host: '127.0.0.1', port: f.port });
    await new Promise((r) => open.once('connect', r));
    await new Promise((r) => setTimeout(r, 50)); // let the tunnel come up
    const closed = new Promise((r) => open.once('close', r));
    await f.close();
    await closed;
    const refused = await new Promise<string>((r) => {
      const s = net.connect({ host: '127.0.0.1', port: f.port });
      s.once('error', (e: NodeJS.ErrnoException) => r(e.code ?? ''));
      s.once('connect', () => r('connected'));
    });
    assert.equal(refused, 'ECONNREFUSED');
  });
});
