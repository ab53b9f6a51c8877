/**
 * A range of values (cluster IPs, node ports) shared by every server on one store. Each value taken is one
 * key under the range's prefix, created with the backend's create-if-absent: two servers (or two requests)
 * can never both take a value, without a lock and without rewriting one big key on every allocation. The
 * key holds its owner, so a value is only given back by the object that holds it.
 */
import { randomInt } from 'node:crypto';
import { isStorageError, type Backend } from '../../../storage/index.js';

/** Who holds a value: the object's uid decides; namespace and name are for people reading storage. */
export interface Owner {
  uid: string;
  namespace: string;
  name: string;
}

/** What taking a value found: newly `taken`, already held by this `owner`, or `busy` (someone else's). */
export type TakeResult = 'taken' | 'ours' | 'busy';

/** Random picks tried before listing what is taken (enough while the range is mostly free). */
const PROBES = 3;

/**
 * Where dynamic allocation starts, as the reference splits a range (its static-subrange rule
 * min(max(min, size/step), max)): values below are left for clients that ask for a value of their own,
 * and handed out last. `count` is how many values there are; a band that would hold none is dropped.
 */
export function dynamicOffset(size: number, count: number, rule: { min: number; max: number; step: number }): number {
  const offset = Math.min(Math.max(rule.min, Math.floor(size / rule.step)), rule.max);
  return offset < count ? offset : 0;
}

export class RangeAllocator {
  /**
   * `prefix` is the storage key prefix of the range; values are offsets 0..size-1, stored under the text
   * `nameAt(offset)` gives (the address or port itself, for people reading storage), which `offsetOf`
   * maps back. Dynamic allocation prefers offsets from `offset` up.
   */
  constructor(
    readonly prefix: string,
    readonly size: number,
    private readonly nameAt: (offset: number) => string,
    private readonly offsetOf: (name: string) => number | undefined,
    private readonly offset: number,
  ) {}

  key(offset: number): string {
    return `${this.prefix}${this.nameAt(offset)}`;
  }

  /** Takes one given value. */
  async take(backend: Backend, offset: number, owner: Owner): Promise<TakeResult> {
    try {
      await backend.create(this.key(offset), encodeOwner(owner));
      return 'taken';
    } catch (e) {
      if (!isStorageError(e, 'KeyExists')) throw e;
      return (await this.holder(backend, offset)) === owner.uid ? 'ours' : 'busy';
    }
  }

  /** Whether a value could be taken by `owner` now (dry runs): free or already its own. */
  async available(backend: Backend, offset: number, owner: Owner): Promise<boolean> {
    const holder = await this.holder(backend, offset);
    return holder === undefined || holder === owner.uid;
  }

  /** Takes a free value, preferring the upper band; undefined when the range is full. */
  async takeNext(backend: Backend, owner: Owner): Promise<number | undefined> {
    const upper = this.size - this.offset;
    for (let i = 0; i < PROBES; i++) {
      const at = this.offset + randomInt(upper);
      if ((await this.take(backend, at, owner)) === 'taken') return at;
    }
    const taken = await this.takenOffsets(backend);
    for (;;) {
      const at = this.pickFree(taken);
      if (at === undefined) return undefined;
      if ((await this.take(backend, at, owner)) === 'taken') return at;
      taken.add(at); // taken by someone else since the list: pick again
    }
  }

  /** A value that is free now, without taking it (dry runs); undefined when the range is full. */
  async peekNext(backend: Backend): Promise<number | undefined> {
    return this.pickFree(await this.takenOffsets(backend));
  }

  /** Gives a value back if `owner` holds it (a value someone else holds now is left alone). */
  async give(backend: Backend, offset: number, owner: Owner): Promise<void> {
    const kv = await backend.get(this.key(offset));
    if (!kv || decodeOwner(kv.value)?.uid !== owner.uid) return;
    try {
      await backend.delete(kv.key, kv.modRevision);
    } catch (e) {
      // Changed or gone in the meantime: no longer ours to give back.
      if (!isStorageError(e, 'Conflict') && !isStorageError(e, 'NotFound')) throw e;
    }
  }

  /** Every value taken, with its holder (used by the start-up repair). */
  async holders(backend: Backend): Promise<Map<string, { owner: Owner | undefined; modRevision: number; createRevision: number }>> {
    const out = new Map<string, { owner: Owner | undefined; modRevision: number; createRevision: number }>();
    const { items } = await backend.list(this.prefix);
    for (const kv of items) out.set(kv.key, { owner: decodeOwner(kv.value), modRevision: kv.modRevision, createRevision: kv.createRevision });
    return out;
  }

  private async holder(backend: Backend, offset: number): Promise<string | undefined> {
    const kv = await backend.get(this.key(offset));
    return kv ? (decodeOwner(kv.value)?.uid ?? '') : undefined;
  }

  private async takenOffsets(backend: Backend): Promise<Set<number>> {
    const taken = new Set<number>();
    const { items } = await backend.list(this.prefix);
    for (const kv of items) {
      // Values outside the range as now configured are not in its way.
      const at = this.offsetOf(kv.key.slice(this.prefix.length));
      if (at !== undefined) taken.add(at);
    }
    return taken;
  }

  /** A random free value: a random start in the upper band scanning forward, then the lower band. */
  private pickFree(taken: Set<number>): number | undefined {
    if (taken.size >= this.size) return undefined;
    const scan = (from: number, count: number) => {
      if (count <= 0) return undefined;
      const start = randomInt(count);
      for (let i = 0; i < count; i++) {
        const at = from + ((start + i) % count);
        if (!taken.has(at)) return at;
      }
      return undefined;
    };
    return scan(this.offset, this.size - this.offset) ?? scan(0, this.offset);
  }
}

function encodeOwner(owner: Owner): Uint8Array {
  return Buffer.from(JSON.stringify(owner));
}

function decodeOwner(value: Uint8Array): Owner | undefined {
  try {
    const o = JSON.parse(Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('utf8')) as Partial<Owner>;
    return typeof o.uid === 'string' ? { uid: o.uid, namespace: String(o.namespace ?? ''), name: String(o.name ?? '') } : undefined;
  } catch {
    return undefined;
  }
}
