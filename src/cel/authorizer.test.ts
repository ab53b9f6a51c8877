import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AuthorizationAnswers, ProvisionalAnswer, type AuthzDecision, type AuthzQuestion, type AuthzUser } from './authorizer-answers.js';
import { authorizerProblem, authorizerValue, registerAuthorizerLibrary, usesAuthorizer } from './authorizer-library.js';
import { celEnvironment, compileCel } from './compile.js';

const environment = celEnvironment(['object']);
registerAuthorizerLibrary(environment.env);

const alice: AuthzUser = { username: 'alice', groups: ['devs'] };
const request = { group: 'apps', resource: 'deployments', subresource: 'scale', namespace: 'team-a', name: 'web' };

/** An authorizer that records every question and answers from `rule`. */
function recordingAuthorizer(rule: (u: AuthzUser, q: AuthzQuestion) => AuthzDecision | Error = () => ({ decision: 'allow', reason: 'ok' })) {
  const asked: { user: AuthzUser; question: AuthzQuestion }[] = [];
  const ask = async (user: AuthzUser, question: AuthzQuestion) => {
    asked.push({ user, question });
    const d = rule(user, question);
    if (d instanceof Error) throw d;
    return d;
  };
  return { asked, ask };
}

function compile(expression: string) {
  return compileCel(environment, expression, 'any', authorizerProblem);
}

async function evaluate(expression: string, ask = recordingAuthorizer().ask, user = alice) {
  const compiled = compile(expression);
  const answers = new AuthorizationAnswers(ask);
  return answers.evaluate(() => compiled.evaluate({ object: null, authorizer: authorizerValue(answers, user, request) }));
}

test('reference behaviour: each builder step sets one attribute of the check, version is always "*"', async () => {
  const table: [string, AuthzQuestion][] = [
    ["authorizer.group('').resource('pods').check('get')", { verb: 'get', version: '*', group: '', resource: 'pods', subresource: '', namespace: '', name: '' }],
    ["authorizer.group('apps').resource('deployments').subresource('scale').check('update')", { verb: 'update', version: '*', group: 'apps', resource: 'deployments', subresource: 'scale', namespace: '', name: '' }],
    ["authorizer.group('').resource('pods').namespace('ns1').check('list')", { verb: 'list', version: '*', group: '', resource: 'pods', subresource: '', namespace: 'ns1', name: '' }],
    ["authorizer.group('').resource('pods').namespace('ns1').name('p').check('delete')", { verb: 'delete', version: '*', group: '', resource: 'pods', subresource: '', namespace: 'ns1', name: 'p' }],
    ["authorizer.group('').resource('pods').name('a').name('b').check('get')", { verb: 'get', version: '*', group: '', resource: 'pods', subresource: '', namespace: '', name: 'b' }],
    ['authorizer.requestResource.check(\'patch\')', { verb: 'patch', version: '*', ...request }],
    ["authorizer.requestResource.name('other').check('get')", { verb: 'get', version: '*', ...request, name: 'other' }],
    ["authorizer.path('/healthz').check('get')", { verb: 'get', path: '/healthz' }],
  ];
  for (const [expression, want] of table) {
    const { asked, ask } = recordingAuthorizer();
    await evaluate(`${expression}.allowed()`, ask);
    assert.deepEqual(asked, [{ user: alice, question: want }], expression);
  }
});

