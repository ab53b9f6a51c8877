/**
 * Small helpers for strategies that read plain JSON objects: a reader that turns wrong JSON types into
 * field errors (and reads them as empty, so the rule checks that follow stay simple), and the two
 * timestamp forms of the API (Time: RFC 3339 in seconds; MicroTime: RFC 3339 with microseconds).
 * Used by the events and leases folders.
 */
import { isDeepStrictEqual } from 'node:util';
import { fieldError, type FieldError } from '../../../errors/index.js';

export type Rec = Record<string, unknown>;
export const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const absent = (v: unknown) => v === undefined || v === null;

export class FieldReader {
  readonly errors: FieldError[] = [];

  str(o: Rec | undefined, key: string, path: string): string {
    const v = o?.[key];
    if (absent(v)) return '';
    if (typeof v === 'string') return v;
    this.errors.push(fieldError.typeInvalid(path, v, 'must be of type string'));
    return '';
  }

  int(o: Rec | undefined, key: string, path: string): number | undefined {
    const v = o?.[key];
    if (absent(v)) return undefined;
    if (typeof v === 'number' && Number.isInteger(v)) return v;
    this.errors.push(fieldError.typeInvalid(path, v, 'must be of type integer'));
    return undefined;
  }

  obj(o: Rec | undefined, key: string, path: string): Rec | undefined {
    const v = o?.[key];
    if (absent(v)) return undefined;
    if (isRec(v)) return v;
    this.errors.push(fieldError.typeInvalid(path, v, 'must be of type object'));
    return undefined;
  }

  /** A list field: [] when absent or not a list (the latter reported). */
  list(o: Rec | undefined, key: string, path: string): unknown[] {
    const v = o?.[key];
    if (absent(v)) return [];
    if (Array.isArray(v)) return v;
    this.errors.push(fieldError.typeInvalid(path, v, 'must be of type array'));
    return [];
  }

  /** A list of strings; each item that is not a string is reported at `path[i]` and left out. */
  strList(o: Rec | undefined, key: string, path: string): string[] {
    const out: string[] = [];
    this.list(o, key, path).forEach((v, i) => {
      if (typeof v === 'string') out.push(v);
      else this.errors.push(fieldError.typeInvalid(`${path}[${i}]`, v, 'must be of type string'));
    });
    return out;
  }

  /** A timestamp field: '' when absent; a string that is not RFC 3339 is an invalid value. */
  time(o: Rec | undefined, key: string, path: string): string {
    const v = this.str(o, key, path);
    if (v !== '' && parseTimestamp(v) === undefined) {
      this.errors.push(fieldError.invalid(path, v, 'must be an RFC 3339 date-time (e.g. 2006-01-02T15:04:05Z)'));
      return '';
    }
    return v;
  }
}

const RFC3339 = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;

/** Splits an RFC 3339 timestamp into whole epoch milliseconds (seconds precision) and its fraction digits. */
export function parseTimestamp(s: string): { secondsMs: number; fraction: string } | undefined {
  const m = RFC3339.exec(s);
  if (!m) return undefined;
  const zone = m[4] === 'z' ? 'Z' : m[4];
  const ms = Date.parse(`${m[1]}T${m[2]}${zone}`);
  return Number.isNaN(ms) ? undefined : { secondsMs: ms, fraction: m[3] ?? '' };
}

/** The reference's Time wire form: UTC, whole seconds. */
export function formatTime(s: string): string | undefined {
  const t = parseTimestamp(s);
  return t && `${new Date(t.secondsMs).toISOString().slice(0, 19)}Z`;
}

/** The reference's MicroTime wire form: UTC, exactly six fraction digits (extra digits truncated). */
export function formatMicroTime(s: string): string | undefined {
  const t = parseTimestamp(s);
  return t && `${new Date(t.secondsMs).toISOString().slice(0, 19)}.${t.fraction.padEnd(6, '0').slice(0, 6)}Z`;
}

/**
 * Rewrites the timestamps at `paths` (dotted, from the root) into their wire form, in place, so that stored
 * objects read back the way clients of the reference expect. Unparsable values are left for validation.
 */
export function normalizeTimestamps(o: Rec, paths: readonly string[], format: (s: string) => string | undefined): void {
  for (const path of paths) {
    const parts = path.split('.');
    const last = parts.pop() as string;
    let cur: unknown = o;
    for (const p of parts) cur = isRec(cur) ? cur[p] : undefined;
    if (!isRec(cur) || typeof cur[last] !== 'string') continue;
    const formatted = format(cur[last]);
    if (formatted !== undefined) cur[last] = formatted;
  }
}

/** Drops empty values (missing, null, '', 0, false, empty object/list) so Go-style zero values compare equal. */
function withoutZeroes(v: unknown): unknown {
  if (Array.isArray(v)) return v.length === 0 ? undefined : v.map(withoutZeroes);
  if (isRec(v)) {
    const out: Rec = {};
    for (const [k, x] of Object.entries(v)) {
      const n = withoutZeroes(x);
      if (n !== undefined) out[k] = n;
    }
    return Object.keys(out).length === 0 ? undefined : out;
  }
  return v === null || v === '' || v === 0 || v === false ? undefined : v;
}

/** The reference's ValidateImmutableField on JSON values: zero values and absence are the same. */
export function immutable(path: string, next: unknown, prev: unknown): FieldError[] {
  return isDeepStrictEqual(withoutZeroes(next), withoutZeroes(prev))
    ? []
    : [fieldError.invalid(path, next ?? null, 'field is immutable')];
}
