/**
 * The CEL check of webhook match conditions when a configuration is stored: each expression must compile
 * against the variables a webhook condition sees (`object`, `oldObject`, `request`) and yield a bool.
 * The reference also offers `authorizer`; this server does not, so a condition that uses it is refused
 * here with a clear message instead of failing on every request later. The admission side
 * (admission/webhook/conditions.ts) declares the same variables.
 */
import { Environment } from '@marcbachmann/cel-js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { isRec, type Rec } from '../events/fields.js';

const environment = new Environment({ homogeneousAggregateLiterals: false })
  .registerVariable('object', 'dyn')
  .registerVariable('oldObject', 'dyn')
  .registerVariable('request', 'dyn');

/** Whether an AST node (or any below it) names the identifier `name`. */
function usesIdentifier(node: unknown, name: string, depth = 0): boolean {
  if (depth > 500 || node === null || typeof node !== 'object') return false;
  const n = node as { op?: unknown; args?: unknown };
  if (n.op === 'id' && n.args === name) return true;
  const args = Array.isArray(n.args) ? n.args : [n.args];
  return args.some((a) => (Array.isArray(a) ? a.some((x) => usesIdentifier(x, name, depth + 1)) : usesIdentifier(a, name, depth + 1)));
}

const firstLine = (m: string) => m.split('\n', 1)[0] ?? m;

/** Field errors for expressions of `matchConditions` that do not compile, or use `authorizer`. */
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
    if (usesIdentifier(parsed.ast, 'authorizer')) {
      errs.push(fieldError.invalid(at, expression, 'compilation failed: the authorizer variable is not supported by this server in webhook match conditions'));
      return;
    }
    const checked = parsed.check();
    if (!checked.valid) errs.push(fieldError.invalid(at, expression, `compilation failed: ${firstLine(checked.error?.message ?? 'type check failed')}`));
    else if (checked.type !== 'bool' && checked.type !== 'dyn') errs.push(fieldError.invalid(at, expression, `must evaluate to bool, not ${checked.type}`));
  });
  return errs;
}
