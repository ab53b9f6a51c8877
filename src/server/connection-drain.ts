import type { Http2SecureServer, ServerHttp2Session } from 'node:http2';
import type { Socket } from 'node:net';
import type { Res } from './http.js';

/**
 * The server's connections and requests in progress, so that a shutdown drains them as the reference's
 * `http.Server.Shutdown` does: idle keep-alive connections close at once, a connection with a request in
 * progress closes right after its answer (HTTP/1.1 `Connection: close`, HTTP/2 GOAWAY), and a request that
 * arrives on a closing connection is refused unread. So every request the handlers saw gets its whole
 * answer, and a client whose request got no answer knows it was never applied.
 *
 * Without this, keep-alive clients under load keep the server busy until the hard deadline, which then cuts
 * off requests whose writes were already applied.
 */
export class ConnectionDrain {
  private readonly sockets = new Set<Socket>();
  private readonly sessions = new Set<ServerHttp2Session>();
  /** HTTP/1.1 answers in progress, by connection. */
  private readonly active = new Map<Socket, Set<Res>>();
  private inFlight = 0;
  private draining = false;
  private idle: (() => void) | undefined;

  constructor(server: Http2SecureServer) {
    server.on('secureConnection', (s: Socket) => {
      this.sockets.add(s);
      s.once('close', () => this.sockets.delete(s));
    });
    server.on('session', (session: ServerHttp2Session) => {
      this.sessions.add(session);
      session.once('close', () => this.sessions.delete(session));
      if (this.draining) session.close();
    });
  }

  /**
   * Registers a request about to be served (`http1Socket` for HTTP/1.1). False: the server is draining and
   * the request came on a connection that is closing; the connection is dropped and the request not served.
   */
  admit(res: Res, http1Socket?: Socket): boolean {
    if (this.draining && http1Socket) {
      http1Socket.destroy();
      return false;
    }
    this.inFlight++;
    if (http1Socket) {
      let answers = this.active.get(http1Socket);
      if (!answers) this.active.set(http1Socket, (answers = new Set()));
      answers.add(res);
    }
    res.once('close', () => this.finished(res, http1Socket));
    return true;
  }

  private finished(res: Res, http1Socket: Socket | undefined): void {
    if (http1Socket) {
      const answers = this.active.get(http1Socket);
      answers?.delete(res);
      if (answers?.size === 0) {
        this.active.delete(http1Socket);
        // Its headers went out before the drain began, so they did not say `Connection: close`.
        if (this.draining) http1Socket.destroySoon();
      }
    }
    if (--this.inFlight === 0) this.idle?.();
  }

  /**
   * Starts draining (call after the listener stopped accepting) and resolves when no request is in progress.
   * A connection is closed once its answers are written out (never before: `destroySoon`), and without
   * reading anything more from it.
   */
  drain(): Promise<void> {
    this.draining = true;
    for (const session of this.sessions) session.close();
    for (const s of this.sockets) {
      if (isHttp2(s)) continue;
      const answers = this.active.get(s);
      if (!answers) s.destroySoon();
      else for (const res of answers) if (!res.headersSent) res.setHeader('Connection', 'close');
    }
    return new Promise<void>((resolve) => {
      this.idle = () => {
        // HTTP/2 sessions close themselves once their last stream is done (session.close() above).
        for (const s of this.sockets) if (!isHttp2(s)) s.destroySoon();
        resolve();
      };
      if (this.inFlight === 0) this.idle();
    });
  }

  /** Cuts every connection (a request still in progress past the deadline loses its answer). */
  destroyAll(): void {
    for (const s of this.sockets) s.destroy();
  }
}

const isHttp2 = (s: Socket): boolean => (s as { alpnProtocol?: string | false }).alpnProtocol === 'h2';
