/**
 * JSON patch, RFC 6902 (spec 4.3, `application/json-patch+json`), applied with fast-json-patch.
 *
 * Errors follow one rule: a malformed patch document is 400 BadRequest; a well-formed patch that does not
 * apply to this object (failed test, missing path, bad array index) is 422 Invalid. Every operation is
 * checked against the current document before fast-json-patch sees it, with own-property semantics (the
 * library looks up keys through the prototype chain, so `/toString` would "exist"), and so each failure gets
 * a message naming the operation, its index and its path. Pure: inputs are never mutated.
 *
 * Bounded as the reference bounds it: at most 10,000 operations (413), and the bytes that `copy` operations
 * add up to at most the request body limit (422, measured before anything is copied), so a small patch
 * cannot double a value until the heap is gone. The result may be no larger than a body, and nest no
 * deeper than a body may (or than the object already did).
 */
import jsonpatch from 'fast-json-patch';
import { StatusError, badRequest, quote, tooLarge } from '../errors/index.js';
import { inspectTree, MAX_JSON_PATCH_OPERATIONS, MAX_NESTING_DEPTH, MAX_REQUEST_BYTES } from '../encoding/limits.js';
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
  if (Array.isArray(ops) && ops.length > MAX_JSON_PATCH_OPERATIONS) {
    throw tooLarge(`Request entity too large: The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${ops.length}`);
  }
  const parsed = parseOps(ops);
  let doc = cloneJson(target);
  // A stored object may already be a little deeper than a body may be (its managedFields mirror deep
  // fields): a patch may not nest deeper than the limit or than the object already does.
  const before = inspectTree(doc, { maxDepth: Infinity, maxBytes: Infinity });
  const maxDepth = Math.max(MAX_NESTING_DEPTH, before.ok ? before.depth : 0);
  let copied = 0;
  for (const op of parsed) {
    checkApplies(doc, op);
    // `test` changes nothing and was fully decided above with RFC equality.
    if (op.op === 'test') continue;
    if (op.op === 'copy') copied += checkCopy(doc, op, copied, maxDepth);
    doc = applyOne(doc, op);
  }
  checkResult(doc, maxDepth);
  return doc;
}

/**
 * The size of what a `copy` adds, measured before it is made; throws once all copies of the patch would
 * add more than the body limit (the reference's accumulated copy limit), or nest the copy too deep.
 */
function checkCopy(doc: unknown, op: Op, copiedSoFar: number, maxDepth: number): number {
  const source = lookup(doc, op.fromTokens ?? []).value;
  const report = inspectTree(source, { maxDepth: maxDepth - op.tokens.length, maxBytes: MAX_REQUEST_BYTES - copiedSoFar });
  if (report.ok) return report.bytes;
  const why =
    report.problem === 'depth'
      ? `the copy would nest deeper than the limit of ${maxDepth} levels`
      : `Unable to complete the copy, the accumulated size increase of copy is over ${MAX_REQUEST_BYTES} bytes, exceeding the limit ${MAX_REQUEST_BYTES}`;
  throw new StatusError(422, 'Invalid', `${REJECTED}: jsonpatch copy operation does not apply: ${why} (operation ${op.index})`);
}

