import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ADMISSIONREGISTRATION_GROUP, POLICY_VALIDATION_FAILURE_ANNOTATION } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { StatusError } from '../../errors/index.js';
import { admissionPluginContract, admissionRequest, fixedObjects } from '../testing/contract.js';
import type { AdmissionDeps, AdmissionRequest, GroupVersionResource } from '../types.js';
import { BUDGET_EXCEEDED, compileExpression, EvaluationBudget } from './cel.js';
import { compilePolicy } from './compile.js';
import { evaluatePolicy } from './evaluate.js';
import { validatingAdmissionPolicyPlugin } from './plugin.js';
import { PolicySource } from './source.js';

const rules = [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }];
const policy = (name: string, spec: Record<string, unknown>): ApiObject => ({
  metadata: { name, uid: `uid-${name}`, resourceVersion: '1' },
  spec: { failurePolicy: 'Fail', matchConstraints: { resourceRules: rules, matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {} }, ...spec },
});
const binding = (name: string, policyName: string, spec: Record<string, unknown> = {}): ApiObject => ({
  metadata: { name, uid: `uid-b-${name}`, resourceVersion: '1' },
  spec: { policyName, validationActions: ['Deny'], ...spec },
});
const cm = (name: string, data: Record<string, string>, labels: Record<string, string> = {}): ApiObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', labels }, data });

function deps(objects: Record<string, ApiObject[]>): AdmissionDeps {
  return {
    objects: fixedObjects({ '/namespaces': [{ metadata: { name: 'default', labels: { env: 'prod' } } }], ...objects }),
    equivalentResources: (r: GroupVersionResource) => [r],
    kindOf: (r) => (r.group === '' && r.version === 'v1' && r.resource === 'configmaps' ? { group: '', version: 'v1', kind: 'ConfigMap' } : undefined),
    log: () => undefined,
  };
}
const P = `${ADMISSIONREGISTRATION_GROUP}/validatingadmissionpolicies`;
const B = `${ADMISSIONREGISTRATION_GROUP}/validatingadmissionpolicybindings`;

function recordingRequest(object: ApiObject) {
  const warnings: string[] = [];
  const annotations: Record<string, string> = {};
  const req: AdmissionRequest = admissionRequest({ operation: 'CREATE', name: object.metadata?.name ?? '', object, warn: (m) => void warnings.push(m), annotate: (k, v) => void (annotations[k] = v) });
  return { req, warnings, annotations };
}

async function rejection(p: ReturnType<typeof validatingAdmissionPolicyPlugin>, req: AdmissionRequest): Promise<StatusError | undefined> {
  try {
    await p.validate!(req);
    return undefined;
  } catch (e) {
    assert.ok(e instanceof StatusError);
    return e;
  }
}

describe('ValidatingAdmissionPolicy CEL compilation (reference behaviour)', () => {
  const cases: [string, string, 'bool' | 'string', RegExp | undefined][] = [
    ['a valid bool expression', 'object.data.size() < 3', 'bool', undefined],
    ['a syntax error', 'object.data.size( <', 'bool', /compilation failed: /],
    ['an undeclared variable', 'foo.bar == 1', 'bool', /compilation failed: .*Unknown variable: foo/],
    ['an undefined entry of variables', 'variables.missing == 1', 'bool', /no such variable/],
    ['the authorizer library', "authorizer.group('').resource('pods').check('get').allowed()", 'bool', undefined],
    ['an unknown authorizer method', "authorizer.requestResource.check('get').granted()", 'bool', /compilation failed: .*Decision\.granted/],
    ['a non-bool validation', '"x" + "y"', 'bool', /must evaluate to bool, not string/],
    ['a string message expression', '"bad: " + object.metadata.name', 'string', undefined],
  ];
  for (const [title, expression, type, error] of cases) {
    it(`reference behaviour: ${title}`, () => {
      if (error) assert.throws(() => compileExpression(expression, type, new Set()), error);
      else assert.doesNotThrow(() => compileExpression(expression, type, new Set()));
    });
  }

  it('reference behaviour: a hostile nested comprehension runs out of its budget with a clear error', () => {
    const e = compileExpression('object.items.all(a, object.items.all(b, object.items.all(c, a + b + c >= 0)))', 'bool', new Set());
    const items = Array.from({ length: 300 }, (_, i) => BigInt(i));
    assert.throws(() => e.evaluate({ object: { items } }, new EvaluationBudget(1_000_000, 10_000)), new RegExp(BUDGET_EXCEEDED));
    assert.equal(e.evaluate({ object: { items: items.slice(0, 10) } }, new EvaluationBudget()), true);
  });
});

