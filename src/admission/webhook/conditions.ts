/**
 * Webhook match conditions: CEL expressions over `object`, `oldObject` and `request` that must all be
 * true for a webhook to be called. Compiled once per configuration version. The `authorizer` variable of
 * the reference is not offered (admission has no authorizer here); configurations using it are refused
 * when stored, and a stored one that slipped through fails to compile here.
 */
import { celEnvironment, celValue, compileCel, evaluateMatchConditions, firstLine, type MatchOutcome } from '../../cel/index.js';

export { celValue };

export const MAX_MATCH_CONDITIONS = 64;

/** The variables a match condition sees; the same list the registry checks expressions against. */
export const CONDITION_VARIABLES = ['object', 'oldObject', 'request'] as const;

const environment = celEnvironment(CONDITION_VARIABLES);

export interface CompiledCondition {
  readonly name: string;
  readonly evaluate: (vars: ConditionVariables) => unknown;
}

export interface ConditionVariables {
  object: unknown;
  oldObject: unknown;
  request: unknown;
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
    try {
      compiled = compileCel(environment, expression, 'bool');
    } catch (e) {
      const why = firstLine((e as Error).message);
      throw new Error(`${at}.expression: ${why.startsWith('compilation failed') ? why : `compilation failed: ${why}`}`);
    }
    return { name, evaluate: (vars) => compiled.evaluate(vars as unknown as Record<string, unknown>) };
  });
}

export type ConditionOutcome = MatchOutcome;

/** Any condition false skips the webhook; otherwise an error is the outcome; otherwise it is called. */
export function evaluateConditions(conditions: readonly CompiledCondition[], vars: ConditionVariables): ConditionOutcome {
  return evaluateMatchConditions(conditions, vars);
}
