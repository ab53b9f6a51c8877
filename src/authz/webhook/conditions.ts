/**
 * Match conditions of an authorization webhook (spec 5.7 item 6): CEL boolean expressions over `request`,
 * the v1 SubjectAccessReview spec of the request. Member names are checked when the file loads, as the
 * reference's typed environment does, so a misspelt field is a configuration error, not a run-time one.
 */
import { celEnvironment, compileCel, EvaluationBudget, type MatchCondition } from '../../cel/index.js';
import { walkAst, type AstNode } from '../../cel/compile.js';
import type { SarSpec } from './sar.js';

export const MAX_MATCH_CONDITIONS = 64;

export interface RequestVars {
  request: SarSpec;
}

const env = celEnvironment(['request']);

const FIELDS: Record<string, ReadonlySet<string>> = {
  request: new Set(['resourceAttributes', 'nonResourceAttributes', 'user', 'groups', 'extra', 'uid']),
  resourceAttributes: new Set(['namespace', 'verb', 'group', 'version', 'resource', 'subresource', 'name', 'fieldSelector', 'labelSelector']),
  nonResourceAttributes: new Set(['path', 'verb']),
};

/** The object a member access reads from, when it is `request` or one of its attribute blocks. */
function typedTarget(n: unknown): string | undefined {
  const node = n as AstNode | undefined;
  if (node?.op === 'id' && node.args === 'request') return 'request';
  if ((node?.op === '.' || node?.op === '.?') && Array.isArray(node.args)) {
    const [obj, field] = node.args as [unknown, unknown];
    if (typedTarget(obj) === 'request' && (field === 'resourceAttributes' || field === 'nonResourceAttributes')) return field;
  }
  return undefined;
}

function undefinedField(ast: unknown): string | undefined {
  let problem: string | undefined;
  walkAst(ast, (n) => {
    if (problem || (n.op !== '.' && n.op !== '.?') || !Array.isArray(n.args)) return;
    const [obj, field] = n.args as [unknown, unknown];
    const target = typedTarget(obj);
    if (target && typeof field === 'string' && !FIELDS[target]!.has(field)) problem = `undefined field '${field}'`;
  });
  return problem;
}

/** Compiles one expression; throws an Error with a one-line reason. */
export function compileMatchCondition(expression: string): MatchCondition<RequestVars> {
  const compiled = compileCel(env, expression, 'bool', undefinedField);
  return { name: expression, evaluate: (vars) => compiled.evaluate(vars as unknown as Record<string, unknown>, new EvaluationBudget()) };
}
