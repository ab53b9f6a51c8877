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

/**
 * The CEL type of a schema leaf as the reference maps OpenAPI types and formats (byte strings, date-time
 * timestamps, durations); objects, arrays and anything unknown are left to the caller as `dyn`.
 */
export function celScalarType(type: string | undefined, format: string | undefined): string {
  switch (type) {
    case 'string':
      return format === 'byte' ? 'bytes' : format === 'date-time' ? 'google.protobuf.Timestamp' : format === 'duration' ? 'google.protobuf.Duration' : 'string';
    case 'integer':
      return 'int';
    case 'number':
      return 'double';
    case 'boolean':
      return 'bool';
    default:
      return 'dyn';
  }
}
