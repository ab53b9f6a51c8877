/**
 * Finding parts of a JSON text without parsing it: the end of a nested object or array, and the bytes of one
 * top-level member's value. Used on stored objects (labels for the watch cache, the metadata-only form of a
 * watch event), where parsing the whole object only to read a small part of it is the cost to avoid.
 *
 * Everything works on UTF-8 bytes: the quote, backslash and bracket bytes never occur inside a multi-byte
 * character, so non-ASCII text needs no special care. Strings are skipped with their escapes honoured.
 */
import { jsonStringEnd } from './limits.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const isOpen = (c: number) => c === 0x7b || c === 0x5b; // { [
const isClose = (c: number) => c === 0x7d || c === 0x5d; // } ]
const isSpace = (c: number | undefined) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** Index of the bracket that closes the object or array opened at `i`, or -1 when the text ends first. */
export function jsonContainerEnd(buf: Uint8Array, i: number): number {
  let depth = 0;
  for (let j = i; j < buf.length; j++) {
    const c = buf[j]!;
    if (c === QUOTE) j = jsonStringEnd(buf, j);
    else if (isOpen(c)) depth++;
    else if (isClose(c) && --depth === 0) return j;
  }
  return -1;
}

/** Index just past the JSON value starting at `i` (a string, container or scalar), or -1 when it is cut off. */
function valueEnd(buf: Uint8Array, i: number): number {
  const c = buf[i]!;
  if (c === QUOTE) {
    const end = jsonStringEnd(buf, i);
    return end < buf.length ? end + 1 : -1;
  }
  if (isOpen(c)) {
    const end = jsonContainerEnd(buf, i);
    return end < 0 ? -1 : end + 1;
  }
  let j = i;
  while (j < buf.length && buf[j] !== COMMA && !isClose(buf[j]!) && !isSpace(buf[j])) j++;
  return j > i ? j : -1;
}

function skipSpace(buf: Uint8Array, i: number): number {
  while (isSpace(buf[i])) i++;
  return i;
}

function hasBackslash(buf: Uint8Array, from: number, to: number): boolean {
  for (let k = from; k < to; k++) if (buf[k] === BACKSLASH) return true;
  return false;
}

/** True when the key bytes `buf[from, to)` spell `key` exactly (ASCII `key`, no escapes in the text). */
function keyIs(buf: Uint8Array, from: number, to: number, key: Uint8Array): boolean {
  if (to - from !== key.length) return false;
  for (let k = 0; k < key.length; k++) if (buf[from + k] !== key[k]) return false;
  return true;
}

/**
 * `[start, end)` of the value of the top-level member `key` (ASCII) of the JSON object in `buf`, or undefined
 * when the member is absent or the text is not the plain shape this reads (not an object, cut off, or a key
 * written with escapes, which could spell `key` another way): callers then parse.
 *
 * The first member with that key is taken: meant for text written by JSON.stringify, whose keys are unique
 * (a parser would take the last of duplicated keys).
 */
export function jsonMemberSpan(buf: Uint8Array, key: Uint8Array): [number, number] | undefined {
  let i = skipSpace(buf, 0);
  if (buf[i] !== 0x7b) return undefined;
  i = skipSpace(buf, i + 1);
  if (buf[i] === 0x7d) return undefined;
  for (;;) {
    if (buf[i] !== QUOTE) return undefined;
    const keyEnd = jsonStringEnd(buf, i);
    if (keyEnd >= buf.length || hasBackslash(buf, i + 1, keyEnd)) return undefined;
    const matched = keyIs(buf, i + 1, keyEnd, key);
    i = skipSpace(buf, keyEnd + 1);
    if (buf[i] !== COLON) return undefined;
    const start = skipSpace(buf, i + 1);
    const end = valueEnd(buf, start);
    if (end < 0) return undefined;
    if (matched) return [start, end];
    i = skipSpace(buf, end);
    if (buf[i] !== COMMA) return undefined; // the object closed (`}`) without the key, or malformed text
    i = skipSpace(buf, i + 1);
  }
}
