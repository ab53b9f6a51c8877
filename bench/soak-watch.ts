/**
 * The soak's long-lived watches: each one consumes its events, counts them, checks that resourceVersions only
 * grow, and resumes from the last one it saw whenever the server ends the stream (timeout, connection loss).
 * After 410 Gone it relists and is excluded from the event count. node:http2 here, not the lean client:
 * that one returns whole bodies only.
 */
import { connect, type ClientHttp2Session } from 'node:http2';
import { parseWatchLine } from './soak-stats.js';
import type { Target } from './api.js';

export interface WatchSpec {
  namespace: string;
  /** A label selector, or none for the whole namespace. */
  selector?: string;
  /** The writes this watch should see are counted under this key. */
  key: string;
}

export interface WatchState {
  spec: WatchSpec;
  received: number;
  lastRv: number;
  outOfOrder: number;
  reconnects: number;
  relisted: boolean;
  errors: number;
}

const RETRY_MS = 1000;

export class WatchFleet {
  readonly states: WatchState[];
  readonly errorSamples: string[] = [];
  private readonly sessions: Array<ClientHttp2Session | undefined>;
  private closing = false;
  private readonly open = new Set<import('node:http2').ClientHttp2Stream>();

  constructor(private readonly target: Target, specs: readonly WatchSpec[], connections: number) {
    this.states = specs.map((spec) => ({ spec, received: 0, lastRv: NaN, outOfOrder: 0, reconnects: 0, relisted: false, errors: 0 }));
    this.sessions = new Array(connections).fill(undefined);
  }

  /** Opens every watch from the resourceVersion of its namespace's initial list. */
  start(startRv: ReadonlyMap<string, number>): void {
    this.states.forEach((s, i) => {
      s.lastRv = startRv.get(s.spec.namespace)!;
      this.watch(s, i);
    });
  }

  close(): void {
    this.closing = true;
    for (const st of this.open) st.close();
    for (const s of this.sessions) s?.close();
  }

  private session(i: number): ClientHttp2Session {
    const k = i % this.sessions.length;
    let s = this.sessions[k];
    if (!s || s.closed || s.destroyed) {
      s = connect(this.target.url, { ...(this.target.ca ? { ca: this.target.ca } : {}), rejectUnauthorized: !this.target.insecure });
      s.on('error', (e) => this.note(`watch connection: ${e.message}`));
      this.sessions[k] = s;
    }
    return s;
  }

  private note(message: string): void {
    if (this.errorSamples.length < 20 && !this.errorSamples.includes(message)) this.errorSamples.push(message);
  }

  private headers(path: string): Record<string, string> {
    return { ':path': path, authorization: `Bearer ${this.target.token}`, accept: 'application/json' };
  }

  private watch(s: WatchState, i: number): void {
    if (this.closing) return;
    const sel = s.spec.selector ? `&labelSelector=${encodeURIComponent(s.spec.selector)}` : '';
    const path = `/api/v1/namespaces/${s.spec.namespace}/configmaps?watch=1&allowWatchBookmarks=true&resourceVersion=${s.lastRv}${sel}`;
    let st: import('node:http2').ClientHttp2Stream;
    try {
      st = this.session(i).request(this.headers(path));
    } catch (e) {
      s.errors++;
      this.note(`watch request: ${(e as Error).message}`);
      setTimeout(() => this.watch(s, i), RETRY_MS).unref();
      return;
    }
    this.open.add(st);
    let status = 0;
    let gone = false;
    let buf = '';
    st.setEncoding('utf8');
    st.on('response', (h) => (status = Number(h[':status'])));
    st.on('data', (chunk: string) => {
      if (status !== 200) return void (buf.length < 300 && (buf += chunk));
      buf += chunk;
      let from = 0;
      for (let nl = buf.indexOf('\n', from); nl >= 0; nl = buf.indexOf('\n', from)) {
        const line = buf.slice(from, nl);
        from = nl + 1;
        if (line.length === 0) continue;
        const e = parseWatchLine(line);
        if (!e) {
          s.errors++;
          this.note(`unreadable watch line: ${line.slice(0, 120)}`);
        } else if (e.type === 'ERROR') {
          if (e.code === 410) gone = true;
          else (s.errors++, this.note(`watch ERROR event: ${line.slice(0, 200)}`));
        } else if (e.type === 'BOOKMARK') {
          if (e.rv > s.lastRv) s.lastRv = e.rv;
        } else {
          s.received++;
          if (!(e.rv > s.lastRv)) s.outOfOrder++;
          else s.lastRv = e.rv;
        }
      }
      buf = buf.slice(from);
    });
    st.on('error', (e) => this.note(`watch stream: ${e.message}`));
    st.on('close', () => {
      this.open.delete(st);
      if (this.closing) return;
      s.reconnects++;
      if (status !== 200 && status !== 0) {
        if (status === 410) gone = true;
        else (s.errors++, this.note(`watch answered ${status}: ${buf.slice(0, 200)}`));
      }
      if (gone) return void this.relist(s, i);
      // A stream the server ended cleanly resumes at once; a failed one after a pause.
      setTimeout(() => this.watch(s, i), status === 200 ? 0 : RETRY_MS).unref();
    });
  }

  /** 410 Gone: the events since lastRv are compacted away; start again from a fresh list. */
  private relist(s: WatchState, i: number): void {
    s.relisted = true;
    const st = this.session(i).request(this.headers(`/api/v1/namespaces/${s.spec.namespace}/configmaps?limit=1`));
    let body = '';
    st.setEncoding('utf8');
    st.on('data', (c: string) => (body += c));
    st.on('error', (e) => this.note(`relist: ${e.message}`));
    st.on('close', () => {
      try {
        s.lastRv = Number(JSON.parse(body).metadata.resourceVersion);
      } catch {
        s.errors++;
      }
      setTimeout(() => this.watch(s, i), Number.isFinite(s.lastRv) ? 0 : RETRY_MS).unref();
    });
  }
}
