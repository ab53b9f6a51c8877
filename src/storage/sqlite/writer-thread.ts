import { Worker } from 'node:worker_threads';
import { packOps, unpackOutcomes, type CommitRequest, type OpenRequest, type WireOp, type WireOutcome, type WriterReply, type WriterRequest } from './writer-protocol.js';

/** A write as the backend queues it. `expected` is the modRevision an update or delete requires. */
export interface WriteOp {
  kind: WireOp['kind'];
  key: string;
  value?: Uint8Array;
  expected?: number;
}

/** The thread's entry: a sibling of this module, with this module's extension (`.ts` from source, `.mjs` in the bundle). */
const here = import.meta.url;
const entry = new URL(`./sqlite-writer${here.slice(here.lastIndexOf('.'))}`, here);

/**
 * The main thread's handle on a writer thread (`sqlite-writer.ts`). Requests are answered in order. The
 * thread starts with the first request; if it dies, the requests it held fail and the next one starts a
 * new thread. It keeps the process alive only while a request is outstanding, like a socket with a pending
 * reply.
 */
export class WriterThread {
  private worker: Worker | undefined;
  private nextId = 1;
  /** Resolves when the current thread has exited (listened for from its start: it can end before a reply is read). */
  private exited: Promise<void> = Promise.resolve();
  private readonly waiting = new Map<number, { resolve: (r: WriterReply) => void; reject: (e: Error) => void }>();

  constructor(private readonly open: Omit<OpenRequest, 'type'>) {}

  /** Commits `ops` as one transaction; resolves with one outcome per op, or rejects if none was written. */
  async commit(ops: readonly WriteOp[]): Promise<WireOutcome[]> {
    const packed = packOps(ops);
    const reply = await this.call({ type: 'commit', id: 0, ...packed } satisfies CommitRequest, [packed.buf, packed.nums.buffer as ArrayBuffer]);
    return unpackOutcomes(reply.outcomes!);
  }

  /** Publishes `to` as the compact revision, then deletes the history it hides in (from, to]. */
  async compact(from: number, to: number): Promise<void> {
    await this.call({ type: 'compact', id: 0, from, to });
  }

  /** Closes the thread's connection and ends the thread (after every request sent before). */
  async close(): Promise<void> {
    if (!this.worker) return;
    const { worker, exited } = { worker: this.worker, exited: this.exited };
    await this.call({ type: 'close', id: 0 });
    this.worker = undefined;
    // The thread ends by itself once its port closes (it may already have); this guards against one that does not.
    const stuck = setTimeout(() => void worker.terminate(), 1000);
    await exited;
    clearTimeout(stuck);
  }

  private call(req: WriterRequest, transfer: ArrayBuffer[] = []): Promise<WriterReply> {
    const worker = (this.worker ??= this.start());
    const id = this.nextId++;
    req.id = id;
    return new Promise<WriterReply>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      if (this.waiting.size === 1) worker.ref();
      worker.postMessage(req, transfer);
    }).then((reply) => {
      if (reply.error) throw Object.assign(new Error(reply.error.message), reply.error.code ? { code: reply.error.code } : {});
      return reply;
    });
  }

  private start(): Worker {
    const workerData = { type: 'open', ...this.open } satisfies OpenRequest;
    const worker = entry.pathname.endsWith('.ts')
      ? new Worker(tsEntryLoader(), { eval: true, workerData })
      : new Worker(entry, { workerData });
    worker.unref();
    this.exited = new Promise((resolve) => worker.once('exit', () => resolve()));
    worker.on('message', (reply: WriterReply) => {
      const w = this.waiting.get(reply.id);
      if (!w) return;
      this.waiting.delete(reply.id);
      if (this.waiting.size === 0) worker.unref();
      w.resolve(reply);
    });
    const fail = (why: string) => {
      if (this.worker === worker) this.worker = undefined;
      const err = new Error(`sqlite writer thread ${why}`);
      for (const w of this.waiting.values()) w.reject(err);
      this.waiting.clear();
    };
    worker.on('error', (e) => fail(`failed: ${e.message}`));
    worker.on('exit', (code) => fail(`exited (code ${code})`));
    return worker;
  }
}

/**
 * From source (tests, or the server without its bundle) the entry is TypeScript: a thread starts without
 * the loader the main thread registered (`--import` does not reach worker threads on Node 20), so a small
 * script registers it first.
 */
function tsEntryLoader(): string {
  const api = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  return `import(${api}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`;
}
