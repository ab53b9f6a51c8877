/**
 * A cel-js type-check error in the words and layout of the reference's CEL issues:
 *
 *   ERROR: <input>:1:7: undefined field 'replicas'
 *    | object.replicas > 1
 *    | ......^
 *
 * The location is where the reference's parser places the failing node: the dot of a field selection, the
 * operator of an operator call, the opening parenthesis of a function call.
 */
import type { AstNode } from '../../cel/compile.js';
import { firstLine } from '../../cel/compile.js';

type CheckedNode = AstNode & { pos?: number; start?: number; end?: number; checkedType?: { name?: string } };

/** The reference's names of the operators cel-js names by their token. */
const OPERATOR_NAMES: Record<string, string> = {
  '==': '_==_',
  '!=': '_!=_',
  '<': '_<_',
  '<=': '_<=_',
  '>': '_>_',
  '>=': '_>=_',
  '+': '_+_',
  '-': '_-_',
  '*': '_*_',
  '/': '_/_',
  '%': '_%_',
  in: '@in',
  '&&': '_&&_',
  '||': '_||_',
  '[]': '_[_]',
};

/** A type as the reference prints it: `list(string)`, `map(string, int)`, `null_type`. */
export function referenceTypeName(name: string | undefined): string {
  if (name === undefined) return 'dyn';
  if (name === 'null') return 'null_type';
  return name.replace(/</g, '(').replace(/>/g, ')');
}

const typeOf = (n: unknown): string => referenceTypeName((n as CheckedNode | undefined)?.checkedType?.name);
const noOverload = (fn: string, args: string) => `found no matching overload for '${fn}' applied to '${args}'`;

/** Where `token` is written between two offsets (the operator between its operands), else `fallback`. */
function tokenAt(expression: string, token: string, from: number | undefined, to: number | undefined, fallback: number): number {
  if (from === undefined) return fallback;
  const at = expression.indexOf(token, from);
  return at >= 0 && (to === undefined || at < to) ? at : fallback;
}

/** The reference's message for a cel-js error at `node`, and the offset it points at. */
function translate(raw: string, node: CheckedNode | undefined, expression: string): { message: string; offset: number } {
  const pos = node?.pos ?? 0;
  // cel-js points a field selection at the field's name, the reference at the dot before it.
  const dot = node?.op === '.' ? Math.max(expression.lastIndexOf('.', pos - 1), node.start ?? 0) : pos;
  const args = Array.isArray(node?.args) ? (node.args as CheckedNode[]) : [];
  let m = /^No such key: (.+)$/.exec(raw);
  if (m) return { message: `undefined field '${m[1]}'`, offset: dot };
  m = /^Cannot index type '(.+)'$/.exec(raw);
  if (m && node?.op === '.') return { message: `type '${referenceTypeName(m[1])}' does not support field selection`, offset: dot };
  const op = node?.op ?? '';
  if (raw.startsWith('no such overload: ') && (op === '!_' || op === '-_')) {
    return { message: noOverload(op, `(${typeOf(node?.args)})`), offset: pos };
  }
  if ((raw.startsWith('no such overload: ') || raw.startsWith('Logical operator requires bool')) && OPERATOR_NAMES[op] && args.length === 2) {
    const [left, right] = args;
    const offset = tokenAt(expression, op === '[]' ? '[' : op, left?.end, right?.start, pos);
    return { message: noOverload(OPERATOR_NAMES[op]!, `(${typeOf(left)}, ${typeOf(right)})`), offset };
  }
  if (raw.startsWith('Ternary branches') && op === '?:' && args.length === 3) {
    const offset = tokenAt(expression, '?', args[0]?.end, args[1]?.start, pos);
    return { message: noOverload('_?_:_', `(${typeOf(args[0])}, ${typeOf(args[1])}, ${typeOf(args[2])})`), offset };
  }
  m = /^found no matching overload for '(.*)\((.*)\)'$/s.exec(raw);
  const fn = node?.args && Array.isArray(node.args) && typeof node.args[0] === 'string' ? node.args[0] : undefined;
  if (m && fn && (op === 'call' || op === 'rcall')) {
    const argTypes = referenceTypeName(m[2]);
    const receiver = op === 'rcall' ? `${typeOf(args[1])}.` : '';
    const offset = tokenAt(expression, `${fn}(`, op === 'rcall' ? args[1]?.end : node?.start, node?.end, pos - fn.length) + fn.length;
    return { message: noOverload(fn, `${receiver}(${argTypes})`), offset };
  }
  return { message: raw, offset: pos };
}

/** One issue, located by line and column and shown under its source line. */
export function referenceIssue(expression: string, error: { message: string; node?: unknown }): string {
  const { message, offset } = translate(firstLine(error.message), error.node as CheckedNode | undefined, expression);
  const clamped = Math.max(0, Math.min(offset, expression.length));
  const before = expression.slice(0, clamped);
  const line = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  const column = clamped - lineStart;
  const end = expression.indexOf('\n', lineStart);
  const text = expression.slice(lineStart, end < 0 ? undefined : end);
  return `ERROR: <input>:${line}:${column + 1}: ${message}\n | ${text}\n | ${'.'.repeat(column)}^`;
}
