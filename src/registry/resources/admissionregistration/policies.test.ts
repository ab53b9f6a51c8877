import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../api/types.js';
import type { FieldError } from '../../../errors/index.js';
import { defaultPolicy, defaultPolicyBinding } from './defaults.js';
import { validatingAdmissionPolicies } from './index.js';
import { validatePolicy, validatePolicyBinding } from './policies.js';

const summary = (errs: FieldError[]) => errs.map((e) => `${e.type} ${e.field}`);
type Spec = Record<string, any>;

const rule = () => ({ operations: ['CREATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] });
const policySpec = (extra: Spec = {}): Spec => ({
  failurePolicy: 'Fail',
  matchConstraints: { matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {}, resourceRules: [rule()] },
  validations: [{ expression: 'object.spec.replicas <= 5', message: 'too many replicas' }],
  ...extra,
});
const policy = (spec: Spec, name = 'replica-limit'): ApiObject => ({ kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec });

test('reference behaviour: a policy defaults failurePolicy Fail and its match block Equivalent, empty selectors, scope "*"', () => {
  const o = policy({ matchConstraints: { resourceRules: [rule()] }, validations: [{ expression: 'true' }] });
  defaultPolicy(o);
  assert.deepEqual(o.spec, {
    failurePolicy: 'Fail',
    matchConstraints: { resourceRules: [{ ...rule(), scope: '*' }], matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {} },
    validations: [{ expression: 'true' }],
  });
  const binding: ApiObject = { kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'b' }, spec: { policyName: 'p', validationActions: ['Deny'], matchResources: {} } };
  defaultPolicyBinding(binding);
  assert.deepEqual((binding.spec as Spec).matchResources, { matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {} });
});

test('reference behaviour: a usual policy is valid; audit annotations alone are enough', () => {
  assert.deepEqual(validatePolicy(policy(policySpec())), []);
  const auditOnly = policySpec({ validations: [], auditAnnotations: [{ key: 'replicas', valueExpression: 'string(object.spec.replicas)' }] });
  assert.deepEqual(validatePolicy(policy(auditOnly)), []);
  const withParams = policySpec({ paramKind: { apiVersion: 'example.com/v1', kind: 'ReplicaLimit' }, variables: [{ name: 'limit', expression: 'params.max' }] });
  assert.deepEqual(validatePolicy(policy(withParams)), []);
});

test('reference behaviour: each broken policy rule is reported at its field', () => {
  const cases: [string, Spec, string[]][] = [
    ['no validations nor audit annotations', policySpec({ validations: [] }), ['FieldValueRequired spec.validations', 'FieldValueRequired spec.auditAnnotations']],
    ['empty expression', policySpec({ validations: [{ expression: '  ' }] }), ['FieldValueRequired spec.validations[0].expression']],
    ['reason', policySpec({ validations: [{ expression: 'true', reason: 'Teapot' }] }), ['FieldValueNotSupported spec.validations[0].reason']],
    ['message with a line break', policySpec({ validations: [{ expression: 'true', message: 'a\nb' }] }), ['FieldValueInvalid spec.validations[0].message']],
    ['failure policy', policySpec({ failurePolicy: 'Maybe' }), ['FieldValueNotSupported spec.failurePolicy']],
    ['no failure policy', policySpec({ failurePolicy: undefined }), ['FieldValueRequired spec.failurePolicy']],
    ['no match constraints', policySpec({ matchConstraints: undefined }), ['FieldValueRequired spec.matchConstraints']],
    ['no resource rules', policySpec({ matchConstraints: { matchPolicy: 'Exact', namespaceSelector: {}, objectSelector: {} } }), ['FieldValueRequired spec.matchConstraints.resourceRules']],
    ['bad resource rule', policySpec({ matchConstraints: { matchPolicy: 'Exact', namespaceSelector: {}, objectSelector: {}, resourceRules: [{ ...rule(), operations: [] }] } }), ['FieldValueRequired spec.matchConstraints.resourceRules[0].operations']],
    ['resource names', policySpec({ matchConstraints: { matchPolicy: 'Exact', namespaceSelector: {}, objectSelector: {}, resourceRules: [{ ...rule(), resourceNames: ['a', 'a', 'b/c'] }] } }), ['FieldValueDuplicate spec.matchConstraints.resourceRules[0].resourceNames[1]', 'FieldValueInvalid spec.matchConstraints.resourceRules[0].resourceNames[2]']],
    ['param kind', policySpec({ paramKind: { apiVersion: 'a/b/c' } }), ['FieldValueInvalid spec.paramKind.apiVersion', 'FieldValueRequired spec.paramKind.kind']],
    ['param kind version', policySpec({ paramKind: { apiVersion: 'example.com/V1', kind: 'Limit' } }), ['FieldValueInvalid spec.paramKind.apiVersion']],
    ['variable name', policySpec({ variables: [{ name: 'in', expression: 'true' }] }), ['FieldValueInvalid spec.variables[0].name']],
    ['audit key', policySpec({ auditAnnotations: [{ key: 'a b', valueExpression: '"x"' }] }), ['FieldValueInvalid spec.auditAnnotations[0].key']],
    ['duplicate audit key', policySpec({ auditAnnotations: [{ key: 'a', valueExpression: '"x"' }, { key: 'a', valueExpression: '"y"' }] }), ['FieldValueDuplicate spec.auditAnnotations[1].key']],
    ['match condition', policySpec({ matchConditions: [{ name: 'x', expression: '' }] }), ['FieldValueRequired spec.matchConditions[0].expression']],
    ['wrong JSON type', policySpec({ validations: 'all' }), ['FieldValueTypeInvalid spec.validations', 'FieldValueRequired spec.validations', 'FieldValueRequired spec.auditAnnotations']],
  ];
  for (const [what, spec, want] of cases) assert.deepEqual(summary(validatePolicy(policy(spec))), want, what);
});

const binding = (spec: Spec): ApiObject => ({ kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'b' }, spec });
const bindingSpec = (extra: Spec = {}): Spec => ({ policyName: 'replica-limit', validationActions: ['Deny'], ...extra });

test('reference behaviour: a usual binding is valid', () => {
  assert.deepEqual(validatePolicyBinding(binding(bindingSpec())), []);
  assert.deepEqual(validatePolicyBinding(binding(bindingSpec({ validationActions: ['Warn', 'Audit'], paramRef: { name: 'p', namespace: 'ns', parameterNotFoundAction: 'Allow' } }))), []);
  assert.deepEqual(validatePolicyBinding(binding(bindingSpec({ paramRef: { selector: { matchLabels: { a: 'b' } }, parameterNotFoundAction: 'Deny' } }))), []);
});

test('reference behaviour: binding needs policyName and validationActions from Deny/Warn/Audit, not Deny with Warn', () => {
  const cases: [string, Spec, string[]][] = [
    ['no policy name', bindingSpec({ policyName: '' }), ['FieldValueRequired spec.policyName']],
    ['bad policy name', bindingSpec({ policyName: 'Bad Name' }), ['FieldValueInvalid spec.policyName']],
    ['no actions', bindingSpec({ validationActions: [] }), ['FieldValueRequired spec.validationActions']],
    ['unknown action', bindingSpec({ validationActions: ['Log'] }), ['FieldValueNotSupported spec.validationActions[0]']],
    ['duplicate action', bindingSpec({ validationActions: ['Audit', 'Audit'] }), ['FieldValueDuplicate spec.validationActions[1]']],
    ['Deny and Warn', bindingSpec({ validationActions: ['Deny', 'Warn'] }), ['FieldValueInvalid spec.validationActions']],
    ['param ref with name and selector', bindingSpec({ paramRef: { name: 'p', selector: {}, parameterNotFoundAction: 'Deny' } }), ['FieldValueForbidden spec.paramRef.name']],
    ['param ref with neither', bindingSpec({ paramRef: { parameterNotFoundAction: 'Deny' } }), ['FieldValueRequired spec.paramRef']],
    ['param ref without action', bindingSpec({ paramRef: { name: 'p' } }), ['FieldValueRequired spec.paramRef.parameterNotFoundAction']],
    ['match resources', bindingSpec({ matchResources: { matchPolicy: 'Exact', namespaceSelector: {}, objectSelector: { matchLabels: { 'bad key!': 'v' } } } }), ['FieldValueInvalid spec.matchResources.objectSelector.matchLabels']],
  ];
  for (const [what, spec, want] of cases) assert.deepEqual(summary(validatePolicyBinding(binding(spec))), want, what);
});

test('reference behaviour: a policy has a status subresource; create starts without status', () => {
  assert.deepEqual(validatingAdmissionPolicies.subresources, ['status']);
  const o = { ...policy(policySpec()), status: { observedGeneration: 3 } };
  validatingAdmissionPolicies.strategy.prepareForCreate?.(o);
  assert.equal(o.status, undefined);
});

test('reference behaviour: policy expressions that do not compile, name unknown variables, misuse the authorizer library or have the wrong type are 422 field errors', () => {
  const bad = policySpec({
    variables: [{ name: 'a', expression: 'variables.b + 1' }, { name: 'b', expression: 'object.spec.replicas' }],
    matchConditions: [{ name: 'm', expression: 'object.spec.(' }],
    validations: [
      { expression: 'nosuch.x == 1' },
      { expression: 'variables.b < 3', messageExpression: '1 + 2' },
      { expression: "authorizer.group('').resource('pods').check('get').denied()" },
      { expression: "authorizer.group('').resource('pods').namespace(object.metadata.namespace).check('delete').allowed()" },
      { expression: "authorizer.serviceAccount('ns', 'sa').path('/healthz').check('get').reason() == ''" },
    ],
    auditAnnotations: [{ key: 'k', valueExpression: 'variables.a' }],
  });
  const errs = validatePolicy(policy(bad));
  assert.deepEqual(summary(errs), [
    'FieldValueInvalid spec.variables[0].expression',
    'FieldValueInvalid spec.matchConditions[0].expression',
    'FieldValueInvalid spec.validations[0].expression',
    'FieldValueInvalid spec.validations[1].messageExpression',
    'FieldValueInvalid spec.validations[2].expression',
  ]);
  assert.match(errs[0]!.message, /no such variable/);
  assert.match(errs[3]!.message, /must evaluate to string, not int/);
  assert.match(errs[4]!.message, /compilation failed: .*Decision\.denied/);
});