/** The patched document must be within the limits of any request: no deeper than allowed, no larger. */
function checkResult(doc: unknown, maxDepth: number): void {
  const report = inspectTree(doc, { maxDepth, maxBytes: MAX_REQUEST_BYTES });
  if (report.ok) return;
  if (report.problem === 'depth') {
    throw new StatusError(422, 'Invalid', `${REJECTED}: the patched object nests deeper than the limit of ${maxDepth} levels`);
  }
  throw tooLarge(`Request entity too large: the patched object is too large: the limit is ${MAX_REQUEST_BYTES} bytes`);
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
          : `unsupported "op" ${quote(name)}: must be one of ${OPS.map((o) => `"${o}"`).join(', ')}`,
      );
    }
    const op = name as OpName;
    const path = hasOwn(raw, 'path') ? raw.path : undefined;
    if (typeof path !== 'string') throw bad(`${op}: ${path === undefined ? 'missing "path"' : '"path" must be a string'}`);
    const tokens = parsePointer(path);
    if (typeof tokens === 'string') throw bad(`${op}: invalid "path" ${quote(path)}: ${tokens}`);
    const out: Op = { index, op, path, tokens };
    if (op === 'move' || op === 'copy') {
      const from = hasOwn(raw, 'from') ? raw.from : undefined;
      if (typeof from !== 'string') throw bad(`${op}: ${from === undefined ? 'missing "from"' : '"from" must be a string'}`);
      const fromTokens = parsePointer(from);
      if (typeof fromTokens === 'string') throw bad(`${op}: invalid "from" ${quote(from)}: ${fromTokens}`);
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
  if (banned) throw fail(`the key ${quote(banned)} may not be used in a patch path`);

  if (op.op === 'move' || op.op === 'copy') {
    const fromTokens = op.fromTokens ?? [];
    if (!lookup(doc, fromTokens).found) throw fail(`doc is missing from path ${quote(op.from)}`);
    if (op.op === 'move' && fromTokens.length < op.tokens.length && fromTokens.every((t, i) => t === op.tokens[i])) {
      throw fail(`cannot move ${quote(op.from)} into its own child ${quote(op.path)}`);
    }
  }

  if (op.op === 'remove' || op.op === 'replace' || op.op === 'test') {
    const hit = lookup(doc, op.tokens);
    if (!hit.found) throw fail(hit.why ?? `doc is missing path ${quote(op.path)}`);
    if (op.op === 'test' && !jsonEqual(hit.value, op.value)) {
      throw fail(`doc is not equal to the value at path ${quote(op.path)}`);
    }
    return;
  }

  // add, and the destination of move/copy: the parent must exist; an array index may equal the length.
  if (op.tokens.length === 0) return;
  const parent = lookup(doc, op.tokens.slice(0, -1));
  const key = op.tokens[op.tokens.length - 1] ?? '';
  if (!parent.found) throw fail(parent.why ?? `doc is missing path ${quote(op.path)}`);
  if (Array.isArray(parent.value)) {
    if (key === '-') return;
    const i = arrayIndex(key);
    if (i === undefined) throw fail(`${quote(key)} is not a valid array index at path ${quote(op.path)}`);
    if (i > parent.value.length) throw fail(`index ${i} is out of range at path ${quote(op.path)}`);
  } else if (!isJsonObject(parent.value)) {
    throw fail(`doc is missing path ${quote(op.path)}`);
  }
}

/** Resolves a pointer with own-property semantics; `why` explains array-index failures. */
function lookup(doc: unknown, tokens: string[]): { found: boolean; value?: unknown; why?: string } {
  let cur = doc;
  for (const [n, t] of tokens.entries()) {
    // Spelled out only on failure: building it for every token made long paths quadratic.
    const at = () => quote(`/${tokens.slice(0, n + 1).map(escapeToken).join('/')}`);
    if (Array.isArray(cur)) {
      const i = arrayIndex(t);
      if (i === undefined) return { found: false, why: `${quote(t)} is not a valid array index at path ${at()}` };
      if (i >= cur.length) return { found: false, why: `index ${i} is out of range at path ${at()}` };
      cur = cur[i];
    } else if (isJsonObject(cur) && hasOwn(cur, t)) {
      cur = cur[t];
    } else {
      return { found: false, why: `doc is missing path ${at()}` };
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
    // validate=false: checkApplies did it, and the library's own validation of a copy or move clones the
    // whole document per operation. mutate=true (doc is our private copy), banPrototypeModifications=true.
    return jsonpatch.applyOperation(doc, operation, false, true, true, op.index).newDocument;
  } catch (e) {
    // Our checks above should make this unreachable; still, never let a library error escape raw.
    const why = e instanceof Error ? e.message : String(e);
    throw new StatusError(
      422,
      'Invalid',
      `${REJECTED}: jsonpatch ${op.op} operation does not apply: ${why} at path ${quote(op.path)} (operation ${op.index})`,
    );
  }
}

const escapeToken = (t: string) => t.replace(/~/g, '~0').replace(/\//g, '~1');

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}
