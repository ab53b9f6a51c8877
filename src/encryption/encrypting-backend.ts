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
/** Own writes whose plain value is kept for the watch event that follows each (see `recent`). */
const RECENT_WRITES = 1024;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class EncryptingBackend implements Backend {
  readonly name: string;
  private transformers: EncryptionTransformers;
  private readonly resourceOf: (key: string) => string | undefined;
  readonly requestProgress?: (revision: number) => void;
  /**
   * The plain values of this handle's latest sealed writes by `<modRevision> <key>` (a revision names one
   * write of the whole store, so the bytes there are exactly these). The watch cache then gets its own
   * writes back without decrypting them again: half the cipher work of a write.
   */
  private readonly recent = new Map<string, { plain: Uint8Array; writer: EncryptionProvider }>();

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
    for (let i = 0; i < r.items.length; i++) items[i] = await this.open(r.items[i] as KeyValue, mark);
    return { items, revision: r.revision, more: r.more };
  }

  count(prefix: string): Promise<number> {
    return this.inner.count(prefix);
  }

  async create(key: string, value: Uint8Array): Promise<KeyValue> {
    const writer = this.transformerOf(key).writer;
    const kv = await this.inner.create(key, await this.seal(writer, key, value));
    this.remember(writer, kv, value);
    return { key: kv.key, value, createRevision: kv.createRevision, modRevision: kv.modRevision };
  }

  async update(key: string, value: Uint8Array, expectedModRevision: number): Promise<KeyValue> {
    const writer = this.transformerOf(key).writer;
    const kv = await this.inner.update(key, await this.seal(writer, key, value), expectedModRevision);
    this.remember(writer, kv, value);
    return { key: kv.key, value, createRevision: kv.createRevision, modRevision: kv.modRevision };
  }

  private remember(writer: EncryptionProvider, kv: KeyValue, plain: Uint8Array): void {
    if (writer.prefix.length === 0) return;
    this.recent.set(`${kv.modRevision} ${kv.key}`, { plain, writer });
    if (this.recent.size > RECENT_WRITES) this.recent.delete(this.recent.keys().next().value as string);
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
        const kv = await this.open(e.kv, mark);
        yield e.prev ? { type: 'PUT', revision: e.revision, kv, prev: await this.open(e.prev, mark) } : { type: 'PUT', revision: e.revision, kv };
      } else yield { type: 'DELETE', revision: e.revision, key: e.key, prev: await this.open(e.prev, mark) };
    }
  }

  private transformerOf(key: string): ResourceTransformer {
    const resource = this.resourceOf(key);
    return resource === undefined ? EncryptionTransformers.plain : this.transformers.forResource(resource);
  }

  private async seal(writer: EncryptionProvider, key: string, value: Uint8Array): Promise<Uint8Array> {
    if (writer.prefix.length === 0) return value;
    const sealed = await writer.encrypt(value, encoder.encode(key));
    const out = new Uint8Array(writer.prefix.length + sealed.length);
    out.set(writer.prefix, 0);
    out.set(sealed, writer.prefix.length);
    return out;
  }

  /** The plain value of `kv`; `mark` returns an unreadable one as a marked item instead of throwing. */
  private async open(kv: KeyValue, mark: boolean): Promise<KeyValue> {
    const t = this.transformerOf(kv.key);
    const value = kv.value;
    const own = this.recent.size > 0 ? this.recent.get(`${kv.modRevision} ${kv.key}`) : undefined;
    if (own && startsWith(value, own.writer.prefix)) {
      const base = { key: kv.key, value: own.plain, createRevision: kv.createRevision, modRevision: kv.modRevision };
      return own.writer === t.writer ? base : { ...base, stale: true };
    }
    const failures: string[] = [];
    for (let i = 0; i < t.readers.length; i++) {
      const p = t.readers[i] as EncryptionProvider;
      if (p.prefix.length === 0) {
        // Identity reads only what was never encrypted; an encrypted value needs its key.
        if (isEncrypted(value)) continue;
        return i === 0 ? kv : { ...kv, stale: true };
      }
      if (!startsWith(value, p.prefix)) continue;
      try {
        const plain = await p.decrypt(value.subarray(p.prefix.length), encoder.encode(kv.key));
        return { key: kv.key, value: plain, createRevision: kv.createRevision, modRevision: kv.modRevision, ...(i === 0 ? {} : { stale: true }) };
      } catch (e) {
        failures.push(`${decoder.decode(p.prefix)} ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    const err = new StorageError('Unreadable', `cannot read the stored value of ${kv.key}: ${reason(value, failures)}`, { key: kv.key });
    if (!mark) throw err;
    return { key: kv.key, value: EMPTY, createRevision: kv.createRevision, modRevision: kv.modRevision, unreadable: err };
  }
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
