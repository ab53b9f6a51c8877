/**
 * The CEL check of a ValidatingAdmissionPolicy when it is stored: every expression must compile against
 * the variables a policy sees (`object`, `oldObject`, `request`, `params`, `namespaceObject`,
 * `variables`, and the `authorizer` library), name only variables declared before it, and have the type
 * its field needs. The admission side (admission/policy/cel.ts) declares the same variables; the
 * registry may not import it.
 */
import { Environment } from '@marcbachmann/cel-js';
import { authorizerProblem, registerAuthorizerLibrary } from '../../../cel/index.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { isRec, type Rec } from '../events/fields.js';

const environment = new Environment({ homogeneousAggregateLiterals: false });
for (const v of ['object', 'oldObject', 'request', 'params', 'namespaceObject', 'variables']) environment.registerVariable(v, 'dyn');
registerAuthorizerLibrary(environment);

const firstLine = (m: string) => m.split('\n', 1)[0] ?? m;

interface Node {
  op?: unknown;
  args?: unknown;
}

/** The first reference in the AST to an undeclared `variables.<name>`. */
function badReference(node: unknown, declared: ReadonlySet<string>, depth = 0): string | undefined {
  if (depth > 500 || node === null || typeof node !== 'object') return undefined;
  const n = node as Node;
  if (n.op === '.' && Array.isArray(n.args)) {
    const [target, field] = n.args as [Node, unknown];
    if (target?.op === 'id' && target.args === 'variables' && !declared.has(String(field))) return `undefined field '${String(field)}' (no such variable)`;
  }
  const args = Array.isArray(n.args) ? n.args : n.args !== null && typeof n.args === 'object' && !('op' in n.args) ? Object.values(n.args) : [n.args];
  for (const a of args) {
    const found = Array.isArray(a) ? a.map((x) => badReference(x, declared, depth + 1)).find(Boolean) : badReference(a, declared, depth + 1);
    if (found) return found;
  }
  return undefined;
}

function check(expression: unknown, at: string, want: 'bool' | 'string' | 'any', declared: ReadonlySet<string>): FieldError[] {
  if (typeof expression !== 'string' || expression.trim() === '') return [];
  let parsed;
  try {
    parsed = environment.parse(expression);
  } catch (e) {
    return [fieldError.invalid(at, expression, `compilation failed: ${firstLine((e as Error).message)}`)];
  }
  const bad = badReference(parsed.ast, declared) ?? authorizerProblem(parsed.ast);
  if (bad) return [fieldError.invalid(at, expression, `compilation failed: ${bad}`)];
  const checked = parsed.check();
  if (!checked.valid) return [fieldError.invalid(at, expression, `compilation failed: ${firstLine(checked.error?.message ?? 'type check failed')}`)];
  if (want !== 'any' && checked.type !== want && checked.type !== 'dyn') return [fieldError.invalid(at, expression, `must evaluate to ${want}, not ${checked.type}`)];
  return [];
}

const items = (v: unknown): Rec[] => (Array.isArray(v) ? v.filter(isRec) : []);

/** Field errors for the policy's expressions (variables in order: each sees only the ones before it). */
export function validatePolicyExpressions(spec: Rec): FieldError[] {
  const errs: FieldError[] = [];
  const declared = new Set<string>();
  items(spec.variables).forEach((v, i) => {
    errs.push(...check(v.expression, `spec.variables[${i}].expression`, 'any', declared));
    if (typeof v.name === 'string') declared.add(v.name);
  });
  items(spec.matchConditions).forEach((c, i) => errs.push(...check(c.expression, `spec.matchConditions[${i}].expression`, 'bool', declared)));
  items(spec.validations).forEach((v, i) => {
    errs.push(...check(v.expression, `spec.validations[${i}].expression`, 'bool', declared));
    errs.push(...check(v.messageExpression, `spec.validations[${i}].messageExpression`, 'string', declared));
  });
  items(spec.auditAnnotations).forEach((a, i) => errs.push(...check(a.valueExpression, `spec.auditAnnotations[${i}].valueExpression`, 'any', declared)));
  return errs;
}
