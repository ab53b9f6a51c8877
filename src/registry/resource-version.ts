import { badRequest, fieldError } from '../errors/index.js';

/** The largest resourceVersion a client may send: the reference parses it as an unsigned 64-bit integer. */
export const MAX_RESOURCE_VERSION = 18446744073709551615n;

/** How much of a rejected value a message quotes (a value may be megabytes long). */
const QUOTED_CHARS = 100;

/** A client's value as a message quotes it: cut short past `QUOTED_CHARS` (never inside a surrogate pair). */
export function boundedValue(text: string, max = QUOTED_CHARS): string {
  if (text.length <= max) return text;
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}...`;
}

/** 400 naming `field`, quoting a bounded part of the value, with the cause the reference's field errors carry. */
export function invalidParameter(field: string, value: string, detail: string) {
  const e = fieldError.invalid(field, boundedValue(value), detail);
  return badRequest(`${field}: ${e.message}`, [e]);
}

/**
 * Parses a client's resourceVersion as the reference does (`strconv.ParseUint(rv, 10, 64)`): digits only, at
 * most 2^64-1, checked on the text (as a float, 2^64 and 2^64-1 are the same number). "" is not a value here;
 * callers treat it as "unset".
 *
 * The result is exact up to 2^53-1. Above that it is a float that is still larger than every revision a store
 * can hold (revisions are JavaScript numbers), so comparisons against real revisions stay correct; messages
 * quote the client's text, never this number.
 */
export function parseResourceVersion(text: string, field = 'resourceVersion'): number {
  if (!/^\d+$/.test(text)) throw invalidParameter(field, text, 'must be a non-negative integer');
  // Leading zeros do not count; past 20 digits the value is out of range without parsing it (it may be long).
  const digits = canonicalResourceVersion(text);
  if (digits.length > 20 || (digits.length === 20 && BigInt(digits) > MAX_RESOURCE_VERSION)) {
    throw invalidParameter(field, text, `value out of range: must be at most ${MAX_RESOURCE_VERSION}`);
  }
  return Number(text);
}

/** A valid resourceVersion's digits without leading zeros: how messages quote it (exact past 2^53). */
export const canonicalResourceVersion = (text: string): string => text.replace(/^0+(?=\d)/, '');

/** A parsed resourceVersion no store can have reached (beyond exact float integers). */
export const beyondAnyRevision = (revision: number): boolean => revision > Number.MAX_SAFE_INTEGER;
