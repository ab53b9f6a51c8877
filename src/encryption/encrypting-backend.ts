/**
 * Encryption at rest as a storage wrapper: values are sealed on their way into the backend and opened on
 * their way out (get, list, watch events and their previous values, the value a delete returns), so the
 * registry and the watch cache above only ever see plain bytes. The storage key is the authenticated data,
 * binding a sealed value to where it is stored (the reference does the same with its storage key).
 *
 * A value that no configured provider can open fails the read of that key with an `Unreadable`
 * StorageError naming the key and the reason; it is never returned as ciphertext and never skipped. The
 * watch cache asks (`markUnreadable`) to receive such keys as marked items instead, so that one bad object
 * does not stop the cache of its whole resource.
 */
import {
  StorageError,
  type Backend,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type ProgressNotify,
  type WatchEvent,
} from '../storage/index.js';
import { ENCRYPTED_VALUE_PREFIX } from '../api/naming.js';
import { isEncrypted, startsWith } from './providers.js';
import { EncryptionTransformers, type ResourceTransformer } from './transformers.js';
import type { EncryptionProvider } from './types.js';

export interface EncryptingBackendOptions {
  transformers: EncryptionTransformers;
  /**
   * The resource a storage key belongs to, written as the configuration writes it (`secrets`,
   * `deployments.apps`), or undefined for keys of no resource (stored plain).
   */
  resourceOf(key: string): string | undefined;
}

const EMPTY = new Uint8Array(0);
/**
 * Own writes whose plain value is kept for the watch event that follows each (see `recent`). A local
 * backend delivers that event within a few turns of the write; more entries would only keep values alive.
 */
const RECENT_WRITES = 256;
const decoder = new TextDecoder();
/** The storage key as authenticated data (Buffer.from is cheaper than TextEncoder for short strings). */
const aadOf = (key: string): Uint8Array => Buffer.from(key, 'utf8');

export class EncryptingBackend implements Backend {
  readonly name: string;
  private transformers: EncryptionTransformers;
  private readonly resourceOf: (key: string) => string | undefined;
  readonly requestProgress?: (revision: number) => void;
  /**
   * The plain values of this handle's latest sealed writes by modRevision (a revision names one write of
   * the whole store, so the bytes at that revision and key are exactly these). The watch cache then gets
   * its own writes back without decrypting them again: half the cipher work of a write.
   */
  private readonly recent = new Map<number, { key: string; plain: Uint8Array; writer: EncryptionProvider }>();

  constructor(private readonly inner: Backend, opts: EncryptingBackendOptions) {
    this.name = inner.name;
    this.transformers = opts.transformers;
    this.resourceOf = opts.resourceOf;
    if (inner.requestProgress) this.requestProgress = (revision) => inner.requestProgress!(revision);
  }

  /** The configuration in use (reload swaps it; the caller closes the one it replaces). */
  get current(): EncryptionTransformers {
    return this.transformers;
  }

  setTransformers(next: EncryptionTransformers): void {
    this.transformers = next;
  }

  currentRevision(): Promise<number> {
    return this.inner.currentRevision();
  }

  async healthCheck(): Promise<void> {
    if (this.inner.healthCheck) return this.inner.healthCheck();
    await this.inner.currentRevision();
  }

  compactedRevision(): Promise<number> {
    return this.inner.compactedRevision();
  }

  async get(key: string, opts?: { revision?: number }): Promise<KeyValue | undefined> {
    const kv = await this.inner.get(key, opts);
    return kv && this.open(kv, false);
  }

  async list(prefix: string, opts?: ListOptions): Promise<ListResult> {
    const r = await this.inner.list(prefix, opts);
    const mark = opts?.markUnreadable === true;
    const items: KeyValue[] = new Array(r.items.length);
    for (let i = 0; i < r.items.length; i++) {
      const kv = this.open(r.items[i] as KeyValue, mark);
      items[i] = isKeyValue(kv) ? kv : await kv;
    }
    return { items, revision: r.revision, more: r.more };
  }

  count(prefix: string): Promise<number> {
    return this.inner.count(prefix);
  }

