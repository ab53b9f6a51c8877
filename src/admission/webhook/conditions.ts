/**
 * Webhook match conditions: CEL expressions over `object`, `oldObject` and `request` that must all be
 * true for a webhook to be called. Compiled once per configuration version. The `authorizer` variable of
 * the reference is not offered (admission has no authorizer here); configurations using it are refused
 * when stored, and a stored one that slipped through fails to compile here.
 */
import { Environment } from '@marcbachmann/cel-js';

export const MAX_MATCH_CONDITIONS = 64;

/** The variables a match condition sees; the same list the registry checks expressions against. */
export const CONDITION_VARIABLES = ['object', 'oldObject', 'request'] as const;

const environment = new Environment({ homogeneousAggregateLiterals: false })
  .registerVariable('object', 'dyn')
  .registerVariable('oldObject', 'dyn')
  .registerVariable('request', 'dyn');

export interface CompiledCondition {
  readonly name: string;
  readonly evaluate: (vars: ConditionVariables) => unknown;
}

export interface ConditionVariables {
  object: unknown;
  oldObject: unknown;
  request: unknown;
}

const firstLine = (message: string) => message.split('\n', 1)[0] ?? message;

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
    let evaluate: CompiledCondition['evaluate'];
    try {
      const parsed = environment.parse(expression);
      const checked = parsed.check();
      if (!checked.valid) throw checked.error ?? new Error('type check failed');
      if (checked.type !== 'bool' && checked.type !== 'dyn') throw new Error(`must evaluate to bool, not ${checked.type}`);
      evaluate = (vars) => parsed(vars as unknown as Record<string, unknown>);
    } catch (e) {
      throw new Error(`${at}.expression: compilation failed: ${firstLine((e as Error).message)}`);
    }
    return { name, evaluate };
  });
}

/**
 * JSON as CEL sees it: whole numbers are CEL ints (BigInt), so `object.spec.replicas + 1` type-checks at
 * run time as it does in the reference. Only called when a webhook has conditions.
 */
export function celValue(v: unknown): unknown {
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(celValue);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = celValue(x);
    return out;
  }
  return v;
}

export type ConditionOutcome = { match: true } | { match: false } | { error: string };

/**
 * The reference's rule: any condition false skips the webhook (even if others erred); otherwise an error
 * in any condition is the outcome (the caller applies failurePolicy); otherwise the webhook is called.
 */
export function evaluateConditions(conditions: readonly CompiledCondition[], vars: ConditionVariables): ConditionOutcome {
  const errors: string[] = [];
  for (const c of conditions) {
    let result: unknown;
    try {
      result = c.evaluate(vars);
    } catch (e) {
      errors.push(`expression '${c.name}' resulted in error: ${firstLine((e as Error).message)}`);
      continue;
    }
    if (result === false) return { match: false };
    if (result !== true) errors.push(`expression '${c.name}' resulted in error: no such overload: must evaluate to bool`);
  }
  if (errors.length > 0) return { error: errors.length === 1 ? (errors[0] as string) : `[${errors.join(', ')}]` };
  return { match: true };
}
