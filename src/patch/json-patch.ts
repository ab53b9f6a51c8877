/**
 * JSON patch, RFC 6902 (spec 4.3, `application/json-patch+json`), applied with fast-json-patch.
 *
 * Errors follow one rule: a malformed patch document is 400 BadRequest; a well-formed patch that does not
 * apply to this object (failed test, missing path, bad array index) is 422 Invalid. Every operation is
 * checked against the current document before fast-json-patch sees it, with own-property semantics (the
 * library looks up keys through the prototype chain, so `/toString` would "exist"), and so each failure gets
 * a message naming the operation, its index and its path. Pure: inputs are never mutated.
 */
import jsonpatch from 'fast-json-patch';
import { StatusError, badRequest } from '../errors/index.js';
import { cloneJson, hasOwn, isJsonObject, jsonEqual } from './json.js';

const OPS = ['add', 'remove', 'replace', 'move', 'copy', 'test'] as const;
type OpName = (typeof OPS)[number];

interface Op {
  index: number;
  op: OpName;
  path: string;
  tokens: string[];
  from?: string;
  fromTokens?: string[];
  value?: unknown;
}

const REJECTED = 'the server rejected our request due to an error in our request';

/** Applies an RFC 6902 patch (the decoded request body) to a copy of `target` and returns the copy. */
export function applyJsonPatch(target: unknown, ops: unknown): unknown {
  const parsed = parseOps(ops);
  let doc = cloneJson(target);
  for (const op of parsed) {
    checkApplies(doc, op);
    // `test` changes nothing and was fully decided above with RFC equality.
    if (op.op === 'test') continue;
    doc = applyOne(doc, op);
  }
  return doc;
}

/** Validates the whole document's shape before anything is applied, so a malformed patch is always 400. */
function parseOps(ops: unknown): Op[] {
  if (!Array.isArray(ops)) {
    throw badRequest(`invalid JSON patch: the body must be a JSON array of operations, got ${typeName(ops)}`);
  }
  return ops.map((raw: unknown, index): Op => {
    const bad = (why: string) => badRequest(`invalid JSON patch: operation ${index}: ${why}`);
    if (!isJsonObject(raw)) throw bad(`must be an object, got ${typeName(raw)}`);
    const name = hasOwn(raw, 'op') ? raw.op : undefined;
    if (typeof name !== 'string' || !(OPS as readonly string[]).includes(name)) {
      throw bad(
        name === undefined
          ? 'missing "op"'
          : `unsupported "op" ${JSON.stringify(name)}: must be one of ${OPS.map((o) => `"${o}"`).join(', ')}`,
      );
    }
    const op = name as OpName;
    const path = hasOwn(raw, 'path') ? raw.path : undefined;
    if (typeof path !== 'string') throw bad(`${op}: ${path === undefined ? 'missing "path"' : '"path" must be a string'}`);
    const tokens = parsePointer(path);
    if (typeof tokens === 'string') throw bad(`${op}: invalid "path" ${JSON.stringify(path)}: ${tokens}`);
    const out: Op = { index, op, path, tokens };
    if (op === 'move' || op === 'copy') {
      const from = hasOwn(raw, 'from') ? raw.from : undefined;
      if (typeof from !== 'string') throw bad(`${op}: ${from === undefined ? 'missing "from"' : '"from" must be a string'}`);
      const fromTokens = parsePointer(from);
      if (typeof fromTokens === 'string') throw bad(`${op}: invalid "from" ${JSON.stringify(from)}: ${fromTokens}`);
      out.from = from;
      out.fromTokens = fromTokens;
    }
    if (op === 'add' || op === 'replace' || op === 'test') {
      if (!hasOwn(raw, 'value') || raw.value === undefined) throw bad(`${op}: missing "value"`);
      // Copied so the result never aliases the caller's patch document.
      out.value = cloneJson(raw.value);
    }
    return out;
  });
}