test('reference behaviour: authorizer.serviceAccount(ns, name) checks as that service account', async () => {
  const { asked, ask } = recordingAuthorizer();
  await evaluate("authorizer.serviceAccount('kube-system', 'builder').group('').resource('secrets').check('get').allowed()", ask);
  assert.deepEqual(asked.map((a) => a.user), [
    { username: 'system:serviceaccount:kube-system:builder', groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system'] },
  ]);
});

test('reference behaviour: Decision methods show the authorizer answer, its reason and its failure', async () => {
  const answer = (d: AuthzDecision | Error) => recordingAuthorizer(() => d).ask;
  const table: [string, AuthzDecision | Error, unknown][] = [
    ['allowed()', { decision: 'allow', reason: 'granted by role x' }, true],
    ['allowed()', { decision: 'deny', reason: 'no' }, false],
    ['allowed()', { decision: 'noOpinion', reason: '' }, false],
    ['reason()', { decision: 'allow', reason: 'granted by role x' }, 'granted by role x'],
    ['errored()', { decision: 'allow', reason: '' }, false],
    ['error()', { decision: 'deny', reason: '' }, ''],
    ['errored()', new Error('webhook unreachable'), true],
    ['error()', new Error('webhook unreachable'), 'webhook unreachable'],
    ['allowed()', new Error('webhook unreachable'), false],
  ];
  for (const [method, decision, want] of table) {
    assert.equal(await evaluate(`authorizer.path('/x').check('get').${method}`, answer(decision)), want, `${method} with ${JSON.stringify(decision)}`);
  }
});

test('reference behaviour: unknown methods, wrong argument types and the selector steps fail compilation', () => {
  const table: [string, RegExp][] = [
    ["authorizer.group('').check('get')", /no matching overload.*GroupCheck\.check/],
    ["authorizer.group('').resource('pods').allowed()", /no matching overload.*ResourceCheck\.allowed/],
    ["authorizer.path('/x').check('get').denied()", /no matching overload.*Decision\.denied/],
    ['authorizer.group(1)', /no matching overload.*Authorizer\.group\(int\)/],
    ['authorizer.somethingElse', /somethingElse/],
    ["authorizer.path('/x').check('get').allowed", /allowed/],
    ["authorizer.serviceAccount('ns', 'sa').requestResource", /requestResource/],
    ["authorizer.group('').resource('pods').fieldSelector('spec.nodeName=n1').check('list')", /AuthorizeWithSelectors/],
    ["authorizer.group('').resource('pods').labelSelector('a=b').check('list')", /AuthorizeWithSelectors/],
  ];
  for (const [expression, want] of table) assert.throws(() => compile(expression), (e: Error) => /^compilation failed: /.test(e.message) && want.test(e.message), expression);
});

test('usesAuthorizer: true only for expressions naming the authorizer variable', () => {
  const env = environment.env;
  assert.equal(usesAuthorizer(env.parse("authorizer.path('/').check('get').allowed()").ast), true);
  assert.equal(usesAuthorizer(env.parse("[1].all(x, authorizer.path('/').check('get').allowed())").ast), true);
  assert.equal(usesAuthorizer(env.parse('object.authorizer == 1').ast), false);
});

test('a provisional answer never reaches the result: the run that met it is dropped and run again', async () => {
  const { asked, ask } = recordingAuthorizer((_, q) => ({ decision: 'path' in q && q.path === '/b' ? 'allow' : 'deny', reason: 'path' in q ? q.path : '' }));
  const answers = new AuthorizationAnswers(ask);
  const compiled = compile("authorizer.path('/a').check('get').allowed() ? 'A' : authorizer.path('/b').check('get').reason()");
  const results: unknown[] = [];
  const final = await answers.evaluate(() => {
    let r: unknown;
    try {
      r = compiled.evaluate({ authorizer: authorizerValue(answers, alice, request) });
    } catch (e) {
      r = e;
    }
    results.push(r);
    return r;
  });
  assert.equal(final, '/b');
  // Two dropped runs (each stopped at a pending answer), then the answered one.
  assert.equal(results.length, 3);
  assert.ok(results[0] instanceof ProvisionalAnswer && results[1] instanceof ProvisionalAnswer);
  assert.deepEqual(asked.map((a) => ('path' in a.question ? a.question.path : '')), ['/a', '/b']);
});

test('answers are cached per AuthorizationAnswers: a repeated check is asked once', async () => {
  const { asked, ask } = recordingAuthorizer();
  const answers = new AuthorizationAnswers(ask);
  const compiled = compile("authorizer.path('/a').check('get').allowed() && authorizer.path('/a').check('get').allowed()");
  const run = () => compiled.evaluate({ authorizer: authorizerValue(answers, alice, request) });
  assert.equal(await answers.evaluate(run), true);
  assert.equal(await answers.evaluate(run), true);
  assert.equal(asked.length, 1);
});

test('the round cap: checks still unanswered in the last round are evaluation errors, not provisional answers', async () => {
  const { ask } = recordingAuthorizer();
  const answers = new AuthorizationAnswers(ask, { rounds: 2 });
  // Each check depends on the one before, so every round discovers exactly one new check.
  const compiled = compile("authorizer.path('/1').check('get').allowed() && authorizer.path('/2').check('get').allowed() ? authorizer.path('/3').check('get').allowed() : false");
  const outcome = await answers.evaluate(() => {
    try {
      return compiled.evaluate({ authorizer: authorizerValue(answers, alice, request) });
    } catch (e) {
      return e as Error;
    }
  });
  assert.ok(outcome instanceof Error && !(outcome instanceof ProvisionalAnswer));
  assert.match(outcome.message, /still unanswered after 2 rounds/);
});

test('the check cap: more distinct checks than allowed is an evaluation error', async () => {
  const { asked, ask } = recordingAuthorizer();
  const answers = new AuthorizationAnswers(ask, { checks: 3 });
  const compiled = compile("['/1', '/2', '/3', '/4'].all(p, authorizer.path(p).check('get').allowed())");
  await assert.rejects(
    answers.evaluate(() => compiled.evaluate({ authorizer: authorizerValue(answers, alice, request) })),
    /too many distinct authorizer checks in one request \(at most 3\)/,
  );
  assert.ok(asked.length <= 3);
});

test('asks run in parallel, at most `concurrency` at a time', async () => {
  let active = 0;
  let peak = 0;
  const ask = async (): Promise<AuthzDecision> => {
    active++;
    peak = Math.max(peak, active);
    await new Promise((r) => setTimeout(r, 5));
    active--;
    return { decision: 'allow', reason: '' };
  };
  const answers = new AuthorizationAnswers(ask, { concurrency: 2 });
  const compiled = compile("['/1', '/2', '/3', '/4', '/5'].all(p, authorizer.path(p).check('get').allowed())");
  assert.equal(await answers.evaluate(() => compiled.evaluate({ authorizer: authorizerValue(answers, alice, request) })), true);
  assert.equal(peak, 2);
});

test('a check outside an evaluation run is an error', () => {
  const answers = new AuthorizationAnswers(recordingAuthorizer().ask);
  assert.throws(() => compile("authorizer.path('/').check('get')").evaluate({ authorizer: authorizerValue(answers, alice, request) }), /only run during an admission evaluation/);
});
