/**
 * The JSONPath template language of the reference's command-line client (`-o jsonpath=`, `wait
 * --for=jsonpath=`, CRD printer columns): text with `{expression}` actions, `{range ...}{end}` loops and
 * quoted literals. A template is parsed once into a tree and evaluated many times; evaluation is pure.
 *
 * Deliberate choices: a quoted bracket key (`['a.b']`) is one literal key, as `.a\.b` is; an index or
 * slice outside the list yields nothing (the reference errors); comparisons between values of different
 * types are simply false.
 */

export class JsonPathError extends Error {
  override name = 'JsonPathError';
}

type Literal = string | number | boolean;
type Op = '==' | '!=' | '<' | '>' | '<=' | '>=';
type Segment =
  | { k: 'field'; name: string }
  | { k: 'wildcard' }
  | { k: 'recursive' }
  | { k: 'index'; at: number }
  | { k: 'slice'; start?: number; end?: number; step: number }
  | { k: 'filter'; left: Operand; op?: Op; right?: Operand }
  | { k: 'union'; branches: Segment[] };
type Operand = { k: 'path'; segs: Segment[] } | { k: 'literal'; value: Literal };
type TemplateNode =
  | { k: 'text'; text: string }
  | { k: 'expr'; expr: Operand }
  | { k: 'range'; expr: Segment[]; body: TemplateNode[] };

export interface PrintOptions {
  /** When false, a field missing from the object is an error (the client's `--allow-missing-template-keys=false`). */
  allowMissingKeys?: boolean;
}

export interface CompiledJsonPath {
  readonly template: string;
  /** The values of every `{...}` action, in evaluation order (one list per action and range iteration). */
  results(obj: unknown, opts?: PrintOptions): unknown[][];
  /** The text the client prints: strings bare, objects and lists as compact JSON, values of one action space-separated. */
  print(obj: unknown, opts?: PrintOptions): string;
}

const OPS: Op[] = ['==', '!=', '<=', '>=', '<', '>'];
const SLICE = /^(-?\d*)(?::(-?\d*))?(?::(-?\d*))?$/;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const BARE_KEY = /^[A-Za-z_][\w-]*$/;
/** Characters that end a `.field` name unless escaped with a backslash. */
const FIELD_END = new Set([' ', '\t', '\n', '\r', '.', ',', '[', ']', '$', '@', '{', '}', '(', ')', '=', '!', '<', '>']);

const fail = (msg: string, src: string): never => {
  throw new JsonPathError(`${msg} in ${JSON.stringify(src)}`);
};

/** Index of the character closing the bracket opened at `from` (`open` at src[from]), skipping quoted text. */
function closing(src: string, from: number, open: string, close: string): number {
  let depth = 0;
  for (let i = from; i < src.length; i++) {
    const c = src[i];
    if (c === '"' || c === "'") {
      i = endOfQuote(src, i);
      continue;
    }
    if (c === open) depth++;
    else if (c === close && --depth === 0) return i;
  }
  return fail(`unclosed ${open}`, src);
}

function endOfQuote(src: string, from: number): number {
  const q = src[from];
  for (let i = from + 1; i < src.length; i++) {
    if (src[i] === '\\') i++;
    else if (src[i] === q) return i;
  }
  return fail('unterminated quoted string', src);
}

function unquote(text: string, src: string): string {
  const body = text.slice(1, -1);
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as string;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = body[++i];
    if (e === 'n') out += '\n';
    else if (e === 't') out += '\t';
    else if (e === 'r') out += '\r';
    else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(body.slice(i + 1, i + 5))) {
      out += String.fromCharCode(parseInt(body.slice(i + 1, i + 5), 16));
      i += 4;
    } else if (e === '\\' || e === '"' || e === "'" || e === '/') out += e;
    else fail(`invalid escape \\${e ?? ''}`, src);
  }
  return out;
}

