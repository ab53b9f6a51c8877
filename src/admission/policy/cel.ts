/**
 * CEL for ValidatingAdmissionPolicy: the variables a policy expression sees (with the reference's
 * `authorizer` library), and the checks the reference does when a policy is used that the type checker
 * does not (declared `variables.<name>` only). Compilation, metering and budgets are the shared ones in
 * `cel/`.
 */
import { authorizerProblem, registerAuthorizerLibrary, usesAuthorizer } from '../../cel/index.js';
import { celEnvironment, compileCel, isIdentifier, walkAst, type ResultType } from '../../cel/compile.js';
import type { EvaluationBudget } from '../../cel/index.js';

export { BUDGET_EXCEEDED, DEFAULT_ITERATION_BUDGET, DEFAULT_TIME_BUDGET_MS, EvaluationBudget, firstLine } from '../../cel/index.js';
export type { ResultType };

/** The JSON-valued variables a policy expression may name; `authorizer` is declared with its own type. */
export const POLICY_VARIABLES = ['object', 'oldObject', 'request', 'params', 'namespaceObject', 'variables'] as const;

const environment = celEnvironment(POLICY_VARIABLES);
registerAuthorizerLibrary(environment.env);

export interface CompiledExpression {
  readonly expression: string;
  /** Throws an Error whose message says why the expression could not be evaluated. */
  evaluate(activation: Record<string, unknown>, budget: EvaluationBudget): unknown;
  /** Whether it names `authorizer` (its evaluation then needs the authorization answers). */
  readonly usesAuthorizer: boolean;
  /** The request inputs it names (`object`, `oldObject`, `request`, `namespaceObject`, `params`). */
  readonly inputs: ReadonlySet<string>;
}

/** The inputs that cost a conversion per request; only those an expression names are converted. */
const REQUEST_INPUTS = ['object', 'oldObject', 'request', 'namespaceObject', 'params'] as const;

function inputsNamed(ast: unknown): Set<string> {
  const named = new Set<string>();
  walkAst(ast, (n) => {
    if (n.op === 'id' && typeof n.args === 'string' && (REQUEST_INPUTS as readonly string[]).includes(n.args)) named.add(n.args);
  });
  return named;
}

/** Names the problems the reference's compiler reports that cel-js's checker does not. */
function referenceProblem(ast: unknown, variableNames: ReadonlySet<string>): string | undefined {
  let problem: string | undefined;
  walkAst(ast, (n) => {
    if (problem) return;
    if (n.op === '.' && Array.isArray(n.args) && isIdentifier(n.args[0], 'variables') && !variableNames.has(String(n.args[1]))) {
      problem = `undefined field '${String(n.args[1])}' (no such variable)`;
    }
  });
  return problem ?? authorizerProblem(ast);
}

/**
 * Compiles one expression; throws an Error with a one-line reason (for a 422 or a policy configuration
 * error). `variableNames` are the `variables.<name>` it may use.
 */
export function compileExpression(expression: string, result: ResultType, variableNames: ReadonlySet<string>): CompiledExpression {
  let uses = false;
  let inputs: ReadonlySet<string> = new Set();
  const compiled = compileCel(environment, expression, result, (ast) => {
    uses = usesAuthorizer(ast);
    inputs = inputsNamed(ast);
    return referenceProblem(ast, variableNames);
  });
  return { ...compiled, usesAuthorizer: uses, inputs };
}
