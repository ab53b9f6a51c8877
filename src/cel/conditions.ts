import { firstLine } from './compile.js';

/** A named boolean expression, compiled. */
export interface MatchCondition<V> {
  readonly name: string;
  evaluate(vars: V): unknown;
}

export type MatchOutcome = { match: true } | { match: false } | { error: string };

/**
 * The reference's rule for match conditions (admission webhooks, authorization webhooks): any condition
 * false is no match (even if others erred); otherwise an error in any condition is the outcome (the
 * caller applies its failure policy); otherwise a match.
 */
export function evaluateMatchConditions<V>(conditions: readonly MatchCondition<V>[], vars: V): MatchOutcome {
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
