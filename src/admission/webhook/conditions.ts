/**
 * Webhook match conditions: CEL expressions over `object`, `oldObject`, `request` and the reference's
 * `authorizer` library that must all be true for a webhook to be called. Compiled once per
 * configuration version.
 */
import {
  authorizerProblem,
  celEnvironment,
  celValue,
  compileCel,
  evaluateMatchConditions,
  firstLine,
  registerAuthorizerLibrary,
  usesAuthorizer,
  type MatchOutcome,
} from '../../cel/index.js';

export { celValue };

export const MAX_MATCH_CONDITIONS = 64;

/** The JSON-valued variables a match condition sees (the registry checks against the same); plus `authorizer`. */
export const CONDITION_VARIABLES = ['object', 'oldObject', 'request'] as const;

const environment = celEnvironment(CONDITION_VARIABLES);
registerAuthorizerLibrary(environment.env);

export interface CompiledCondition {
  readonly name: string;
  readonly evaluate: (vars: ConditionVariables) => unknown;
  /** Whether it names `authorizer` (its evaluation then needs the authorization answers). */
  readonly usesAuthorizer: boolean;
}

export interface ConditionVariables {
  object: unknown;
  oldObject: unknown;
  request: unknown;
  /** Set only when some condition uses it. */
  authorizer?: unknown;
}

/** Compiles each condition; throws an Error naming the first one that does not compile. */
export function compileConditions(conditions: unknown, path: string): CompiledCondition[] {
  if (conditions === undefined || conditions === null) return [];
  if (!Array.isArray(conditions)) throw new Error(`${path}: must be a list`);
  if (conditions.length > MAX_MATCH_CONDITIONS) throw new Error(`${path}: at most ${MAX_MATCH_CONDITIONS} conditions`);
  return conditions.map((c: unknown, i) => {
    const at = `${path}[${i}]`;
    const name = typeof (c as { name?: unknown })?.name === 'string' ? (c as { name: string }).name : '';
    const expression = (c as { expression?: unknown })?.expression;
    if (typeof expression !== 'string') throw new Error(`${at}.expression: must be a string`);
    let compiled;
    let uses = false;
    try {
      compiled = compileCel(environment, expression, 'bool', (ast) => {
        uses = usesAuthorizer(ast);
        return authorizerProblem(ast);
      });
    } catch (e) {
      const why = firstLine((e as Error).message);
      throw new Error(`${at}.expression: ${why.startsWith('compilation failed') ? why : `compilation failed: ${why}`}`);
    }
    return { name, evaluate: (vars) => compiled.evaluate(vars as unknown as Record<string, unknown>), usesAuthorizer: uses };
  });
}

export type ConditionOutcome = MatchOutcome;

/** Any condition false skips the webhook; otherwise an error is the outcome; otherwise it is called. */
export function evaluateConditions(conditions: readonly CompiledCondition[], vars: ConditionVariables): ConditionOutcome {
  return evaluateMatchConditions(conditions, vars);
}
