/**
 * The CEL check of webhook match conditions when a configuration is stored: each expression must compile
 * against the variables a webhook condition sees (`object`, `oldObject`, `request`, and the `authorizer`
 * library) and yield a bool. The admission side (admission/webhook/conditions.ts) declares the same
 * variables.
 */
import { Environment } from '@marcbachmann/cel-js';
import { authorizerProblem, registerAuthorizerLibrary } from '../../../cel/index.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { isRec, type Rec } from '../events/fields.js';

const environment = registerAuthorizerLibrary(
  new Environment({ homogeneousAggregateLiterals: false }).registerVariable('object', 'dyn').registerVariable('oldObject', 'dyn').registerVariable('request', 'dyn'),
);

const firstLine = (m: string) => m.split('\n', 1)[0] ?? m;

/** Field errors for expressions of `matchConditions` that do not compile. */
export function validateWebhookConditionExpressions(hook: Rec, path: string): FieldError[] {
  const conditions = Array.isArray(hook.matchConditions) ? hook.matchConditions : [];
  const errs: FieldError[] = [];
  conditions.forEach((c, i) => {
    if (!isRec(c) || typeof c.expression !== 'string' || c.expression.trim() === '') return;
    const at = `${path}[${i}].expression`;
    const expression = c.expression;
    let parsed;
    try {
      parsed = environment.parse(expression);
    } catch (e) {
      errs.push(fieldError.invalid(at, expression, `compilation failed: ${firstLine((e as Error).message)}`));
      return;
    }
    const problem = authorizerProblem(parsed.ast);
    if (problem) {
      errs.push(fieldError.invalid(at, expression, `compilation failed: ${problem}`));
      return;
    }
    const checked = parsed.check();
    if (!checked.valid) errs.push(fieldError.invalid(at, expression, `compilation failed: ${firstLine(checked.error?.message ?? 'type check failed')}`));
    else if (checked.type !== 'bool' && checked.type !== 'dyn') errs.push(fieldError.invalid(at, expression, `must evaluate to bool, not ${checked.type}`));
  });
  return errs;
}
