import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BUDGET_EXCEEDED, celEnvironment, celValue, compileCel, evaluateMatchConditions, EvaluationBudget } from './index.js';
import { walkAst } from './compile.js';

const env = celEnvironment(['claims']);

test('compileCel: a one-line reason for parse, check and result-type failures', () => {
  const table: [string, 'bool' | 'string', RegExp][] = [
    ['claims.sub ==', 'bool', /^compilation failed: /],
    ['other.sub', 'string', /^compilation failed: .*other/],
    ['1 + 2', 'string', /^must evaluate to string, not int$/],
  ];
  for (const [expr, result, want] of table) {
    assert.throws(() => compileCel(env, expr, result), (e: Error) => want.test(e.message) && !e.message.includes('\n'), expr);
  }
});

test('compileCel: a check hook names what the type checker does not see', () => {
  assert.throws(() => compileCel(env, 'claims.x', 'any', () => 'refused'), /^Error: compilation failed: refused$|compilation failed: refused/);
});

test('compileCel: comprehensions are charged to the budget', () => {
  const c = compileCel(env, 'claims.items.all(i, i > 0)', 'bool');
  const items = celValue({ items: Array.from({ length: 50 }, (_, i) => i + 1) });
  assert.equal(c.evaluate({ claims: items }), true);
  assert.throws(() => c.evaluate({ claims: items }, new EvaluationBudget(10)), new RegExp(BUDGET_EXCEEDED));
});

test('celValue: whole numbers become CEL ints, others stay', () => {
  assert.deepEqual(celValue({ a: 1, b: 1.5, c: ['x', 2], d: null }), { a: 1n, b: 1.5, c: ['x', 2n], d: null });
});

test('evaluateMatchConditions: false wins over errors, errors over a match', () => {
  const cond = (name: string, v: () => unknown) => ({ name, evaluate: v });
  const boom = () => {
    throw new Error('no such key: x\nmore');
  };
  assert.deepEqual(evaluateMatchConditions([cond('a', boom), cond('b', () => false)], {}), { match: false });
  assert.deepEqual(evaluateMatchConditions([cond('a', boom)], {}), { error: "expression 'a' resulted in error: no such key: x" });
  assert.deepEqual(evaluateMatchConditions([cond('a', () => 'yes')], {}), { error: "expression 'a' resulted in error: no such overload: must evaluate to bool" });
  assert.deepEqual(evaluateMatchConditions([cond('a', () => true), cond('b', () => true)], {}), { match: true });
});

test('walkAst: visits the arguments of function calls (nested lists in the AST)', () => {
  const ids: string[] = [];
  const parsed = celEnvironment(['object', 'params']).env.parse('size(object.data) <= int(params.data.max)');
  walkAst(parsed.ast, (n) => {
    if (n.op === 'id') ids.push(String(n.args));
  });
  assert.deepEqual(ids.sort(), ['object', 'params']);
});
