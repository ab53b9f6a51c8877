/**
 * One policy applied through one binding with one parameter object: match conditions, then validations
 * and audit annotations over lazily evaluated variables. Pure apart from the CEL evaluation budget: it
 * answers what failed; the plugin decides what each binding's validationActions do with that.
 */
import { EvaluationBudget, firstLine, type CompiledExpression } from './cel.js';
import type { CompiledPolicy } from './compile.js';

/** A failed validation, or an evaluation error under failurePolicy Fail. */
export interface PolicyFailure {
  readonly message: string;
  readonly reason: string;
  readonly fieldPath: string;
  /** Index of the validation; -1 for a match condition or an audit annotation. */
  readonly expressionIndex: number;
}

export interface PolicyOutcome {
  readonly failures: PolicyFailure[];
  /** `[key, value]` audit annotations (the key is not yet prefixed with the policy name). */
  readonly annotations: [string, string][];
}

/** `object`, `oldObject`, `request`, `params`, `namespaceObject` as CEL values. */
export type Inputs = Record<string, unknown>;

const NOTHING: PolicyOutcome = Object.freeze({ failures: [], annotations: [] }) as PolicyOutcome;

const errorText = (e: unknown) => firstLine(e instanceof Error ? e.message : String(e));
const resultedInError = (what: string, e: unknown) => `expression '${what}' resulted in error: ${errorText(e)}`;

/** `variables`: each evaluated at most once, and only when an expression reads it. */
function lazyVariables(policy: CompiledPolicy, activation: Record<string, unknown>, budget: EvaluationBudget): Record<string, unknown> {
  const variables: Record<string, unknown> = {};
  for (const v of policy.variables) {
    let state: { value: unknown } | { error: unknown } | undefined;
    Object.defineProperty(variables, v.name, {
      enumerable: true,
      get() {
        if (!state) {
          try {
            state = { value: v.expr.evaluate(activation, budget) };
          } catch (e) {
            state = { error: e };
          }
        }
        if ('error' in state) throw new Error(`variable '${v.name}' resulted in error: ${errorText(state.error)}`);
        return state.value;
      },
    });
  }
  return variables;
}

function messageOf(check: CompiledExpression, message: string, messageExpression: CompiledExpression | undefined, activation: Record<string, unknown>, budget: EvaluationBudget): string {
  if (messageExpression) {
    try {
      const m = messageExpression.evaluate(activation, budget);
      // An empty or multi-line result falls back to the static message, as in the reference.
      if (typeof m === 'string' && m.trim() !== '' && !/[\r\n]/.test(m)) return m.trim();
    } catch {
      // Falls back to the static message.
    }
  }
  return message !== '' ? message : `failed expression: ${check.expression}`;
}

export function evaluatePolicy(policy: CompiledPolicy, inputs: Inputs, budget = new EvaluationBudget()): PolicyOutcome {
  const activation: Record<string, unknown> = { ...inputs };
  activation.variables = lazyVariables(policy, activation, budget);
  const failures: PolicyFailure[] = [];
  const fail = (message: string, reason = 'Invalid', fieldPath = '', expressionIndex = -1) => {
    if (!policy.failOpen) failures.push({ message, reason, fieldPath, expressionIndex });
  };
  // Any condition false skips the policy, even when another one erred.
  let conditionError: string | undefined;
  for (const c of policy.conditions) {
    let r: unknown;
    try {
      r = c.expr.evaluate(activation, budget);
    } catch (e) {
      conditionError ??= resultedInError(c.name, e);
      continue;
    }
    if (r === false) return NOTHING;
    if (r !== true) conditionError ??= resultedInError(c.name, 'no such overload: must evaluate to bool');
  }
  if (conditionError !== undefined) {
    fail(conditionError);
    return { failures, annotations: [] };
  }
  policy.validations.forEach((v, i) => {
    let ok: unknown;
    try {
      ok = v.check.evaluate(activation, budget);
    } catch (e) {
      fail(resultedInError(v.check.expression, e), 'Invalid', '', i);
      return;
    }
    if (ok === true) return;
    if (ok !== false) fail(resultedInError(v.check.expression, 'must evaluate to bool'), 'Invalid', '', i);
    else failures.push({ message: messageOf(v.check, v.message, v.messageExpression, activation, budget), reason: v.reason, fieldPath: v.fieldPath, expressionIndex: i });
  });
  const annotations: [string, string][] = [];
  for (const a of policy.auditAnnotations) {
    let value: unknown;
    try {
      value = a.value.evaluate(activation, budget);
    } catch (e) {
      fail(resultedInError(a.value.expression, e));
      continue;
    }
    if (typeof value === 'string') annotations.push([a.key, value]);
    else if (value !== null) fail(resultedInError(a.value.expression, 'valueExpression must evaluate to a string or null'));
  }
  return { failures, annotations };
}
