/**
 * A loopback listener that carries every connection it accepts to one remote host:port through a Dialer.
 * Clients that cannot be handed a custom connection (the gRPC channel to etcd) dial the loopback address
 * instead, and their bytes travel through the egress proxy unchanged (TLS, when used, is end to end).
 */
import net from 'node:net';
import type { Duplex } from 'node:stream';
import type { Dialer } from './dialer.js';

export interface LocalForwarder {
  /** The loopback port to dial instead of the remote one. */
  readonly port: number;
  /** Why the latest dial through the Dialer failed; cleared by the next one that succeeds. */
  lastFailure(): string | undefined;
  /** Stops listening and cuts every forwarded connection. */
  close(): Promise<void>;
}

export async function startLocalForwarder(dialer: Dialer, host: string, port: number): Promise<LocalForwarder> {
  const open = new Set<Duplex>();
  let failure: string | undefined;
  let closed = false;
  const track = (s: Duplex) => {
    open.add(s);
    s.once('close', () => open.delete(s));
  };
  // Half-open allowed: a client that finished sending still gets the rest of the answer.
  const server = net.createServer({ allowHalfOpen: true }, (local) => {
    track(local);
    local.on('error', () => undefined); // the 'close' that follows cleans up
    // The client's first bytes stay buffered in `local` (nothing reads it) until the tunnel is up.
    dialer.dial(host, port).then(
      (remote) => {
        failure = undefined;
        if (closed || local.destroyed) return void remote.destroy();
        track(remote);
        remote.on('error', () => undefined);
        // pipe() carries a clean end (FIN) across; a side that vanished without one takes the other down
        // rather than leave it waiting. A side already ended keeps flushing what it was given.
        remote.once('close', () => void (local.writableEnded || local.destroy()));
        local.once('close', () => void (remote.writableEnded || remote.destroy()));
        remote.pipe(local);
        local.pipe(remote);
      },
      (e: unknown) => {
        failure = e instanceof Error ? e.message : String(e);
        local.destroy();
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    lastFailure: () => failure,
    async close() {
      closed = true;
      const done = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of open) s.destroy();
      await done;
    },
  };
}
