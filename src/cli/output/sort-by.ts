/**
 * `get --sort-by=<jsonpath>` as the reference client orders things. The first value the expression finds
 * in each object is the key; objects without one come first. Keys compare as decoded JSON does in the
 * reference (1.31): integers with integers, fractions with fractions, strings as quantities when both
 * parse as one (`100m` < `1` < `2Gi`, resource versions numerically) and otherwise byte by byte (so
 * `c10` < `c9`, and RFC 3339 timestamps by time). Anything else (booleans, maps, lists, an integer against
 * a string) cannot be sorted and is an error. Pure.
 */
import { parseJsonPath, type CompiledJsonPath } from '../../util/jsonpath.js';
import { UsageError } from '../errors.js';

export const SORT_BY_FLAG = '--sort-by';

/** Not one of the objects to sort has the field (most likely misspelt). */
export class SortFieldNotFound extends Error {
  override readonly name = 'SortFieldNotFound';
  constructor(field: string) {
    super(`${SORT_BY_FLAG}: no object has a field at ${field}`);
  }
}

/** A sort key: what the expression found first, or nothing. */
type Key = { found: false } | { found: true; value: unknown };

export class SortBy {
  private constructor(
    /** The braced form (`{.metadata.name}`), as errors name it. */
    readonly field: string,
    private readonly path: CompiledJsonPath,
  ) {}

  /**
   * `name1.name2`, `.name1.name2`, `{name1.name2}` or `{.name1.name2}` (the reference's relaxed form);
   * anything else is a usage error naming the flag.
   */
  static parse(expression: string): SortBy {
    const m = /^\{\.?([^{}]+)\}$|^\.?([^{}]+)$/.exec(expression);
    if (!m) throw new UsageError(`${SORT_BY_FLAG}: "${expression}" is not a field path: give it as name1.name2, .name1.name2, {name1.name2} or {.name1.name2}`, 'get');
    const field = `{.${m[1] ?? m[2]}}`;
    try {
      return new SortBy(field, parseJsonPath(field));
    } catch (e) {
      throw new UsageError(`${SORT_BY_FLAG}: cannot parse ${field}: ${(e as Error).message}`, 'get');
    }
  }

  key(obj: unknown): Key {
    const first = this.path.results(obj, { allowMissingKeys: true })[0];
    return first && first.length > 0 ? { found: true, value: first[0] } : { found: false };
  }

  /**
   * `items` in key order, as the reference's list sort leaves them. An expression that finds nothing in
   * any item is an error (the field is most likely misspelt); an empty list is left alone.
   */
  sort<T>(items: readonly T[], objectOf: (item: T) => unknown = (x) => x): T[] {
    if (items.length === 0) return [];
    const keyed = items.map((item) => ({ item, key: this.key(objectOf(item)) }));
    if (!keyed.some((k) => k.key.found)) throw new SortFieldNotFound(this.field);
    const less = (a: Key, b: Key): boolean => {
      if (!a.found) return true;
      if (!b.found) return false;
      return keyLess(a.value, b.value, this.field);
    };
    return goSort(keyed, (a, b) => less(a.key, b.key)).map((k) => k.item);
  }
}

/** Go's `sort.Sort` on few elements is an insertion sort; the result is the same for ties and missing keys. */
const INSERTION_LIMIT = 12;

/**
 * The order Go's unstable sort gives with this `less`. Up to 12 elements that is an insertion sort, kept
 * exactly (objects without a key come out reversed, as in the reference); beyond, a stable merge sort
 * gives the same order for every pair whose keys differ.
 */
export function goSort<T>(items: readonly T[], less: (a: T, b: T) => boolean): T[] {
  const a = [...items];
  if (a.length <= INSERTION_LIMIT) {
    for (let i = 1; i < a.length; i++) {
      for (let j = i; j > 0 && less(a[j]!, a[j - 1]!); j--) [a[j], a[j - 1]] = [a[j - 1]!, a[j]!];
    }
    return a;
  }
  return mergeSort(a, less);
}

function mergeSort<T>(a: T[], less: (x: T, y: T) => boolean): T[] {
  if (a.length < 2) return a;
  const mid = a.length >> 1;
  const left = mergeSort(a.slice(0, mid), less);
  const right = mergeSort(a.slice(mid), less);
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length && j < right.length) out.push(less(right[j]!, left[i]!) ? right[j++]! : left[i++]!);
  return out.concat(left.slice(i), right.slice(j));
}

/** Decoded JSON's type, as the reference's unstructured objects hold it. */
function goType(v: unknown): string {
  if (v === null) return 'nil';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  return Array.isArray(v) ? '[]interface {}' : 'map[string]interface {}';
}

/** Whether `a` sorts before `b`; throws for values the reference cannot order. */
export function keyLess(a: unknown, b: unknown, field: string): boolean {
  const ta = goType(a);
  const tb = goType(b);
  if (ta === 'nil' || tb === 'nil') return ta === 'nil' && tb !== 'nil';
  if (ta === tb && (ta === 'int64' || ta === 'float64')) return (a as number) < (b as number);
  if (ta === 'string' && tb === 'string') {
    const qa = parseQuantity(a as string);
    const qb = qa === undefined ? undefined : parseQuantity(b as string);
    return qa !== undefined && qb !== undefined ? qa < qb : bytesLess(a as string, b as string);
  }
  const why = ['int64', 'float64', 'string'].includes(ta) ? `${ta} against ${tb}` : ta;
  throw new Error(`${SORT_BY_FLAG}: the values at ${field} cannot be sorted (${why})`);
}

/** Go's string order: the UTF-8 bytes compared one by one, a prefix first. */
export function bytesLess(a: string, b: string): boolean {
  return Buffer.compare(Buffer.from(a), Buffer.from(b)) < 0;
}

const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

/** A resource quantity's value (`1.5Gi`, `100m`, `2e3`), or undefined when the text is not one. */
export function parseQuantity(text: string): number | undefined {
  const m = /^([+-]?(?:\d+\.?\d*|\.\d+))(.*)$/.exec(text);
  if (!m) return undefined;
  const n = Number(m[1]);
  const suffix = m[2]!;
  if (suffix in BINARY) return n * BINARY[suffix]!;
  if (suffix in DECIMAL) return n * DECIMAL[suffix]!;
  const exp = /^[eE]([+-]?\d+)$/.exec(suffix);
  return exp ? n * 10 ** Number(exp[1]) : undefined;
}
