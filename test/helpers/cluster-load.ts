/**
 * Load and observation for multi-server fault tests: writers that create ConfigMaps through several servers
 * (moving to the next server when one fails) and record every acknowledged write, and watchers that resume
 * from their last resourceVersion (relisting on 410) and record everything they learn.
 */
import { Agent, request } from 'node:https';
import type { Target } from './apiserver-process.js';

export interface Answer {
  status: number;
  text: string;
  json: any;
  ms: number;
}

/** One HTTPS client per server with kept-alive connections (64 writers would otherwise handshake per write). */
export class Endpoint {
  private readonly agent: Agent;
  constructor(readonly target: Target) {
    this.agent = new Agent({ keepAlive: true, maxSockets: 128, ca: target.caCertPem });
  }

  /** Rejects on a socket error or when no answer comes in `timeoutMs` (a hang). */
  call(method: string, path: string, body?: unknown, timeoutMs = 60_000): Promise<Answer> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers: Record<string, string> = { authorization: `Bearer ${this.target.adminToken}` };
    if (payload) Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(payload.length) });
    const t0 = performance.now();
    return new Promise((resolve, reject) => {
      const req = request(new URL(path, this.target.url), { method, headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, text, json, ms: performance.now() - t0 });
        });
        res.on('error', reject);
      });
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer to ${method} ${path} in ${timeoutMs} ms`)));
      req.on('error', reject);
      req.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

export interface Failure {
  server: number;
  /** HTTP status, or 0 for a socket error / timeout. */
  status: number;
  /** The body was a Status object whose code is the HTTP status. */
  statusBody: boolean;
  message: string;
  at: number;
}

/**
 * `count` writers creating ConfigMaps in `namespace`; writer i starts on server i mod n and moves to the next
 * server after a failure (as a client behind a load balancer would). Only 201 answers count as acknowledged.
 */
export class Writers {
  /** name -> resourceVersion of every acknowledged create. */
  readonly acked = new Map<string, number>();
  /** When each acknowledged write was answered, and by which server. */
  readonly ackLog: { at: number; server: number }[] = [];
  readonly failures: Failure[] = [];
  private running = true;
  private readonly done: Promise<void[]>;

  constructor(
    private readonly servers: () => (Endpoint | undefined)[],
    namespace: string,
    prefix: string,
    count = 64,
    /** Servers writers may use (default all). */
    private readonly allowed?: number[],
  ) {
    this.done = Promise.all(Array.from({ length: count }, (_, i) => this.writer(i, namespace, `${prefix}-w${i}`)));
  }

  private pick(start: number): number {
    const n = this.servers().length;
    const allowed = this.allowed ?? Array.from({ length: n }, (_, i) => i);
    return allowed[start % allowed.length] as number;
  }

  private async writer(i: number, namespace: string, prefix: string): Promise<void> {
    let turn = i;
    for (let n = 0; this.running; n++) {
      const server = this.pick(turn);
      const ep = this.servers()[server];
      if (!ep) {
        turn++;
        continue;
      }
      const name = `${prefix}-${n}`;
      const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { n: String(n) } };
      try {
        const res = await ep.call('POST', `/api/v1/namespaces/${namespace}/configmaps`, body);
        if (res.status === 201) {
          this.acked.set(name, Number(res.json.metadata.resourceVersion));
          this.ackLog.push({ at: Date.now(), server });
          continue;
        }
        const statusBody = res.json?.kind === 'Status' && res.json.code === res.status;
        this.failures.push({ server, status: res.status, statusBody, message: res.text.slice(0, 300), at: Date.now() });
      } catch (e) {
        this.failures.push({ server, status: 0, statusBody: false, message: (e as Error).message, at: Date.now() });
      }
      turn++; // next server, and a short pause so a dead server is not hammered
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  ackedSince(at: number, server?: number): number {
    return this.ackLog.filter((a) => a.at >= at && (server === undefined || a.server === server)).length;
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.done;
  }
}

/**
 * A watch like a client-go reflector's: when the stream ends or its server is gone it re-watches from the last
 * resourceVersion it saw (on the next server if the connection fails); a 410 makes it relist.
 */
export class ResumingWatcher {
  /** name -> resourceVersion, from events and relists. */
  readonly seen = new Map<string, number>();
  /** Broken promises found while reading: an event at or below the previous resourceVersion. */
  readonly orderViolations: string[] = [];
  reconnects = 0;
  relists = 0;
  lastRv: number;
  private server: number;
  private running = true;
  private current: { destroy(): void } | undefined;
  private readonly done: Promise<void>;

  constructor(
    private readonly servers: () => (Endpoint | undefined)[],
    server: number,
    private readonly namespace: string,
    fromRv: number,
  ) {
    this.server = server;
    this.lastRv = fromRv;
    this.done = this.loop();
  }

  private async loop(): Promise<void> {
    while (this.running) {
      const ep = this.servers()[this.server];
      let outcome: 'ended' | 'gone' | 'failed' = 'failed';
      if (ep) outcome = await this.stream(ep).catch(() => 'failed' as const);
      if (!this.running) return;
      this.reconnects++;
      if (outcome === 'failed') this.server = (this.server + 1) % this.servers().length;
      if (outcome === 'gone') await this.relist().catch(() => undefined);
      else await new Promise((r) => setTimeout(r, 100));
    }
  }

  private async relist(): Promise<void> {
    const ep = this.servers()[this.server];
    if (!ep) throw new Error('no server');
    const res = await ep.call('GET', `/api/v1/namespaces/${this.namespace}/configmaps`);
    if (res.status !== 200) throw new Error(`relist: ${res.status}`);
    for (const item of res.json.items) this.seen.set(item.metadata.name, Number(item.metadata.resourceVersion));
    this.lastRv = Number(res.json.metadata.resourceVersion);
    this.relists++;
  }

  /** One watch stream: resolves how it ended. */
  private stream(ep: Endpoint): Promise<'ended' | 'gone' | 'failed'> {
    const path = `/api/v1/namespaces/${this.namespace}/configmaps?watch=1&resourceVersion=${this.lastRv}`;
    const headers = { authorization: `Bearer ${ep.target.adminToken}` };
    return new Promise((resolve) => {
      let buf = '';
      let outcome: 'ended' | 'gone' | 'failed' = 'ended';
      const req = request(new URL(path, ep.target.url), { headers, ca: ep.target.caCertPem, agent: false }, (res) => {
        if (res.statusCode === 410) outcome = 'gone';
        else if (res.statusCode !== 200) outcome = 'failed';
        res.on('data', (c: Buffer) => {
          if (res.statusCode !== 200) return;
          buf += c.toString('utf8');
          let i;
          while ((i = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, i);
            buf = buf.slice(i + 1);
            if (line.trim()) outcome = this.onEvent(JSON.parse(line)) ?? outcome;
          }
        });
        res.on('end', () => resolve(outcome));
        res.on('error', () => resolve(outcome === 'gone' ? 'gone' : 'failed'));
        res.on('close', () => resolve(outcome));
      });
      this.current = req;
      req.on('error', () => resolve('failed'));
      req.end();
    });
  }

  private onEvent(ev: any): 'gone' | undefined {
    if (ev.type === 'ERROR') return ev.object?.code === 410 ? 'gone' : undefined;
    const rv = Number(ev.object?.metadata?.resourceVersion);
    if (ev.type === 'BOOKMARK') {
      this.lastRv = Math.max(this.lastRv, rv);
      return undefined;
    }
    if (!(rv > this.lastRv)) this.orderViolations.push(`${ev.type} ${ev.object?.metadata?.name} at ${rv} after ${this.lastRv}`);
    this.lastRv = Math.max(this.lastRv, rv);
    if (ev.type === 'DELETED') this.seen.delete(ev.object.metadata.name);
    else this.seen.set(ev.object.metadata.name, rv);
    return undefined;
  }

  /** Acknowledged writes after `fromRv` this watcher has not learned about (name@rv). */
  missing(acked: Map<string, number>, fromRv: number): string[] {
    const out: string[] = [];
    for (const [name, rv] of acked) if (rv > fromRv && this.seen.get(name) !== rv) out.push(`${name}@${rv}`);
    return out;
  }

  async stop(): Promise<void> {
    this.running = false;
    this.current?.destroy();
    await this.done;
  }
}
