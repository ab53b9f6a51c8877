/**
 * Snapshot and reset of a server's store, through ordinary backend writes: the watch caches and every
 * watcher see the reset as the deletes, updates and creates it is, so nothing above storage is bypassed.
 * A snapshot is the key → value map at one moment; a reset writes only the difference.
 */
import type { Backend } from '../storage/index.js';
import { ROOT } from '../registry/keys.js';

interface Held {
  value: Uint8Array;
  /** The key's modRevision when its stored value last equalled `value` (equal revisions: nothing changed). */
  modRevision: number;
}

export type StoreSnapshot = Map<string, Held>;

export async function takeSnapshot(backend: Backend): Promise<StoreSnapshot> {
  const { items } = await backend.list(ROOT);
  return new Map(items.map((kv) => [kv.key, { value: kv.value, modRevision: kv.modRevision }]));
}

export interface ResetResult {
  /** Keys written (deleted, restored or re-created). */
  keys: string[];
  /** The store's revision after the last write (0 when nothing changed). */
  revision: number;
}

/** How often a reset retries keys a concurrent writer (an in-process controller) changed under it. */
const ATTEMPTS = 5;

/** Puts the store back to `snap`; the snapshot's revisions are moved on so that the next reset stays cheap. */
export async function resetTo(backend: Backend, snap: StoreSnapshot): Promise<ResetResult> {
  const written = new Set<string>();
  let revision = 0;
  for (let attempt = 1; ; attempt++) {
    const { items } = await backend.list(ROOT);
    const live = new Set<string>();
    const writes: Promise<void>[] = [];
    const write = (key: string, op: () => Promise<{ modRevision: number }>, held?: Held) =>
      writes.push(
        op().then((kv) => {
          written.add(key);
          revision = Math.max(revision, kv.modRevision);
          if (held) held.modRevision = kv.modRevision;
        }),
      );
    for (const kv of items) {
      live.add(kv.key);
      const held = snap.get(kv.key);
      if (!held) write(kv.key, () => backend.delete(kv.key, kv.modRevision));
      else if (held.modRevision !== kv.modRevision) write(kv.key, () => backend.update(kv.key, held.value, kv.modRevision), held);
    }
    for (const [key, held] of snap) if (!live.has(key)) write(key, () => backend.create(key, held.value), held);
    const results = await Promise.allSettled(writes);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (!failed) return { keys: [...written], revision };
    if (attempt >= ATTEMPTS) throw new Error(`reset: the store kept changing under the reset: ${(failed.reason as Error).message}`);
  }
}