  async create(key: string, value: Uint8Array): Promise<KeyValue> {
    const writer = this.transformerOf(key).writer;
    const sealed = this.seal(writer, key, value);
    const kv = await this.inner.create(key, sealed instanceof Uint8Array ? sealed : await sealed);
    this.remember(writer, kv, value);
    return { key: kv.key, value, createRevision: kv.createRevision, modRevision: kv.modRevision };
  }

  async update(key: string, value: Uint8Array, expectedModRevision: number): Promise<KeyValue> {
    const writer = this.transformerOf(key).writer;
    const sealed = this.seal(writer, key, value);
    const kv = await this.inner.update(key, sealed instanceof Uint8Array ? sealed : await sealed, expectedModRevision);
    this.remember(writer, kv, value);
    return { key: kv.key, value, createRevision: kv.createRevision, modRevision: kv.modRevision };
  }

  private remember(writer: EncryptionProvider, kv: KeyValue, plain: Uint8Array): void {
    if (writer.prefix.length === 0) return;
    this.recent.set(kv.modRevision, { key: kv.key, plain, writer });
    if (this.recent.size > RECENT_WRITES) this.recent.delete(this.recent.keys().next().value as number);
  }

  async delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    // The key is gone whatever its value was: an unreadable one comes back marked rather than as a failure.
    return this.open(await this.inner.delete(key, expectedModRevision), true);
  }

  watch(prefix: string, fromRevision: number, signal: AbortSignal): AsyncIterable<WatchEvent>;
  watch(prefix: string, fromRevision: number, signal: AbortSignal, opts: { progress: true; markUnreadable?: boolean }): AsyncIterable<WatchEvent | ProgressNotify>;
  watch(prefix: string, fromRevision: number, signal: AbortSignal, opts?: { progress: true; markUnreadable?: boolean }): AsyncIterable<WatchEvent | ProgressNotify> {
    const feed = opts ? this.inner.watch(prefix, fromRevision, signal, { progress: true }) : this.inner.watch(prefix, fromRevision, signal);
    return this.openEvents(feed, opts?.markUnreadable === true);
  }

  compact(revision?: number): Promise<number> {
    return this.inner.compact(revision);
  }

  async close(): Promise<void> {
    await this.inner.close();
  }

  private async *openEvents(feed: AsyncIterable<WatchEvent | ProgressNotify>, mark: boolean): AsyncGenerator<WatchEvent | ProgressNotify> {
    for await (const e of feed) {
      if (e.type === 'PROGRESS') yield e;
      else if (e.type === 'PUT') {
        // open is synchronous for local providers: await only what is a promise (a KMS call).
        let kv = this.open(e.kv, mark);
        if (!isKeyValue(kv)) kv = await kv;
        if (!e.prev) yield { type: 'PUT', revision: e.revision, kv };
        else {
          let prev = this.open(e.prev, mark);
          if (!isKeyValue(prev)) prev = await prev;
          yield { type: 'PUT', revision: e.revision, kv, prev };
        }
      } else {
        let prev = this.open(e.prev, mark);
        if (!isKeyValue(prev)) prev = await prev;
        yield { type: 'DELETE', revision: e.revision, key: e.key, prev };
      }
    }
  }

  private transformerOf(key: string): ResourceTransformer {
    const resource = this.resourceOf(key);
    return resource === undefined ? EncryptionTransformers.plain : this.transformers.forResource(resource);
  }

  /** Synchronous for local providers, so a write takes no extra promise hop; a KMS provider returns a promise. */
  private seal(writer: EncryptionProvider, key: string, value: Uint8Array): Uint8Array | Promise<Uint8Array> {
    if (writer.prefix.length === 0) return value;
    if (writer.encryptWithPrefix) return writer.encryptWithPrefix(value, aadOf(key));
    const sealed = writer.encrypt(value, aadOf(key));
    return sealed instanceof Uint8Array ? withPrefix(writer.prefix, sealed) : sealed.then((s) => withPrefix(writer.prefix, s));
  }

  /**
   * The plain value of `kv`; `mark` returns an unreadable one as a marked item instead of throwing (a sync
   * throw here becomes a rejection in the async callers). Synchronous unless a provider's decrypt is not.
   */
  private open(kv: KeyValue, mark: boolean): KeyValue | Promise<KeyValue> {
    const t = this.transformerOf(kv.key);
    const own = this.recent.size > 0 ? this.recent.get(kv.modRevision) : undefined;
    // Only while the writer's key is still configured: after a reload that dropped it, a decrypt would
    // fail, and so must this read.
    if (own && own.key === kv.key && startsWith(kv.value, own.writer.prefix) && t.readers.includes(own.writer)) {
      // Its event has come: the entry is done (the watch cache is the one watcher of a resource's keys; any
      // other watcher simply decrypts), and dropping it now keeps the plain values from aging in the heap.
      this.recent.delete(kv.modRevision);
      const base = { key: kv.key, value: own.plain, createRevision: kv.createRevision, modRevision: kv.modRevision };
      return own.writer === t.writer ? base : { ...base, stale: true };
    }
    return this.tryReaders(kv, t, 0, [], mark);
  }

  /** Tries the readers of `t` from index `from` on; `failures` collects why earlier ones could not open it. */
  private tryReaders(kv: KeyValue, t: ResourceTransformer, from: number, failures: string[], mark: boolean): KeyValue | Promise<KeyValue> {
    const value = kv.value;
    for (let i = from; i < t.readers.length; i++) {
      const p = t.readers[i] as EncryptionProvider;
      if (p.prefix.length === 0) {
        // Identity reads only what was never encrypted; an encrypted value needs its key.
        if (isEncrypted(value)) continue;
        return i === 0 ? kv : { ...kv, stale: true };
      }
      if (!startsWith(value, p.prefix)) continue;
      let plain: Uint8Array | Promise<Uint8Array>;
      try {
        plain = p.decrypt(value.subarray(p.prefix.length), aadOf(kv.key));
      } catch (e) {
        failures.push(failure(p, e));
        continue;
      }
      if (plain instanceof Uint8Array) return opened(kv, plain, i);
      return plain.then(
        (x) => opened(kv, x, i),
        (e: unknown) => {
          failures.push(failure(p, e));
          return this.tryReaders(kv, t, i + 1, failures, mark);
        },
      );
    }
    const err = new StorageError('Unreadable', `cannot read the stored value of ${kv.key}: ${reason(value, failures)}`, { key: kv.key });
    if (!mark) throw err;
    return { key: kv.key, value: EMPTY, createRevision: kv.createRevision, modRevision: kv.modRevision, unreadable: err };
  }
}

