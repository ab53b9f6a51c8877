/**
 * Compiling CEL: an environment declares the variables expressions may name (each `dyn`: the values are
 * JSON-shaped objects); compilation parses, type-checks, checks the result type, and meters every
 * comprehension against the evaluation's budget.
 */
import { Environment } from '@marcbachmann/cel-js';
import { EvaluationBudget } from './budget.js';

export type ResultType = 'bool' | 'string' | 'any';

export interface CelEnvironment {
  readonly variables: readonly string[];
  /** @internal the library's environment */
  readonly env: Environment;
}

export interface CompiledCel {
  readonly expression: string;
  /** Throws an Error whose message says why the expression could not be evaluated. */
  evaluate(activation: Record<string, unknown>, budget?: EvaluationBudget): unknown;
}

export const firstLine = (message: string): string => message.split('\n', 1)[0] ?? message;

/** An environment in which each of `variables` is declared with the dynamic type. */
export function celEnvironment(variables: readonly string[]): CelEnvironment {
  const env = new Environment({ homogeneousAggregateLiterals: false });
  for (const v of variables) env.registerVariable(v, 'dyn');
  return { variables, env };
}

export interface AstNode {
  op?: string;
  args?: unknown;
  meta?: { alternate?: AstNode; macro?: AstNode };
  handle?: (items: unknown, ...rest: unknown[]) => unknown;
}

/** Visits every AST node, macro expansions included. */
export function walkAst(node: unknown, visit: (n: AstNode) => void, seen = new Set<unknown>()): void {
  if (node === null || typeof node !== 'object' || seen.has(node)) return;
  seen.add(node);
  // A call's arguments are a list inside its args (`['size', [arg]]`).
  if (Array.isArray(node)) {
    for (const x of node) walkAst(x, visit, seen);
    return;
  }
  const n = node as AstNode;
  if (typeof n.op === 'string') {
    visit(n);
    walkAst(n.meta?.alternate, visit, seen);
    walkAst(n.meta?.macro, visit, seen);
  }
  const args = n.args;
  if (Array.isArray(args)) for (const a of args) walkAst(a, visit, seen);
  else if (args !== null && typeof args === 'object') {
    if (typeof (args as AstNode).op === 'string') walkAst(args, visit, seen);
    else for (const v of Object.values(args)) walkAst(v, visit, seen);
  }
}

export const isIdentifier = (n: unknown, name: string): boolean => (n as AstNode | undefined)?.op === 'id' && (n as AstNode).args === name;

let currentBudget: EvaluationBudget | undefined;

/** Charges each comprehension's iterations to the evaluation's budget before it runs them. */
function meterComprehensions(ast: unknown): void {
  walkAst(ast, (n) => {
    if (n.op !== 'comprehension' || typeof n.handle !== 'function') return;
    const run = n.handle;
    n.handle = (items: unknown, ...rest: unknown[]) => {
      const size = Array.isArray(items) ? items.length : items instanceof Map ? items.size : items && typeof items === 'object' ? Object.keys(items).length : 0;
      currentBudget?.charge(size + 1);
      return run(items, ...rest);
    };
  });
}

/**
 * Compiles one expression in `environment`; throws an Error with a one-line reason (`compilation failed:
 * ...` or `must evaluate to ...`). `check` may name a problem the type checker does not see (an
 * undeclared member, a refused variable); it gets the parsed AST.
 */
export function compileCel(
  environment: CelEnvironment,
  expression: string,
  result: ResultType,
  check?: (ast: unknown) => string | undefined,
): CompiledCel {
  let parsed;
  try {
    parsed = environment.env.parse(expression);
  } catch (e) {
    throw new Error(`compilation failed: ${firstLine((e as Error).message)}`);
  }
  const problem = check?.(parsed.ast);
  if (problem) throw new Error(`compilation failed: ${problem}`);
  const checked = parsed.check();
  if (!checked.valid) throw new Error(`compilation failed: ${firstLine(checked.error?.message ?? 'type check failed')}`);
  if (result !== 'any' && checked.type !== result && checked.type !== 'dyn') throw new Error(`must evaluate to ${result}, not ${checked.type}`);
  meterComprehensions(parsed.ast);
  const run = parsed;
  return {
    expression,
    evaluate(activation, budget = new EvaluationBudget()) {
      const outer = currentBudget;
      currentBudget = budget;
      try {
        budget.charge(1);
        return run(activation);
      } finally {
        currentBudget = outer;
      }
    },
  };
}
