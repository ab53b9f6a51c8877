/**
 * The soak's request load: paced writers that cycle a bounded working set of ConfigMaps (create, update by
 * get + put, merge patch, server-side apply, delete) and paced readers (get, full list, paginated list).
 * Every answer is classified and timed in a LatencyBook; each acknowledged write is counted under the keys
 * of the watches that must see it.
 */
import type { Target } from './api.js';
import { H2Client } from './h2-client.js';
import { classify, type LatencyBook } from './soak-stats.js';
import type { WatchSpec } from './soak-watch.js';

export interface Layout {
  namespaces: string[];
  objects: number;
  /** Shards per namespace: the `soak-shard` label that selector watches filter on. */
  shards: number;
}

export const SHARD_LABEL = 'soak-shard';
export const nameOf = (k: number) => `cm-${k}`;
export const namespaceOf = (l: Layout, k: number) => l.namespaces[k % l.namespaces.length]!;
export const shardOf = (l: Layout, k: number) => Math.floor(k / l.namespaces.length) % l.shards;

/** Watch j goes to namespace j mod N; in each namespace the first fifth watch everything, the rest one shard each. */
export function watchSpecs(namespaces: readonly string[], watchers: number): { specs: WatchSpec[]; shards: number } {
  const perNs = Math.ceil(watchers / namespaces.length);
  const whole = Math.max(1, Math.round(perNs / 5));
  const shards = Math.max(1, perNs - whole);
  const specs = Array.from({ length: watchers }, (_, j): WatchSpec => {
    const namespace = namespaces[j % namespaces.length]!;
    const slot = Math.floor(j / namespaces.length);
    if (slot < whole) return { namespace, key: namespace };
    const shard = (slot - whole) % shards;
    return { namespace, selector: `${SHARD_LABEL}=${shard}`, key: `${namespace}/${shard}` };
  });
  return { specs, shards };
}

const REQUEST_TIMEOUT_MS = 30_000;
const PAGE = 100;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Paces one worker at `perSecond` operations (0: unpaced); after falling behind it does not burst to catch up. */
export function pacer(perSecond: number): () => Promise<void> {
  if (!(perSecond > 0)) return async () => undefined;
  const interval = 1000 / perSecond;
  let next = performance.now() + Math.random() * interval;
  return async () => {
    const now = performance.now();
    if (next < now - interval) next = now;
    const wait = next - now;
    next += interval;
    if (wait > 0) await sleep(wait);
  };
}

/** HTTP/2 connections shared by the workers; a connection that failed is replaced on the next use. */
class Pool {
  private readonly conns: Array<Promise<H2Client>>;
  constructor(private readonly target: Target, n: number) {
    this.conns = Array.from({ length: n }, () => this.open());
  }
  private open(): Promise<H2Client> {
    return H2Client.connect(this.target.url, { ...(this.target.ca ? { ca: this.target.ca } : {}), ...(this.target.insecure ? { insecure: true } : {}) });
  }
  get(w: number): Promise<H2Client> {
    return this.conns[w % this.conns.length]!;
  }
  renew(w: number, failed: Promise<H2Client>): void {
    const k = w % this.conns.length;
    if (this.conns[k] !== failed) return;
    failed.then((c) => c.close(), () => undefined);
    this.conns[k] = this.open();
    this.conns[k]!.catch(() => undefined);
  }
  close(): void {
    for (const c of this.conns) c.then((x) => x.close(), () => undefined);
  }
}

export interface LoadOptions {
  writers: number;
  readers: number;
  writeRate: number;
  readRate: number;
  connections: number;
}

export class Load {
  /** Acknowledged writes per watch key: a namespace, or namespace/shard. */
  readonly acked = new Map<string, number>();
  readonly errorSamples = new Map<string, number>();
  writes = 0;
  private stopped = false;
  private seq = 0;
  private readonly pool: Pool;
  private readonly payload = 'x'.repeat(1024);

  constructor(private readonly target: Target, private readonly layout: Layout, private readonly book: LatencyBook, private readonly opts: LoadOptions) {
    this.pool = new Pool(target, opts.connections);
  }

  /** Runs every worker until stop(); resolves when all have finished their current request. */
  run(): Promise<void> {
    const { writers, readers } = this.opts;
    const per = Math.ceil(this.layout.objects / writers);
    return Promise.all([
      ...Array.from({ length: writers }, (_, w) => this.writer(w, w * per, Math.min(this.layout.objects, (w + 1) * per))),
      ...Array.from({ length: readers }, (_, r) => this.reader(writers + r)),
    ]).then(() => this.pool.close());
  }

  stop(): void {
    this.stopped = true;
  }