function isKeyValue(x: KeyValue | Promise<KeyValue>): x is KeyValue {
  return !(x instanceof Promise);
}

function withPrefix(prefix: Uint8Array, sealed: Uint8Array): Uint8Array {
  return Buffer.concat([prefix, sealed], prefix.length + sealed.length);
}

/** `kv` with its plain value; a value opened by a reader other than the writer is marked stale (rewrite it). */
function opened(kv: KeyValue, plain: Uint8Array, reader: number): KeyValue {
  return { key: kv.key, value: plain, createRevision: kv.createRevision, modRevision: kv.modRevision, ...(reader === 0 ? {} : { stale: true }) };
}

function failure(p: EncryptionProvider, e: unknown): string {
  return `${decoder.decode(p.prefix)} ${e instanceof Error ? e.message : String(e)}`;
}

function reason(value: Uint8Array, failures: readonly string[]): string {
  if (failures.length > 0) return `no configured key could decrypt it (${failures.join('; ')})`;
  if (isEncrypted(value)) return `it was encrypted with ${JSON.stringify(writtenPrefix(value))}, which no configured provider of its resource reads`;
  return 'it is stored unencrypted and identity is not a configured provider of its resource';
}

/** `<maker>:enc:<provider>:<version>:<key name>:` of a stored value, for messages (never secret). */
function writtenPrefix(value: Uint8Array): string {
  const head = decoder.decode(value.subarray(0, 200));
  let at = ENCRYPTED_VALUE_PREFIX.length;
  for (let n = 0; n < 3; n++) {
    const next = head.indexOf(':', at);
    if (next < 0) return head.slice(0, at);
    at = next + 1;
  }
  return head.slice(0, at);
}