/** Splits `text` at top-level occurrences of `sep` (outside quotes and brackets). */
function splitTop(text: string, sep: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"' || c === "'") i = endOfQuote(text, i);
    else if (c === '[' || c === '(') depth++;
    else if (c === ']' || c === ')') depth--;
    else if (c === sep && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

function literalOf(text: string, src: string): Literal | undefined {
  if (text.startsWith('"') || text.startsWith("'")) {
    if (text.length < 2 || endOfQuote(text, 0) !== text.length - 1) fail('unexpected text after quoted string', src);
    return unquote(text, src);
  }
  if (text === 'true' || text === 'false') return text === 'true';
  if (NUMBER.test(text)) return Number(text);
  return undefined;
}

function operand(text: string, src: string): Operand {
  const t = text.trim();
  if (t === '') fail('empty expression', src);
  const value = literalOf(t, src);
  return value === undefined ? { k: 'path', segs: parsePath(t, src) } : { k: 'literal', value };
}

/** One bracket's content: a key, an index, a slice, a wildcard or a union of those. */
function bracket(content: string, src: string): Segment {
  const text = content.trim();
  if (text === '*') return { k: 'slice', step: 1 };
  const parts = splitTop(text, ',');
  if (parts.length > 1) return { k: 'union', branches: parts.map((p) => bracket(p, src)) };
  if (text.startsWith('"') || text.startsWith("'")) {
    const key = literalOf(text, src);
    return { k: 'field', name: String(key) };
  }
  if (BARE_KEY.test(text)) return { k: 'field', name: text };
  const m = SLICE.exec(text.replace(/\s+/g, ''));
  if (!m || text === '') return fail(`invalid array index ${JSON.stringify(text)}`, src);
  const num = (s: string | undefined) => (s === undefined || s === '' ? undefined : Number(s));
  if (m[2] === undefined && m[3] === undefined) return { k: 'index', at: num(m[1]) as number };
  const step = num(m[3]) ?? 1;
  if (step <= 0) fail('slice step must be greater than 0', src);
  return { k: 'slice', start: num(m[1]), end: num(m[2]), step };
}

function filter(content: string, src: string): Segment {
  let depth = 0;
  for (let i = 0; i < content.length; i++) {
    const c = content[i];
    if (c === '"' || c === "'") i = endOfQuote(content, i);
    else if (c === '[' || c === '(') depth++;
    else if (c === ']' || c === ')') depth--;
    else if (depth === 0) {
      const op = OPS.find((o) => content.startsWith(o, i));
      if (op) return { k: 'filter', left: operand(content.slice(0, i), src), op, right: operand(content.slice(i + op.length), src) };
    }
  }
  const left = operand(content, src);
  if (left.k !== 'path') fail('a filter without a comparison must be a path', src);
  return { k: 'filter', left };
}

/** A path such as `@.a.b[0]..c[?(@.x>1)]`; `@` and `$` both stand for the current value. */
function parsePath(text: string, src: string): Segment[] {
  const segs: Segment[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === ' ' || c === '\t' || c === '@' || c === '$') {
      i++;
    } else if (text.startsWith('..', i)) {
      if (segs.at(-1)?.k === 'recursive') fail('invalid multiple recursive descent', src);
      segs.push({ k: 'recursive' });
      i += 2;
      if (i < text.length && !FIELD_END.has(text[i] as string)) i = field(text, i, segs);
    } else if (c === '.') {
      i = field(text, i + 1, segs);
    } else if (c === '[') {
      const end = closing(text, i, '[', ']');
      const inner = text.slice(i + 1, end);
      if (inner.startsWith('?(')) {
        if (!inner.endsWith(')')) fail('unclosed filter', src);
        segs.push(filter(inner.slice(2, -1), src));
      } else segs.push(bracket(inner, src));
      i = end + 1;
    } else {
      fail(`unrecognized character ${JSON.stringify(c)} at position ${i}`, src);
    }
  }
  return segs;
}

/** Reads a `.field` name from `i` (backslash escapes a terminator); `*` is the wildcard. */
function field(text: string, i: number, segs: Segment[]): number {
  let name = '';
  let j = i;
  while (j < text.length && !FIELD_END.has(text[j] as string)) {
    if (text[j] === '\\' && j + 1 < text.length) j++;
    name += text[j];
    j++;
  }
  segs.push(name === '*' && text.slice(i, j) === '*' ? { k: 'wildcard' } : { k: 'field', name });
  return j;
}

/** Parses a template; a bad one throws JsonPathError naming the problem. */
export function parseJsonPath(template: string): CompiledJsonPath {
  const stack: TemplateNode[][] = [[]];
  const open: { expr: Segment[] }[] = [];
  let i = 0;
  while (i < template.length) {
    const start = template.indexOf('{', i);
    const top = stack.at(-1) as TemplateNode[];
    if (start < 0) {
      top.push({ k: 'text', text: template.slice(i) });
      break;
    }
    if (start > i) top.push({ k: 'text', text: template.slice(i, start) });
    const end = closing(template, start, '{', '}');
    const action = template.slice(start + 1, end).trim();
    i = end + 1;
    if (action === 'end') {
      const body = stack.pop();
      const r = open.pop();
      if (!r || !body) fail('{end} without {range}', template);
      else (stack.at(-1) as TemplateNode[]).push({ k: 'range', expr: r.expr, body });
    } else if (/^range(\s|$)/.test(action)) {
      const expr = action.slice(5).trim();
      if (expr === '') fail('{range} needs an expression', template);
      open.push({ expr: parsePath(expr, template) });
      stack.push([]);
    } else if (action === '') {
      fail('empty action', template);
    } else {
      top.push({ k: 'expr', expr: operand(action, template) });
    }
  }
  if (open.length > 0) fail('{range} without {end}', template);
  return compiled(template, stack[0] as TemplateNode[]);
}

// ---- evaluation ----

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function children(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  if (isObj(v)) return Object.values(v);
  return [];
}

function descendants(v: unknown, out: unknown[]): void {
  out.push(v);
  for (const c of children(v)) descendants(c, out);
}

function compare(a: unknown, op: Op, b: unknown): boolean {
  if (op === '==') return typeof a === typeof b && a === b;
  if (op === '!=') return !(typeof a === typeof b && a === b);
  if (typeof a !== typeof b || (typeof a !== 'number' && typeof a !== 'string')) return false;
  const x = a as number | string;
  const y = b as number | string;
  return op === '<' ? x < y : op === '>' ? x > y : op === '<=' ? x <= y : x >= y;
}

function sliceOf(list: unknown[], s: { start?: number; end?: number; step: number }): unknown[] {
  const n = list.length;
  const clip = (v: number) => Math.min(Math.max(v < 0 ? v + n : v, 0), n);
  const out: unknown[] = [];
  for (let i = clip(s.start ?? 0), end = clip(s.end ?? n); i < end; i += s.step) out.push(list[i]);
  return out;
}

function operandValues(o: Operand, v: unknown): unknown[] {
  return o.k === 'literal' ? [o.value] : evalPath(o.segs, [v], false);
}

function matches(seg: Extract<Segment, { k: 'filter' }>, item: unknown): boolean {
  const left = operandValues(seg.left, item);
  if (!seg.op || !seg.right) return left.length > 0;
  const right = operandValues(seg.right, item);
  return left.length === 1 && right.length === 1 && compare(left[0], seg.op, right[0]);
}

function step(seg: Segment, input: unknown[], strict: boolean): unknown[] {
  const out: unknown[] = [];
  switch (seg.k) {
    case 'field':
      if (seg.name === '') return input;
      for (const v of input) if (isObj(v) && Object.hasOwn(v, seg.name)) out.push(v[seg.name]);
      if (strict && out.length === 0) throw new JsonPathError(`${seg.name} is not found`);
      return out;
    case 'wildcard':
      for (const v of input) out.push(...(isObj(v) ? Object.keys(v).sort().map((k) => v[k]) : children(v)));
      return out;
    case 'recursive':
      for (const v of input) descendants(v, out);
      return out;
    case 'index':
      for (const v of input) {
        if (!Array.isArray(v)) continue;
        const at = seg.at < 0 ? seg.at + v.length : seg.at;
        if (at >= 0 && at < v.length) out.push(v[at]);
      }
      return out;
    case 'slice':
      for (const v of input) if (Array.isArray(v)) out.push(...sliceOf(v, seg));
      return out;
    case 'filter':
      for (const v of input) if (Array.isArray(v)) out.push(...v.filter((item) => matches(seg, item)));
      return out;
    case 'union':
      for (const v of input) for (const b of seg.branches) out.push(...step(b, [v], false));
      return out;
  }
}

function evalPath(segs: Segment[], input: unknown[], strict: boolean): unknown[] {
  let cur = input;
  for (const seg of segs) cur = step(seg, cur, strict);
  return cur;
}

/** Go's encoding/json form: sorted object keys and HTML-sensitive characters escaped. */
function goJson(v: unknown): string {
  const sorted = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(sorted);
    if (!isObj(x)) return x;
    const o: Record<string, unknown> = {};
    for (const k of Object.keys(x).sort()) o[k] = sorted(x[k]);
    return o;
  };
  return JSON.stringify(sorted(v)).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function formatJsonPathValue(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'object') return goJson(v);
  return String(v);
}

