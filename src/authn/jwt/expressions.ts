/**
 * The CEL side of the authentication configuration: claim rules and mappings see `claims` (the token's
 * payload), user validation rules see `user` (username, uid, groups, extra). Compiled and type-checked when
 * the file loads; evaluated per verified token.
 */
import { celEnvironment, compileCel, type CelEnvironment, type CompiledCel, type ResultType } from '../../cel/index.js';
import type { FieldErrors } from './field-errors.js';

let claimsEnv: CelEnvironment | undefined;
let userEnv: CelEnvironment | undefined;

/** Compiles an expression over `claims` (or `user`), recording a failure at `path` in `errs`. */
export function compileExpression(
  variable: 'claims' | 'user',
  expression: string,
  result: ResultType,
  path: string,
  errs: FieldErrors,
): CompiledCel | undefined {
  const env = variable === 'claims' ? (claimsEnv ??= celEnvironment(['claims'])) : (userEnv ??= celEnvironment(['user']));
  try {
    return compileCel(env, expression, result);
  } catch (e) {
    errs.invalid(path, expression, (e as Error).message);
    return undefined;
  }
}

/**
 * True when the expression selects `claims.<field>` (including inside `has()`), as the reference checks
 * it: an index like `claims["email"]` is not a selection.
 */
export function selectsClaim(expression: string, field: string): boolean {
  const env = (claimsEnv ??= celEnvironment(['claims']));
  let ast: unknown;
  try {
    ast = env.env.parse(expression).ast;
  } catch {
    return false;
  }
  return containsSelection(ast, field, new Set());
}

/** Searches the parsed tree (nodes `{op, args}`, arguments nested in arrays) for `claims.<field>`. */
function containsSelection(node: unknown, field: string, seen: Set<unknown>): boolean {
  if (node === null || typeof node !== 'object' || seen.has(node)) return false;
  seen.add(node);
  const n = node as { op?: unknown; args?: unknown };
  if (n.op === '.' && Array.isArray(n.args) && n.args[1] === field) {
    const operand = n.args[0] as { op?: unknown; args?: unknown } | undefined;
    if (operand?.op === 'id' && operand.args === 'claims') return true;
  }
  for (const v of Array.isArray(node) ? node : Object.values(node)) if (containsSelection(v, field, seen)) return true;
  return false;
}

/** The string list a groups or extra expression produced (a string, a list of strings, or null). */
export function stringList(value: unknown, what: string): string[] {
  if (value === null || value === undefined) return [];
  if (typeof value === 'string') return value === '' ? [] : [value];
  if (Array.isArray(value)) {
    const out: string[] = [];
    for (const v of value) {
      if (typeof v !== 'string') throw new Error(`${what} must return a string or a list of strings`);
      if (v !== '') out.push(v);
    }
    return out;
  }
  throw new Error(`${what} must return a string or a list of strings`);
}