/** RFC 6901: '' is the whole document; otherwise '/'-separated tokens with `~1` = '/' and `~0` = '~'. */
export function parsePointer(pointer: string): string[] | string {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return "a JSON pointer must be empty or start with '/'";
  if (/~(?![01])/.test(pointer)) return "'~' must be followed by '0' or '1'";
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Throws the 422 for an operation that cannot apply to `doc` as it is now. */
function checkApplies(doc: unknown, op: Op): void {
  const fail = (why: string) =>
    new StatusError(422, 'Invalid', `${REJECTED}: jsonpatch ${op.op} operation does not apply: ${why} (operation ${op.index})`);

  const banned = bannedSegment(op.tokens) ?? (op.fromTokens && bannedSegment(op.fromTokens));
  if (banned) throw fail(`the key ${JSON.stringify(banned)} may not be used in a patch path`);

  if (op.op === 'move' || op.op === 'copy') {
    const fromTokens = op.fromTokens ?? [];
    if (!lookup(doc, fromTokens).found) throw fail(`doc is missing from path ${JSON.stringify(op.from)}`);
    if (op.op === 'move' && fromTokens.length < op.tokens.length && fromTokens.every((t, i) => t === op.tokens[i])) {
      throw fail(`cannot move ${JSON.stringify(op.from)} into its own child ${JSON.stringify(op.path)}`);
    }
  }

  if (op.op === 'remove' || op.op === 'replace' || op.op === 'test') {
    const hit = lookup(doc, op.tokens);
    if (!hit.found) throw fail(hit.why ?? `doc is missing path ${JSON.stringify(op.path)}`);
    if (op.op === 'test' && !jsonEqual(hit.value, op.value)) {
      throw fail(`doc is not equal to the value at path ${JSON.stringify(op.path)}`);
    }
    return;
  }

  // add, and the destination of move/copy: the parent must exist; an array index may equal the length.
  if (op.tokens.length === 0) return;
  const parent = lookup(doc, op.tokens.slice(0, -1));
  const key = op.tokens[op.tokens.length - 1] ?? '';
  if (!parent.found) throw fail(parent.why ?? `doc is missing path ${JSON.stringify(op.path)}`);
  if (Array.isArray(parent.value)) {
    if (key === '-') return;
    const i = arrayIndex(key);
    if (i === undefined) throw fail(`${JSON.stringify(key)} is not a valid array index at path ${JSON.stringify(op.path)}`);
    if (i > parent.value.length) throw fail(`index ${i} is out of range at path ${JSON.stringify(op.path)}`);
  } else if (!isJsonObject(parent.value)) {
    throw fail(`doc is missing path ${JSON.stringify(op.path)}`);
  }
}

/** Resolves a pointer with own-property semantics; `why` explains array-index failures. */
function lookup(doc: unknown, tokens: string[]): { found: boolean; value?: unknown; why?: string } {
  let cur = doc;
  for (const [n, t] of tokens.entries()) {
    const at = JSON.stringify(`/${tokens.slice(0, n + 1).map(escapeToken).join('/')}`);
    if (Array.isArray(cur)) {
      const i = arrayIndex(t);
      if (i === undefined) return { found: false, why: `${JSON.stringify(t)} is not a valid array index at path ${at}` };
      if (i >= cur.length) return { found: false, why: `index ${i} is out of range at path ${at}` };
      cur = cur[i];
    } else if (isJsonObject(cur) && hasOwn(cur, t)) {
      cur = cur[t];
    } else {
      return { found: false, why: `doc is missing path ${at}` };
    }
  }
  return { found: true, value: cur };
}

/** RFC 6901 array index: `0` or digits without a leading zero. `-` is handled by the callers that allow it. */
function arrayIndex(token: string): number | undefined {
  return /^(0|[1-9][0-9]*)$/.test(token) && token.length < 16 ? Number(token) : undefined;
}

/** fast-json-patch refuses these segments to protect prototypes; report them as ours instead of a TypeError. */
function bannedSegment(tokens: string[]): string | undefined {
  for (const [i, t] of tokens.entries()) {
    if (t === '__proto__' || (t === 'prototype' && tokens[i - 1] === 'constructor')) return t;
  }
  return undefined;
}

function applyOne(doc: unknown, op: Op): unknown {
  const operation = { op: op.op, path: op.path, from: op.from, value: op.value } as jsonpatch.Operation;
  try {
    // validate=true, mutate=true (doc is already our private copy), banPrototypeModifications=true
    return jsonpatch.applyOperation(doc, operation, true, true, true, op.index).newDocument;
  } catch (e) {
    // Our checks above should make this unreachable; still, never let a library error escape raw.
    const why = e instanceof Error ? e.message : String(e);
    throw new StatusError(
      422,
      'Invalid',
      `${REJECTED}: jsonpatch ${op.op} operation does not apply: ${why} at path ${JSON.stringify(op.path)} (operation ${op.index})`,
    );
  }
}

const escapeToken = (t: string) => t.replace(/~/g, '~0').replace(/\//g, '~1');

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}