function walk(nodes: TemplateNode[], cur: unknown, strict: boolean, visit: (values: unknown[] | string) => void): void {
  for (const n of nodes) {
    if (n.k === 'text') visit(n.text);
    else if (n.k === 'expr') visit(n.expr.k === 'literal' ? [n.expr.value] : evalPath(n.expr.segs, [cur], strict));
    else for (const item of evalPath(n.expr, [cur], strict)) walk(n.body, item, strict, visit);
  }
}

function compiled(template: string, nodes: TemplateNode[]): CompiledJsonPath {
  return {
    template,
    results(obj, opts = {}) {
      const out: unknown[][] = [];
      walk(nodes, obj, opts.allowMissingKeys === false, (v) => typeof v !== 'string' && out.push(v));
      return out;
    },
    print(obj, opts = {}) {
      let text = '';
      walk(nodes, obj, opts.allowMissingKeys === false, (v) => {
        text += typeof v === 'string' ? v : v.map(formatJsonPathValue).join(' ');
      });
      return text;
    },
  };
}

const columnPaths = new Map<string, CompiledJsonPath>();
const MAX_CACHED_COLUMN_PATHS = 4096;

/**
 * A printer column's value: `path` is written without braces (`.spec.replicas`); the first result, or
 * undefined when there is none. Compiled paths are cached; a bad path throws JsonPathError.
 */
export function evaluateColumnPath(path: string, obj: unknown): unknown {
  let c = columnPaths.get(path);
  if (!c) {
    c = parseJsonPath(`{${path}}`);
    if (columnPaths.size >= MAX_CACHED_COLUMN_PATHS) columnPaths.clear();
    columnPaths.set(path, c);
  }
  return c.results(obj)[0]?.[0];
}
