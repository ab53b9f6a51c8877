/**
 * Field selectors (spec 4.2, `fieldSelector` query parameter): `f=v`, `f==v`, `f!=v` joined by commas.
 * Splitting and escaping follow the reference parser so that values escaped by existing clients
 * (`\,`, `\=`, `\\`) round-trip; field names are checked per resource type by the caller.
 */
import { badRequest, clip, fieldError, quote, type StatusError } from '../errors/index.js';
import { MAX_SELECTOR_REQUIREMENTS } from './label-selector.js';

export interface FieldRequirement {
  readonly field: string;
  /** `==` parses to `=`. */
  readonly op: '=' | '!=';
  readonly value: string;
}

export interface FieldSelector {
  /** ANDed; no requirements selects everything. */
  readonly requirements: readonly FieldRequirement[];
}

/** Splits on commas that are not escaped by a backslash; the backslashes stay for unescapeValue. */
function splitTerms(s: string): string[] {
  const terms: string[] = [];
  let start = 0;
  let escaped = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (escaped) escaped = false;
    else if (c === '\\') escaped = true;
    else if (c === ',') {
      terms.push(s.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(s.slice(start));
  return terms;
}

/** The field name cannot be escaped, so the first operator in the term is the split point. */
function splitTerm(term: string): { field: string; op: '=' | '!='; raw: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    const rest = term.slice(i);
    if (rest.startsWith('!=')) return { field: term.slice(0, i), op: '!=', raw: term.slice(i + 2) };
    if (rest.startsWith('==')) return { field: term.slice(0, i), op: '=', raw: term.slice(i + 2) };
    if (rest.startsWith('=')) return { field: term.slice(0, i), op: '=', raw: term.slice(i + 1) };
  }
  return undefined;
}

const ESCAPABLE = new Set(['\\', ',', '=', '!']);

/** Returns the unescaped value, or the reason it is malformed. */
function unescapeValue(raw: string): { value: string } | { error: string } {
  let out = '';
  let escaped = false;
  for (const c of raw) {
    if (escaped) {
      if (!ESCAPABLE.has(c)) return { error: `invalid escape sequence: \\${c}` };
      out += c;
      escaped = false;
    } else if (c === '\\') {
      escaped = true;
    } else if (c === ',' || c === '=') {
      // An unescaped `=` would make `a=b=c` ambiguous; the reference rejects it.
      return { error: `unescaped character in value: '${c}'` };
    } else {
      out += c;
    }
  }
  if (escaped) return { error: 'invalid escape sequence: \\' };
  return { value: out };
}

/** Escapes a value so that parseFieldSelector reads it back unchanged. */
export function escapeFieldValue(value: string): string {
  return value.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/** Parses the string form; `''` selects everything. Throws a 400 StatusError. */
export function parseFieldSelector(s: string): FieldSelector {
  const fail = (reason: string): StatusError => badRequest(`invalid field selector ${quote(s)}: ${reason}`);
  const requirements: FieldRequirement[] = [];
  if (s === '') return { requirements };
  const terms = splitTerms(s);
  if (terms.length > MAX_SELECTOR_REQUIREMENTS) throw fail(`too many requirements: the limit is ${MAX_SELECTOR_REQUIREMENTS}`);
  // Sorted like the reference so that equal selectors compare equal whatever order the client used.
  for (const term of terms.sort()) {
    if (term === '') continue;
    const parts = splitTerm(term);
    if (!parts) throw badRequest(`invalid selector: '${clip(s)}'; can't understand '${clip(term)}'`);
    const v = unescapeValue(parts.raw);
    if ('error' in v) throw fail(v.error);
    requirements.push({ field: parts.field, op: parts.op, value: v.value });
  }
  return { requirements };
}

export function requirements(sel: FieldSelector): readonly FieldRequirement[] {
  return sel.requirements;
}

/** A field missing from `fields` compares as the empty string, as in the reference. */
export function matchesFields(sel: FieldSelector, fields: Record<string, string>): boolean {
  return sel.requirements.every((r) => {
    const have = Object.hasOwn(fields, r.field) ? (fields[r.field] ?? '') : '';
    return r.op === '=' ? have === r.value : have !== r.value;
  });
}

/**
 * Rejects the first field a resource type cannot select on, with the reference message
 * (`field label not supported: <field>`); `resourceLabel` names the type in the error cause.
 */
export function checkSupportedFields(sel: FieldSelector, supported: readonly string[], resourceLabel: string): void {
  for (const r of sel.requirements) {
    if (supported.includes(r.field)) continue;
    const cause = fieldError.notSupported('fieldSelector', r.field, supported);
    throw badRequest(`field label not supported: ${clip(r.field)}`, [
      { ...cause, message: `${cause.message} (for ${resourceLabel})` },
    ]);
  }
}

/**
 * The name a selector pins down with exactly one `metadata.name=` requirement, else undefined.
 * Request info uses it so that a single-object watch is authorized against that object's name.
 */
export function exactName(sel: FieldSelector): string | undefined {
  const pins = sel.requirements.filter((r) => r.field === 'metadata.name' && r.op === '=');
  return pins.length === 1 ? pins[0]?.value : undefined;
}
