import { test } from 'node:test';
import assert from 'node:assert/strict';
import { celValue, compileConditions, evaluateConditions } from './conditions.js';

const vars = (object: unknown) => ({ object: celValue(object), oldObject: null, request: celValue({ operation: 'CREATE', userInfo: { username: 'alice' } }) });
const run = (exprs: string[], object: unknown = {}) =>
  evaluateConditions(compileConditions(exprs.map((expression, i) => ({ name: `c${i}`, expression })), 'm'), vars(object));

test('reference behaviour: match conditions: all true calls the webhook, any false skips it, else errors decide', () => {
  assert.deepEqual(run(['object.spec.replicas + 1 == 4', 'request.userInfo.username == "alice"'], { spec: { replicas: 3 } }), { match: true });
  assert.deepEqual(run(['true', 'false']), { match: false });
  assert.deepEqual(run(['object.missing == 1', 'false']), { match: false }, 'a false condition wins over an error');
  const outcome = run(['object.missing == 1']);
  assert.ok('error' in outcome && /expression 'c0' resulted in error/.test(outcome.error));
  assert.deepEqual(run(['oldObject == null']), { match: true });
});

test('reference behaviour: a match condition that does not compile, or that is not bool, names its field', () => {
  assert.throws(() => compileConditions([{ name: 'a', expression: '1 +' }], 'webhooks[0].matchConditions'), /webhooks\[0\]\.matchConditions\[0\]\.expression: compilation failed/);
  assert.throws(() => compileConditions([{ name: 'a', expression: '"text"' }], 'm'), /must evaluate to bool/);
  assert.throws(() => compileConditions([{ name: 'a', expression: 'authorizer.group("").check()' }], 'm'), /compilation failed: .*GroupCheck\.check/);
  assert.throws(() => compileConditions(Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: 'true' })), 'm'), /at most 64/);
});
