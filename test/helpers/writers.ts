import assert from 'node:assert/strict';
import { Agent, request as httpsRequest } from 'node:https';
import type { Target } from './apiserver-process.js';
import { client } from './client.js';

/**
 * Concurrent ConfigMap writers for durability tests. Each writer has its own keep-alive connection (an agent
 * with one socket) and owns its names, so nothing it does conflicts with another writer: it creates a name,
 * updates it a few times with the resourceVersion it was last given, then moves on to a new name.
 *
 * The ledger keeps, per name, the last write the server acknowledged (2xx) and the write still unanswered,
 * which is the only one that may have been applied without an answer.
 */

export const CM_PATH = '/api/v1/namespaces/default/configmaps';
const UPDATES_PER_NAME = 3;

export interface Acked {
  rv: number;
  data: Record<string, string>;
}

export interface Ledger {
  /** name -> the last acknowledged write. */
  acked: Map<string, Acked>;
  /** name -> data of a write sent but never answered (the writer stopped there). */
  unanswered: Map<string, Record<string, string>>;
  /** Answers that were neither 2xx nor expected; a healthy run has none. */
  unexpected: string[];
  /** Requests whose response had started but was cut off (headers seen, body never ended). */
  cutOff: string[];
  /** How each writer stopped (the first network error), for messages. */
  stopReasons: string[];
}

export const newLedger = (): Ledger => ({ acked: new Map(), unanswered: new Map(), unexpected: [], cutOff: [], stopReasons: [] });

/** Largest acknowledged resourceVersion in a ledger. */
export const maxAckedRv = (l: Ledger): number => Math.max(0, ...[...l.acked.values()].map((a) => a.rv));

type Outcome =
  | { kind: 'answer'; status: number; json: any; text: string }
  | { kind: 'refused'; error: string }
  | { kind: 'cut-off'; error: string };

/** One request on the writer's agent; a network error is `refused` before response headers, `cut-off` after. */
function send(target: Target, agent: Agent, method: string, path: string, body: unknown): Promise<Outcome> {
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve) => {
    let settled = false;
    const done = (o: Outcome) => {
      if (settled) return;
      settled = true;
      resolve(o);
    };
    const req = httpsRequest(
      new URL(path, target.url),
      {
        method,
        agent,
        ca: target.caCertPem,
        headers: { authorization: `Bearer ${target.adminToken}`, 'content-type': 'application/json', 'content-length': String(payload.length) },
      },
      (res) => {
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
          done({ kind: 'answer', status: res.statusCode ?? 0, json, text });
        });
        res.on('aborted', () => done({ kind: 'cut-off', error: 'response aborted' }));
        res.on('error', (e) => done({ kind: 'cut-off', error: String(e) }));
      },
    );
    req.on('error', (e) => done({ kind: 'refused', error: (e as NodeJS.ErrnoException).code ?? String(e) }));
    req.end(payload);
  });
}

export interface WriterPool {
  /** Acknowledged writes so far (across the ledger, including earlier rounds). */
  ackedCount(): number;
  /** Resolves when every writer has stopped (each stops at its first network error, or when told to). */
  done: Promise<void>;
  /** Asks writers to stop after their current request. */
  stop(): void;
  /** How many writers are still writing. */
  running(): number;
}

/**
 * Starts `count` writers recording into `ledger`; names are prefixed with `prefix` (unique per round). A
 * writer stops at its first network error (the server is gone) or when `stop()` is called.
 */
export function startWriters(target: Target, ledger: Ledger, prefix: string, count = 64): WriterPool {
  let stopping = false;
  let acks = 0;
  let running = count;
  const one = async (w: number) => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (let n = 0; !stopping; n++) {
        const name = `${prefix}-w${w}-${n}`;
        let rv = '';
        for (let u = 0; u <= UPDATES_PER_NAME && !stopping; u++) {
          const data = { writer: String(w), n: String(n), u: String(u) };
          const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(rv ? { resourceVersion: rv } : {}) }, data };
          ledger.unanswered.set(name, data);
          const o = await (u === 0 ? send(target, agent, 'POST', CM_PATH, body) : send(target, agent, 'PUT', `${CM_PATH}/${name}`, body));
          if (o.kind !== 'answer') {
            if (o.kind === 'cut-off') ledger.cutOff.push(`${name}: ${o.error}`);
            ledger.stopReasons.push(o.error);
            return;
          }
          ledger.unanswered.delete(name);
          if (o.status !== 200 && o.status !== 201) {
            ledger.unexpected.push(`${name}: ${o.status} ${o.text.slice(0, 200)}`);
            return;
          }
          rv = o.json.metadata.resourceVersion as string;
          ledger.acked.set(name, { rv: Number(rv), data });
          acks++;
        }
      }
    } finally {
      running--;
      agent.destroy();
    }
  };
  const done = Promise.all(Array.from({ length: count }, (_, w) => one(w))).then(() => undefined);
  return { ackedCount: () => acks, done, stop: () => (stopping = true), running: () => running };
}

/**
 * Checks a restarted server against the ledger: every acknowledged write is there with a resourceVersion not
 * below the acknowledged one; equal means the acknowledged data, greater means the one unanswered write to
 * that name was applied after all. An unanswered create may be there (with its data) or not. With
 * `unansweredMayApply: false` (a graceful stop) a write without an answer must not have been applied at all.
 */
export async function verifyLedger(target: Target, ledger: Ledger, opts: { unansweredMayApply?: boolean } = {}): Promise<void> {
  const unansweredMayApply = opts.unansweredMayApply ?? true;
  const call = client(target);
  const list = await call('GET', CM_PATH);
  assert.equal(list.status, 200, list.text);
  const stored = new Map<string, { rv: number; data: Record<string, string> }>();
  for (const item of list.json.items as { metadata: { name: string; resourceVersion: string }; data?: Record<string, string> }[]) {
    stored.set(item.metadata.name, { rv: Number(item.metadata.resourceVersion), data: item.data ?? {} });
  }
  const problems: string[] = [];
  for (const [name, ack] of ledger.acked) {
    const s = stored.get(name);
    if (!s) {
      problems.push(`${name}: acknowledged at rv ${ack.rv} but missing`);
      continue;
    }
    if (s.rv < ack.rv) problems.push(`${name}: stored rv ${s.rv} < acknowledged rv ${ack.rv}`);
    else if (s.rv === ack.rv) {
      if (!sameData(s.data, ack.data)) problems.push(`${name}: rv ${s.rv} but data ${JSON.stringify(s.data)} != ${JSON.stringify(ack.data)}`);
    } else if (!unansweredMayApply) {
      problems.push(`${name}: stored rv ${s.rv} > acknowledged ${ack.rv}: a write that got no answer was applied`);
    } else {
      const pending = ledger.unanswered.get(name);
      if (!pending || !sameData(s.data, pending)) {
        problems.push(`${name}: stored rv ${s.rv} > acknowledged ${ack.rv} with data ${JSON.stringify(s.data)} that no unanswered write sent`);
      }
    }
  }
  for (const [name, pending] of ledger.unanswered) {
    if (ledger.acked.has(name)) continue;
    const s = stored.get(name);
    if (s && !unansweredMayApply) problems.push(`${name}: a create that got no answer was applied`);
    else if (s && !sameData(s.data, pending)) problems.push(`${name}: unanswered create stored with other data ${JSON.stringify(s.data)}`);
  }
  assert.deepEqual(problems.slice(0, 20), [], `${problems.length} writes lost, wrong, or applied without an answer`);
}

/** Map equality regardless of key order (the server may sort map keys). */
function sameData(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}