  private async call(w: number, verb: string, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<{ status: number; body: Buffer } | undefined> {
    const conn = this.pool.get(w);
    const headers: Record<string, string> = { authorization: `Bearer ${this.target.token}`, accept: 'application/json' };
    let payload: Buffer | undefined;
    if (body !== undefined) (payload = Buffer.from(JSON.stringify(body))), (headers['content-type'] = contentType);
    const t0 = performance.now();
    let timer: NodeJS.Timeout | undefined;
    try {
      const r = await Promise.race([
        conn.then((c) => c.request(method, path, headers, payload)),
        new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer in ${REQUEST_TIMEOUT_MS} ms`)), REQUEST_TIMEOUT_MS))),
      ]);
      const now = performance.now();
      const outcome = classify(r.status);
      this.book.record(verb, outcome, now - t0, now);
      if (outcome === 'error') this.sample(`${verb} ${r.status}: ${r.body.toString('utf8', 0, 160)}`);
      return r;
    } catch (e) {
      const now = performance.now();
      this.book.record(verb, 'error', now - t0, now);
      this.sample(`${verb}: ${(e as Error).message.slice(0, 160)}`);
      this.pool.renew(w, conn);
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  private sample(message: string): void {
    const key = message.replace(/cm-\d+/g, 'cm-N').replace(/\d{3,}/g, 'N');
    if (this.errorSamples.has(key) || this.errorSamples.size < 50) this.errorSamples.set(key, (this.errorSamples.get(key) ?? 0) + 1);
  }

  private ack(k: number): void {
    this.writes++;
    const ns = namespaceOf(this.layout, k);
    const shard = `${ns}/${shardOf(this.layout, k)}`;
    this.acked.set(ns, (this.acked.get(ns) ?? 0) + 1);
    this.acked.set(shard, (this.acked.get(shard) ?? 0) + 1);
  }

  /** Owns the objects [from, to); it alone writes them, so it knows which exist. */
  private async writer(w: number, from: number, to: number): Promise<void> {
    const pace = pacer(this.opts.writeRate / this.opts.writers);
    const exists = new Uint8Array(to - from);
    while (!this.stopped) {
      await pace();
      if (this.stopped) break;
      const i = Math.floor(Math.random() * (to - from));
      const k = from + i;
      const base = `/api/v1/namespaces/${namespaceOf(this.layout, k)}/configmaps`;
      const path = `${base}/${nameOf(k)}`;
      const seq = String(++this.seq); // every change differs from the stored object, so every write is an event
      const dice = Math.random();
      let r: { status: number; body: Buffer } | undefined;
      if (!exists[i]) {
        const metadata = { name: nameOf(k), labels: { [SHARD_LABEL]: String(shardOf(this.layout, k)) } };
        r = await this.call(w, 'create', 'POST', base, { apiVersion: 'v1', kind: 'ConfigMap', metadata, data: { payload: this.payload, seq } });
        if (r && (r.status === 201 || r.status === 409)) exists[i] = 1;
      } else if (dice < 0.2) {
        r = await this.call(w, 'delete', 'DELETE', path);
        if (r && (r.status === 200 || r.status === 404)) exists[i] = 0;
      } else if (dice < 0.45) {
        const cur = await this.call(w, 'get', 'GET', path);
        if (cur?.status === 404) exists[i] = 0;
        if (cur?.status !== 200) continue;
        const obj = JSON.parse(cur.body.toString());
        obj.data = { ...obj.data, updated: seq };
        r = await this.call(w, 'update', 'PUT', path, obj);
      } else if (dice < 0.75) {
        r = await this.call(w, 'patch-merge', 'PATCH', path, { data: { merged: seq } }, 'application/merge-patch+json');
      } else {
        r = await this.call(w, 'patch-apply', 'PATCH', `${path}?fieldManager=soak-apply&force=true`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: nameOf(k) }, data: { applied: seq } }, 'application/apply-patch+yaml');
      }
      if (r?.status === 404) exists[i] = 0;
      if (r && r.status >= 200 && r.status < 300) this.ack(k);
    }
  }

  private async reader(w: number): Promise<void> {
    const pace = pacer(this.opts.readRate / this.opts.readers);
    const { namespaces, objects } = this.layout;
    while (!this.stopped) {
      await pace();
      if (this.stopped) break;
      const dice = Math.random();
      const ns = namespaces[Math.floor(Math.random() * namespaces.length)]!;
      if (dice < 0.8) {
        const k = Math.floor(Math.random() * objects);
        await this.call(w, 'get', 'GET', `/api/v1/namespaces/${namespaceOf(this.layout, k)}/configmaps/${nameOf(k)}`);
      } else if (dice < 0.9) {
        await this.call(w, 'list', 'GET', `/api/v1/namespaces/${ns}/configmaps`);
      } else {
        let cont = '';
        do {
          const r = await this.call(w, 'list-page', 'GET', `/api/v1/namespaces/${ns}/configmaps?limit=${PAGE}${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
          cont = r?.status === 200 ? continueToken(r.body) : '';
        } while (cont && !this.stopped);
      }
    }
  }
}

/** A list's continue token from the head of its body (metadata precedes items), without decoding the items. */
export function continueToken(body: Buffer): string {
  const head = body.toString('utf8', 0, Math.min(body.length, 4096));
  const m = /"metadata":\{[^{}]*?"continue":"([^"]*)"/.exec(head);
  if (m) return m[1]!;
  if (/"metadata":\{[^{}]*\}/.test(head)) return '';
  return JSON.parse(body.toString()).metadata?.continue ?? '';
}
