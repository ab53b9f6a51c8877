/**
 * Duplicate-field detection in request bodies and the strict-decoding wording (spec 4.2 `fieldValidation`,
 * spec 7). Parsers keep the last of duplicated keys silently, so duplicates are found on the text.
 */
import { isAlias, isMap, isNode, isScalar, isSeq, parseDocument, type Node } from 'yaml';
import { isObject } from '../api/types.js';

const isJsonSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const QUOTE = 0x22;
const COLON = 0x3a;

/**
 * An upper bound on the number of member names in a JSON text: every name is a string whose closing quote
 * is followed, after optional whitespace, by a colon. Colons inside strings can only raise the count.
 * O(n): the backward whitespace skip of a colon stops at the previous non-space character, so every
 * character is skipped at most once. On UTF-8 bytes the count is the same: a multi-byte character never
 * contains an ASCII byte.
 */
function memberNameBound(text: string | Uint8Array): number {
  let n = 0;
  if (typeof text === 'string') {
    for (let i = text.indexOf(':'); i >= 0; i = text.indexOf(':', i + 1)) {
      let j = i - 1;
      while (j >= 0 && isJsonSpace(text.charCodeAt(j))) j--;
      if (j >= 0 && text.charCodeAt(j) === QUOTE) n++;
    }
    return n;
  }
  for (let i = text.indexOf(COLON); i >= 0; i = text.indexOf(COLON, i + 1)) {
    let j = i - 1;
    while (j >= 0 && isJsonSpace(text[j] as number)) j--;
    if (j >= 0 && text[j] === QUOTE) n++;
  }
  return n;
}

/** Number of members over all objects of a parsed value (duplicates collapsed by the parser). */
function memberCount(value: unknown): number {
  let n = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    // Plain loops: spreading a huge array into push() would overflow the call stack.
    if (Array.isArray(v)) for (const item of v) stack.push(item);
    else if (isObject(v)) {
      for (const k in v) {
        if (!Object.hasOwn(v, k)) continue;
        n++;
        stack.push(v[k]);
      }
    }
  }
  return n;
}

/** End index (of the closing quote) of the JSON string that starts at `start`. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  for (;;) {
    const q = text.indexOf('"', i);
    if (q < 0) return text.length;
    let backslashes = 0;
    for (let j = q - 1; text.charCodeAt(j) === 0x5c; j--) backslashes++;
    if (backslashes % 2 === 0) return q;
    i = q + 1;
  }
}

type Frame = { array: false; path: string; keys: Set<string>; key: string; expectKey: boolean } | { array: true; path: string; index: number };

/** Walks the JSON tokens with a stack of open containers and reports repeated member names by path. */
function scanJson(text: string): string[] {
  const found = new Set<string>();
  const stack: Frame[] = [];
  const childPath = (): string => {
    const top = stack[stack.length - 1];
    if (!top) return '';
    return top.array ? `${top.path}[${top.index}]` : `${top.path}.${top.key}`;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '{') stack.push({ array: false, path: childPath(), keys: new Set(), key: '', expectKey: true });
    else if (c === '[') stack.push({ array: true, path: childPath(), index: 0 });
    else if (c === '}' || c === ']') stack.pop();
    else if (c === ',') {
      const top = stack[stack.length - 1];
      if (top?.array) top.index++;
      else if (top) top.expectKey = true;
    } else if (c === '"') {
      const end = stringEnd(text, i);
      const top = stack[stack.length - 1];
      if (top && !top.array && top.expectKey) {
        const raw = text.slice(i, end + 1);
        const key = raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1);
        if (top.keys.has(key)) found.add(`${top.path}.${key}`);
        top.keys.add(key);
        top.key = key;
        top.expectKey = false;
      }
      i = end;
    }
    // Numbers, literals, colons and whitespace need no action.
  }
  return [...found];
}

