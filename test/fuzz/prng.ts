/**
 * A small seeded pseudo-random generator (mulberry32) with the picks the fuzzer needs. Every input is made
 * from `Rng` alone, so a seed reproduces a run and an input number reproduces one input (`forInput`).
 */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** The generator for input number `index` of the run seeded `seed`: independent of the inputs before it. */
  static forInput(seed: number, index: number): Rng {
    // Mixes both numbers so neighbouring seeds and indexes give unrelated streams.
    return new Rng(Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(index + 1, 0xc2b2ae35));
  }

  /** A float in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max] (both included). */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** One of `choices`, each as likely as its weight. */
  weighted<T>(choices: readonly (readonly [number, T])[]): T {
    const total = choices.reduce((n, [w]) => n + w, 0);
    let r = this.next() * total;
    for (const [w, v] of choices) {
      if ((r -= w) < 0) return v;
    }
    return (choices[choices.length - 1] as readonly [number, T])[1];
  }

  /** Up to `max` distinct items of `items`, in random order. */
  some<T>(items: readonly T[], max: number): T[] {
    const pool = [...items];
    const out: T[] = [];
    const n = this.int(0, Math.min(max, pool.length));
    for (let i = 0; i < n; i++) out.push(pool.splice(this.int(0, pool.length - 1), 1)[0] as T);
    return out;
  }

  /** `length` characters drawn from `alphabet`. */
  text(length: number, alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789-.'): string {
    let s = '';
    for (let i = 0; i < length; i++) s += alphabet[Math.floor(this.next() * alphabet.length)];
    return s;
  }
}
