/**
 * CEL for ValidatingAdmissionPolicy: the variables a policy expression sees, compilation with the checks
 * the reference does when a policy is used (types, declared `variables.<name>` only), and an evaluation
 * budget. CEL has no loops, so the work an expression does is bounded by how many times its
 * comprehensions (`all`, `exists`, `map`, `filter`, ...) iterate; every iteration is charged to a budget
 * shared by all expressions of one policy evaluation, which also has a wall-clock deadline.
 */
import { Environment } from '@marcbachmann/cel-js';

/** Every variable a policy expression may name; `authorizer` is refused (this server does not offer it). */
export const POLICY_VARIABLES = ['object', 'oldObject', 'request', 'params', 'namespaceObject', 'variables'] as const;

/** Comprehension iterations one policy evaluation may spend, and how long it may run. */
export const DEFAULT_ITERATION_BUDGET = 200_000;
export const DEFAULT_TIME_BUDGET_MS = 100;
export const BUDGET_EXCEEDED = 'operation cancelled: actual cost limit exceeded';

const environment = new Environment({ homogeneousAggregateLiterals: false });
for (const v of POLICY_VARIABLES) environment.registerVariable(v, 'dyn');

/** The spend of one policy evaluation. */
export class EvaluationBudget {
  private remaining: number;
  private readonly deadline: number;

  constructor(iterations = DEFAULT_ITERATION_BUDGET, timeMs = DEFAULT_TIME_BUDGET_MS) {
    this.remaining = iterations;
    this.deadline = performance.now() + timeMs;
  }

  charge(n: number): void {
    this.remaining -= n;
    if (this.remaining < 0 || performance.now() > this.deadline) throw new Error(BUDGET_EXCEEDED);
  }
}

let currentBudget: EvaluationBudget | undefined;

export type ResultType = 'bool' | 'string' | 'any';

export interface CompiledExpression {
  readonly expression: string;
  /** Throws an Error whose message says why the expression could not be evaluated. */
  evaluate(activation: Record<string, unknown>, budget: EvaluationBudget): unknown;
}

export const firstLine = (message: string): string => message.split('\n', 1)[0] ?? message;

interface AstNode {
  op?: string;
  args?: unknown;
  meta?: { alternate?: AstNode; macro?: AstNode };
  handle?: (items: unknown, ...rest: unknown[]) => unknown;
}

/** Visits every AST node, macro expansions included. */
function walk(node: unknown, visit: (n: AstNode) => void, seen = new Set<unknown>()): void {
  if (node === null || typeof node !== 'object' || seen.has(node)) return;
  seen.add(node);
  const n = node as AstNode;
  if (typeof n.op === 'string') {
    visit(n);
    walk(n.meta?.alternate, visit, seen);
    walk(n.meta?.macro, visit, seen);
  }
  const args = n.args;
  if (Array.isArray(args)) for (const a of args) walk(a, visit, seen);
  else if (args !== null && typeof args === 'object') {
    if (typeof (args as AstNode).op === 'string') walk(args, visit, seen);
    else for (const v of Object.values(args)) walk(v, visit, seen);
  }
}

const isId = (n: unknown, name: string) => (n as AstNode | undefined)?.op === 'id' && (n as AstNode).args === name;

/** Names the problems the reference's compiler reports that cel-js's checker does not. */
function referenceProblem(ast: unknown, variableNames: ReadonlySet<string>): string | undefined {
  let problem: string | undefined;
  walk(ast, (n) => {
    if (problem) return;
    if (isId(n, 'authorizer')) problem = 'undeclared reference to \'authorizer\' (the authorizer variable is not supported by this server)';
    if (n.op === '.' && Array.isArray(n.args) && isId(n.args[0], 'variables') && !variableNames.has(String(n.args[1]))) {
      problem = `undefined field '${String(n.args[1])}' (no such variable)`;
    }
  });
  return problem;
}

/** Charges each comprehension's iterations to the evaluation's budget before it runs them. */
function meterComprehensions(ast: unknown): void {
  walk(ast, (n) => {
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
 * Compiles one expression; throws an Error with a one-line reason (for a 422 or a policy configuration
 * error). `variableNames` are the `variables.<name>` it may use.
 */
export function compileExpression(expression: string, result: ResultType, variableNames: ReadonlySet<string>): CompiledExpression {
  let parsed;
  try {
    parsed = environment.parse(expression);
  } catch (e) {
    throw new Error(`compilation failed: ${firstLine((e as Error).message)}`);
  }
  const problem = referenceProblem(parsed.ast, variableNames);
  if (problem) throw new Error(`compilation failed: ${problem}`);
  const checked = parsed.check();
  if (!checked.valid) throw new Error(`compilation failed: ${firstLine(checked.error?.message ?? 'type check failed')}`);
  if (result !== 'any' && checked.type !== result && checked.type !== 'dyn') throw new Error(`must evaluate to ${result}, not ${checked.type}`);
  meterComprehensions(parsed.ast);
  const run = parsed;
  return {
    expression,
    evaluate(activation, budget) {
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