describe('ValidatingAdmissionPolicy evaluation (reference behaviour)', () => {
  const inputs = (data: Record<string, string>) => ({ object: { metadata: { name: 'x' }, data }, oldObject: null, request: {}, params: null, namespaceObject: null });

  it('reference behaviour: variables are evaluated lazily and at most once; messageExpression makes the message', () => {
    const p = compilePolicy(
      policy('p', {
        variables: [{ name: 'n', expression: 'size(object.data)' }],
        validations: [{ expression: 'variables.n < 2', messageExpression: '"too many keys: " + string(variables.n)' }, { expression: 'variables.n < 5' }],
      }),
    );
    assert.equal(p.brokenReason, undefined);
    const out = evaluatePolicy(p, inputs({ a: '1', b: '2' }));
    assert.deepEqual(out.failures, [{ message: 'too many keys: 2', reason: 'Invalid', fieldPath: '', expressionIndex: 0 }]);
  });

  it('reference behaviour: without message the failure names the expression; failurePolicy Ignore skips errors, not failures', () => {
    const spec = { validations: [{ expression: 'object.data.missing == "x"' }, { expression: 'size(object.data) == 0', reason: 'Forbidden', fieldPath: '.data' }] };
    const fail = evaluatePolicy(compilePolicy(policy('p', spec)), inputs({ a: '1' }));
    assert.equal(fail.failures.length, 2);
    assert.match(fail.failures[0]!.message, /^expression 'object.data.missing == "x"' resulted in error: /);
    assert.deepEqual(fail.failures[1], { message: 'failed expression: size(object.data) == 0', reason: 'Forbidden', fieldPath: '.data', expressionIndex: 1 });
    const ignore = evaluatePolicy(compilePolicy(policy('p', { ...spec, failurePolicy: 'Ignore' })), inputs({ a: '1' }));
    assert.deepEqual(ignore.failures.map((f) => f.expressionIndex), [1]);
  });

  it('reference behaviour: a false match condition skips the policy; audit annotations evaluate to a string or null', () => {
    const spec = {
      matchConditions: [{ name: 'only-big', expression: 'size(object.data) > 1' }],
      validations: [{ expression: 'false' }],
      auditAnnotations: [{ key: 'size', valueExpression: 'string(size(object.data))' }, { key: 'none', valueExpression: 'null' }],
    };
    const p = compilePolicy(policy('p', spec));
    assert.deepEqual(evaluatePolicy(p, inputs({ a: '1' })), { failures: [], annotations: [] });
    const out = evaluatePolicy(p, inputs({ a: '1', b: '2' }));
    assert.equal(out.failures.length, 1);
    assert.deepEqual(out.annotations, [['size', '2']]);
  });

  it('reference behaviour: a policy whose stored expressions do not compile keeps the reason', () => {
    assert.match(compilePolicy(policy('p', { validations: [{ expression: 'nope(' }] })).brokenReason ?? '', /^spec\.validations\[0\]\.expression: compilation failed/);
  });
});

