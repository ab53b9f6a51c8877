/**
 * JSON as CEL sees it: whole numbers are CEL ints (BigInt), so `object.spec.replicas + 1` type-checks at
 * run time as it does in the reference.
 */
export function celValue(v: unknown): unknown {
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(celValue);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = celValue(x);
    return out;
  }
  return v;
}
