import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ADMISSIONREGISTRATION_GROUP } from '../api/naming.js';
import type { ApiObject } from '../api/types.js';
import type { AuthzQuestion } from '../cel/index.js';
import { StatusError } from '../errors/index.js';
import { answersFor } from './authorizer.js';
import { validatingAdmissionPolicyPlugin } from './policy/plugin.js';
import { admissionRequest, fixedObjects } from './testing/contract.js';
import type { AdmissionDeps, AdmissionUser, AuthorizationDecision } from './types.js';
import { compileConfiguration } from './webhook/compile.js';
import { invocationFor, RequestFacts } from './webhook/match.js';

const P = `${ADMISSIONREGISTRATION_GROUP}/validatingadmissionpolicies`;
const B = `${ADMISSIONREGISTRATION_GROUP}/validatingadmissionpolicybindings`;
const rules = [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }];

const policy = (name: string, validation: Record<string, unknown>): ApiObject => ({
  metadata: { name, uid: `uid-${name}`, resourceVersion: '1' },
  spec: { failurePolicy: 'Fail', matchConstraints: { resourceRules: rules }, validations: [validation] },
});
const binding = (name: string): ApiObject => ({ metadata: { name, uid: `uid-b-${name}`, resourceVersion: '1' }, spec: { policyName: name, validationActions: ['Deny'] } });

/** Deps whose authorizer allows only `delete` and counts what it is asked. */
function deps(policies: ApiObject[]) {
  const asked: { user: AdmissionUser; question: AuthzQuestion }[] = [];
  const d: AdmissionDeps = {
    objects: fixedObjects({ '/namespaces': [{ metadata: { name: 'default' } }], [P]: policies, [B]: policies.map((p) => binding(p.metadata?.name ?? '')) }),
    equivalentResources: (r) => [r],
    kindOf: () => ({ group: '', version: 'v1', kind: 'ConfigMap' }),
    log: () => undefined,
    async authorizeDecision(user, question): Promise<AuthorizationDecision> {
      asked.push({ user, question: question as AuthzQuestion });
      return question.verb === 'delete' ? { decision: 'allow', reason: 'deleters may' } : { decision: 'noOpinion', reason: `no rule for ${question.verb}` };
    },
  };
  return { d, asked };
}

const request = () =>
  admissionRequest({ operation: 'CREATE', name: 'cm', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default' } }, user: { username: 'alice', groups: ['devs'] } });

async function rejection(validate: Promise<void> | void): Promise<StatusError | undefined> {
  try {
    await validate;
    return undefined;
  } catch (e) {
    assert.ok(e instanceof StatusError);
    return e;
  }
}

test('reference behaviour: policies check as the request user, and one request asks each distinct check once', async () => {
  const check = "authorizer.group('').resource('pods').namespace(object.metadata.namespace).check('delete').allowed()";
  const { d, asked } = deps([policy('a', { expression: check }), policy('b', { expression: `${check} && true` })]);
  const plugin = validatingAdmissionPolicyPlugin(d, undefined);
  assert.equal(await rejection(plugin.validate?.(request())), undefined);
  assert.deepEqual(asked, [
    { user: { username: 'alice', groups: ['devs'] }, question: { verb: 'delete', version: '*', group: '', resource: 'pods', subresource: '', namespace: 'default', name: '' } },
  ]);
});

test('reference behaviour: a denial message from messageExpression carries the real authorizer reason, never a provisional one', async () => {
  const { d } = deps([
    policy('readers', {
      expression: "authorizer.requestResource.check('get').allowed()",
      messageExpression: "'refused: ' + authorizer.requestResource.check('get').reason()",
    }),
  ]);
  const e = await rejection(validatingAdmissionPolicyPlugin(d, undefined).validate?.(request()));
  assert.match(e?.message ?? '', /denied request: refused: no rule for get$/);
});

test('a policy that does not use authorizer asks the authorizer nothing; answer caches are per request object', async () => {
  const { d, asked } = deps([policy('plain', { expression: "object.metadata.name != 'forbidden'" })]);
  const req = request();
  assert.equal(await rejection(validatingAdmissionPolicyPlugin(d, undefined).validate?.(req)), undefined);
  assert.equal(asked.length, 0);
  const first = answersFor(req, d);
  assert.equal(answersFor(req, d), first);
  assert.notEqual(answersFor(request(), d), first);
});

test('reference behaviour: a webhook match condition sees authorizer.requestResource preset to the invocation, sharing the request\'s answers', async () => {
  const { d, asked } = deps([]);
  const config: ApiObject = {
    metadata: { name: 'c' },
    webhooks: [
      {
        name: 'w.example.com',
        clientConfig: { url: 'https://127.0.0.1:1/' },
        rules,
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        matchConditions: [{ name: 'deleters', expression: "authorizer.requestResource.check('delete').allowed()" }],
      },
    ],
  };
  const [hook] = compileConfiguration(config, false);
  assert.ok(hook && hook.brokenReason === undefined, hook?.brokenReason);
  const req = request();
  assert.ok(await invocationFor(hook, new RequestFacts(req, d)));
  assert.ok(await invocationFor(hook, new RequestFacts(req, d)));
  assert.deepEqual(
    asked.map((a) => a.question),
    [{ verb: 'delete', version: '*', group: '', resource: 'configmaps', subresource: '', namespace: 'default', name: 'cm' }],
  );
  const refusing: ApiObject = { ...config, webhooks: [{ ...(config.webhooks as object[])[0], matchConditions: [{ name: 'getters', expression: "authorizer.requestResource.check('get').allowed()" }] }] };
  const [skipped] = compileConfiguration(refusing, false);
  assert.equal(await invocationFor(skipped!, new RequestFacts(req, d)), undefined);
});

test('without an authorizer in the deps, a check is an errored Decision, not a crash', async () => {
  const { d } = deps([policy('errs', { expression: "authorizer.path('/x').check('get').errored()", messageExpression: "authorizer.path('/x').check('get').error()" })]);
  delete d.authorizeDecision;
  const e = await rejection(validatingAdmissionPolicyPlugin(d, undefined).validate?.(request()));
  assert.equal(e, undefined);
});