describe('ValidatingAdmissionPolicy plugin (reference behaviour)', () => {
  const denyKeyB = policy('no-b', { validations: [{ expression: "!('b' in object.data)", message: 'key b is not allowed', reason: 'Forbidden' }] });

  it('reference behaviour: Deny rejects with the reason\'s code and the reference message; Warn and Audit only report', async () => {
    const plugin = validatingAdmissionPolicyPlugin(deps({ [P]: [denyKeyB], [B]: [binding('deny', 'no-b'), binding('warn', 'no-b', { validationActions: ['Warn', 'Audit'] })] }), undefined);
    const { req, warnings, annotations } = recordingRequest(cm('x', { b: '1' }));
    const e = await rejection(plugin, req);
    assert.equal(e?.code, 403);
    assert.equal(e?.message, `configmaps "x" is forbidden: ValidatingAdmissionPolicy 'no-b' with binding 'deny' denied request: key b is not allowed`);
    assert.deepEqual(warnings, [`Validation failed for ValidatingAdmissionPolicy 'no-b' with binding 'warn': key b is not allowed`]);
    assert.deepEqual(JSON.parse(annotations[POLICY_VALIDATION_FAILURE_ANNOTATION] ?? '[]'), [
      { message: 'key b is not allowed', policy: 'no-b', binding: 'warn', expressionIndex: 0, validationActions: ['Warn', 'Audit'] },
    ]);
    assert.equal(await rejection(plugin, recordingRequest(cm('y', { a: '1' })).req), undefined);
  });

  it('reference behaviour: params come from the paramRef; a missing one denies under parameterNotFoundAction Deny', async () => {
    const withParams = policy('max', { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: 'size(object.data) <= int(params.data.max)' }] });
    const limits: ApiObject = { metadata: { name: 'limits', namespace: 'default' }, data: { max: '1' } };
    const plugin = validatingAdmissionPolicyPlugin(
      deps({
        [P]: [withParams],
        [B]: [binding('by-name', 'max', { paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' } }), binding('missing', 'max', { paramRef: { name: 'gone', parameterNotFoundAction: 'Deny' } })],
        '/configmaps': [limits],
      }),
      undefined,
    );
    const e = await rejection(plugin, recordingRequest(cm('x', { a: '1', b: '2' })).req);
    assert.equal(e?.code, 422);
    assert.match(e?.message ?? '', /binding 'by-name' denied request: failed expression: size\(object.data\) <= int\(params.data.max\)$/);
    const missing = await rejection(plugin, recordingRequest(cm('y', { a: '1' })).req);
    assert.match(missing?.message ?? '', /binding 'missing' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction$/);
  });

  it('reference behaviour: a binding\'s matchResources narrows the policy (namespace selector, object selector)', async () => {
    const plugin = validatingAdmissionPolicyPlugin(
      deps({ [P]: [denyKeyB], [B]: [binding('labelled', 'no-b', { matchResources: { objectSelector: { matchLabels: { check: 'yes' } }, namespaceSelector: { matchLabels: { env: 'prod' } } } })] }),
      undefined,
    );
    assert.equal(await rejection(plugin, recordingRequest(cm('x', { b: '1' })).req), undefined);
    assert.equal((await rejection(plugin, recordingRequest(cm('x', { b: '1' }, { check: 'yes' })).req))?.code, 403);
  });
});

admissionPluginContract('ValidatingAdmissionPolicy', {
  make: () =>
    validatingAdmissionPolicyPlugin(
      deps({ [P]: [policy('no-b', { validations: [{ expression: "!('b' in object.data)" }] })], [B]: [binding('deny', 'no-b')] }),
      undefined,
    ),
  cases: [
    { title: 'an allowed configmap', request: () => admissionRequest({ operation: 'CREATE', name: 'a', object: cm('a', { a: '1' }) }) },
    { title: 'a denied configmap', request: () => admissionRequest({ operation: 'CREATE', name: 'b', object: cm('b', { b: '1' }) }) },
    { title: 'a delete (not matched)', request: () => admissionRequest({ operation: 'DELETE', name: 'b', oldObject: cm('b', { b: '1' }) }) },
  ],
});

describe('ValidatingAdmissionPolicy hot path (issue 15 performance rule)', () => {
  const p = policy('no-b', { validations: [{ expression: "!('b' in object.data)" }] });
  const b = binding('deny', 'no-b');
  const reader = (bindings: ApiObject[]) => ({
    get: async () => undefined,
    list: async () => [],
    peekList: (_g: string, resource: string) => (resource === 'validatingadmissionpolicybindings' ? [...bindings] : [p]),
  });

  it('reference behaviour: with no bindings the plugin answers synchronously with nothing pending', () => {
    const plugin = validatingAdmissionPolicyPlugin({ ...deps({}), objects: reader([]) }, undefined);
    assert.equal(plugin.validate!(recordingRequest(cm('x', { b: '1' })).req), undefined);
  });

  it('reference behaviour: unchanged cached objects are not paired or compiled again', () => {
    const source = new PolicySource(reader([b]));
    const first = source.current();
    assert.ok(Array.isArray(first));
    assert.equal(first.length, 1);
    assert.equal(source.current(), first);
  });
});
