/**
 * HTTP/2 to webhooks that offer it. The reference's client negotiates HTTP/2 by ALPN and multiplexes every
 * call to one webhook over one connection; with node's HTTP/1.1 client each call costs a pooled socket,
 * a request object and a `writev`, and node's HTTP/2 client still ~60 µs of CPU, so calls go through the
 * lean client of util/h2. The first call to a target opens a TLS connection offering `h2` and `http/1.1`;
 * what the webhook picks is remembered for the target, so a webhook that speaks only HTTP/1.1 is served by
 * the keep-alive pool from then on.
 */
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import type { Dialer } from '../../util/dialer.js';
import { H2Client } from '../../util/h2/client.js';

/** What a target turned out to speak. */
export type Protocol = 'h2' | 'http/1.1';

/** Where to connect and what to verify; the same fields as the HTTP/1.1 pool's target. */
export interface H2Target {
  readonly host: string;
  readonly port: number;
  readonly serverName: string;
  readonly ca?: string;
  readonly poolKey: string;
  /** The egress selection's way to the target; undefined connects directly. */
  readonly dialer?: Dialer;
}

/** An idle HTTP/2 connection is closed after this long, as the HTTP/1.1 pool's sockets are. */
const IDLE_MS = 60_000;
/** Remembered protocol decisions; more distinct targets than this and the oldest is forgotten. */
const MAX_TARGETS = 128;

const protocols = new Map<string, Protocol>();
const sessions = new Map<string, H2Client>();
const pending = new Map<string, Promise<H2Client | undefined>>();

/** What is known of the target's protocol, without connecting. */
export function knownProtocol(t: H2Target): Protocol | undefined {
  return protocols.get(t.poolKey);
}

function remember(key: string, p: Protocol): void {
  protocols.delete(key);
  protocols.set(key, p);
  if (protocols.size > MAX_TARGETS) protocols.delete(protocols.keys().next().value as string);
}

/**
 * The target's live HTTP/2 session, opening one if needed; undefined when the target speaks only HTTP/1.1
 * (then remembered). Rejects with the connection error when the connection cannot be made.
 */
export function h2Session(t: H2Target, isIP: boolean, maxAnswerBytes: number): H2Client | 'http/1.1' | Promise<H2Client | undefined> {
  const live = sessions.get(t.poolKey);
  if (live && live.usable) return live;
  if (protocols.get(t.poolKey) === 'http/1.1') return 'http/1.1';
  let p = pending.get(t.poolKey);
  if (!p) {
    p = connect(t, isIP, maxAnswerBytes).finally(() => pending.delete(t.poolKey));
    pending.set(t.poolKey, p);
  }
  return p;
}

async function connect(t: H2Target, isIP: boolean, maxAnswerBytes: number): Promise<H2Client | undefined> {
  const tunnel = t.dialer ? await t.dialer.dial(t.host, t.port) : undefined;
  return handshake(t, isIP, tunnel, maxAnswerBytes);
}

function handshake(t: H2Target, isIP: boolean, tunnel: Duplex | undefined, maxAnswerBytes: number): Promise<H2Client | undefined> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({
      ...(tunnel ? { socket: tunnel } : { host: t.host, port: t.port }),
      ...(isIP ? {} : { servername: t.serverName }),
      ...(t.ca !== undefined ? { ca: t.ca } : {}),
      ALPNProtocols: ['h2', 'http/1.1'],
      // The certificate must carry the name the configuration gives, which for a service is not the
      // address dialled.
      checkServerIdentity: (_host, cert) => tls.checkServerIdentity(t.serverName, cert),
    });
    const fail = (e: Error) => {
      socket.destroy();
      reject(e);
    };
    socket.once('error', fail);
    socket.once('secureConnect', () => {
      socket.off('error', fail);
      if (socket.alpnProtocol !== 'h2') {
        remember(t.poolKey, 'http/1.1');
        socket.destroy();
        return resolve(undefined);
      }
      remember(t.poolKey, 'h2');
      const authority = t.port === 443 ? t.serverName : `${t.serverName.includes(':') ? `[${t.serverName}]` : t.serverName}:${t.port}`;
      const session = new H2Client(socket, authority, { maxBodyBytes: maxAnswerBytes, idleMs: IDLE_MS });
      session.onUnusable(() => {
        if (sessions.get(t.poolKey) === session) sessions.delete(t.poolKey);
      });
      // An idle connection must not keep the process alive; a call in flight holds the client's deadline timer.
      socket.unref();
      sessions.set(t.poolKey, session);
      resolve(session);
    });
  });
}

/** Closes every HTTP/2 connection and forgets what targets speak (tests and shutdown). */
export function closeH2Sessions(): void {
  for (const s of sessions.values()) s.destroy();
  sessions.clear();
  protocols.clear();
}