/**
 * Paths (`.metadata.name`) of member names repeated within one JSON object, in document order, each once.
 * Fast path: when the count of name-like tokens does not exceed the members of the parsed value, there can
 * be no duplicate, and the text is not tokenized. Pass `parsed` when the body was parsed already. The
 * body may be given as UTF-8 bytes: they are decoded only when a duplicate is possible.
 * Invalid JSON gives [] (the decoder reports it).
 */
export function findDuplicateFieldsJson(body: string | Uint8Array, parsed?: unknown): string[] {
  let value = parsed;
  if (value === undefined) {
    try {
      value = JSON.parse(textOf(body));
    } catch {
      return [];
    }
  }
  if (memberNameBound(body) <= memberCount(value)) return [];
  return scanJson(textOf(body));
}

const textOf = (body: string | Uint8Array): string =>
  typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');

/** The key text of a YAML map pair, as the decoded object spells it. */
function yamlKey(key: unknown): string {
  if (isScalar(key)) return String(key.value);
  return String(key);
}

/**
 * Paths of keys repeated within one YAML mapping. The parser finds them (`uniqueKeys`, error code
 * DUPLICATE_KEY at the repeated key's offset); a walk of the document turns the offsets into paths.
 * YAML 1.1 as the decoder reads bodies; merge keys (`<<`) are not duplicates.
 */
export function findDuplicateFieldsYaml(text: string): string[] {
  const doc = parseDocument(text, { uniqueKeys: true, version: '1.1' });
  const offsets = new Set(doc.errors.filter((e) => e.code === 'DUPLICATE_KEY').map((e) => e.pos[0]));
  if (offsets.size === 0) return [];
  const found = new Set<string>();
  const walk = (node: unknown, path: string): void => {
    if (isAlias(node)) return; // the anchored node is walked where it is defined
    if (isSeq(node)) node.items.forEach((item, i) => walk(item, `${path}[${i}]`));
    if (!isMap(node)) return;
    for (const pair of node.items) {
      const key = yamlKey(pair.key);
      // A merge key's map belongs to the mapping it is merged into.
      const child = key === '<<' ? path : `${path}.${key}`;
      const range = isNode(pair.key) ? (pair.key as Node).range : undefined;
      if (range && offsets.has(range[0])) found.add(child);
      walk(pair.value, child);
    }
  };
  walk(doc.contents, '');
  return [...found];
}

export type FieldProblem = 'unknown' | 'duplicate';

/** The reference quotes paths without the leading dot: `unknown field "spec.foo"`. */
const bare = (path: string) => (path.startsWith('.') ? path.slice(1) : path);

/** One problem as a warning text (each becomes a `Warning: 299 - "<text>"` header). */
export function warningFor(path: string, kind: FieldProblem): string {
  return `${kind} field "${bare(path)}"`;
}

/**
 * All problems as texts: unknown fields, then duplicates. As in the reference, a field that is both unknown
 * and duplicated (or lies below an unknown field) is reported only as unknown.
 */
export function fieldProblems(unknown: readonly string[], duplicates: readonly string[]): string[] {
  // Covered: the path itself is unknown, or it extends an unknown path with `.` or `[`. Checked through a
  // set, at the few lengths unknown paths have, so many unknown and duplicated fields cost about linear
  // time rather than their product.
  const unknownPaths = new Set(unknown);
  const lengths = [...new Set(unknown.map((u) => u.length))];
  const covered = (p: string) =>
    unknownPaths.has(p) || lengths.some((n) => n < p.length && (p[n] === '.' || p[n] === '[') && unknownPaths.has(p.slice(0, n)));
  return [
    ...unknown.map((p) => warningFor(p, 'unknown')),
    ...duplicates.filter((p) => !covered(p)).map((p) => warningFor(p, 'duplicate')),
  ];
}

/** The 400 message of `fieldValidation=Strict`: `strict decoding error: unknown field "spec.foo", ...`. */
export function strictDecodingMessage(unknown: readonly string[], duplicates: readonly string[]): string {
  return `strict decoding error: ${fieldProblems(unknown, duplicates).join(', ')}`;
}
