import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../api/types.js';
import type { FieldError } from '../../../errors/index.js';
import { defaultWebhookConfiguration } from './defaults.js';
import { mutatingWebhookConfigurations, validatingWebhookConfigurations } from './index.js';
import { validateResources, validateWebhookURL } from './rules.js';
import { validateWebhookConfiguration } from './webhooks.js';

const summary = (errs: FieldError[]) => errs.map((e) => `${e.type} ${e.field}`);
type Hook = Record<string, any>;

const hook = (extra: Hook = {}): Hook => ({
  name: 'check.example.com',
  clientConfig: { service: { namespace: 'ns', name: 'svc', path: '/validate' } },
  rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments', 'deployments/scale'] }],
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
  ...extra,
});
const config = (...webhooks: Hook[]): ApiObject => ({ kind: 'ValidatingWebhookConfiguration', metadata: { name: 'c' }, webhooks });
const validate = (...webhooks: Hook[]) => validateWebhookConfiguration(config(...webhooks), false);

test('spec 9 (1.22 row), reference behaviour: webhook defaults are Fail, Equivalent, 10s, empty selectors, scope "*", port 443, reinvocation Never', () => {
  const o = config(hook({ timeoutSeconds: 5 }));
  defaultWebhookConfiguration(o, true);
  const h = (o.webhooks as Hook[])[0]!;
  assert.equal(h.failurePolicy, 'Fail');
  assert.equal(h.matchPolicy, 'Equivalent');
  assert.equal(h.timeoutSeconds, 5, 'a set value is kept');
  assert.deepEqual([h.namespaceSelector, h.objectSelector], [{}, {}]);
  assert.equal(h.rules[0].scope, '*');
  assert.equal(h.clientConfig.service.port, 443);
  assert.equal(h.reinvocationPolicy, 'Never');
  const v = config(hook());
  defaultWebhookConfiguration(v, false);
  assert.equal((v.webhooks as Hook[])[0]!.timeoutSeconds, 10);
  assert.equal((v.webhooks as Hook[])[0]!.reinvocationPolicy, undefined, 'validating webhooks are never reinvoked');
});

test('spec 9 (1.22 row): a usual webhook configuration is valid, with url or service', () => {
  assert.deepEqual(validate(hook()), []);
  assert.deepEqual(validate(hook({ clientConfig: { url: 'https://hooks.example.com:8443/check' } }), hook({ name: 'other.example.com' })), []);
  assert.deepEqual(validateWebhookConfiguration(config(), false), []);
});

test('spec 9 (1.22 row), reference behaviour: each broken webhook rule is reported at its field', () => {
  const cases: [string, Hook[], string[]][] = [
    ['no sideEffects', [hook({ sideEffects: undefined })], ['FieldValueRequired webhooks[0].sideEffects']],
    ['v1beta1 side effects', [hook({ sideEffects: 'Some' })], ['FieldValueNotSupported webhooks[0].sideEffects']],
    ['no review versions', [hook({ admissionReviewVersions: [] })], ['FieldValueRequired webhooks[0].admissionReviewVersions']],
    ['no known review version', [hook({ admissionReviewVersions: ['v2'] })], ['FieldValueInvalid webhooks[0].admissionReviewVersions']],
    ['duplicate review version', [hook({ admissionReviewVersions: ['v1', 'v1'] })], ['FieldValueInvalid webhooks[0].admissionReviewVersions[1]']],
    ['two-segment name', [hook({ name: 'example.com' })], ['FieldValueInvalid webhooks[0].name']],
    ['no name', [hook({ name: '' })], ['FieldValueRequired webhooks[0].name']],
    ['duplicate names', [hook(), hook()], ['FieldValueDuplicate webhooks[1].name']],
    ['timeout 0', [hook({ timeoutSeconds: 0 })], ['FieldValueInvalid webhooks[0].timeoutSeconds']],
    ['timeout 31', [hook({ timeoutSeconds: 31 })], ['FieldValueInvalid webhooks[0].timeoutSeconds']],
    ['failure policy', [hook({ failurePolicy: 'Explode' })], ['FieldValueNotSupported webhooks[0].failurePolicy']],
    ['match policy', [hook({ matchPolicy: 'Loose' })], ['FieldValueNotSupported webhooks[0].matchPolicy']],
    ['url and service', [hook({ clientConfig: { url: 'https://a.example.com', service: { namespace: 'n', name: 's' } } })], ['FieldValueRequired webhooks[0].clientConfig']],
    ['neither url nor service', [hook({ clientConfig: {} })], ['FieldValueRequired webhooks[0].clientConfig']],
    ['http url', [hook({ clientConfig: { url: 'http://a.example.com/x' } })], ['FieldValueInvalid webhooks[0].clientConfig.url']],
    ['service port', [hook({ clientConfig: { service: { namespace: 'n', name: 's', port: 70000 } } })], ['FieldValueInvalid webhooks[0].clientConfig.service.port']],
    ['service without name', [hook({ clientConfig: { service: { namespace: 'n' } } })], ['FieldValueRequired webhooks[0].clientConfig.service.name']],
    ['service path', [hook({ clientConfig: { service: { namespace: 'n', name: 's', path: 'ab' } } })], ['FieldValueInvalid webhooks[0].clientConfig.service.path']],
    ['operation', [hook({ rules: [{ operations: ['PATCH'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] })], ['FieldValueNotSupported webhooks[0].rules[0].operations[0]']],
    ['"*" with other operations', [hook({ rules: [{ operations: ['*', 'CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] })], ['FieldValueInvalid webhooks[0].rules[0].operations']],
    ['no api groups', [hook({ rules: [{ operations: ['*'], apiVersions: ['v1'], resources: ['pods'] }] })], ['FieldValueRequired webhooks[0].rules[0].apiGroups']],
    ['scope', [hook({ rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: 'Galaxy' }] })], ['FieldValueNotSupported webhooks[0].rules[0].scope']],
    ['selector operator', [hook({ namespaceSelector: { matchExpressions: [{ key: 'a', operator: 'Near' }] } })], ['FieldValueNotSupported webhooks[0].namespaceSelector.matchExpressions[0].operator']],
    ['selector values', [hook({ objectSelector: { matchExpressions: [{ key: 'a', operator: 'In' }] } })], ['FieldValueRequired webhooks[0].objectSelector.matchExpressions[0].values']],
    ['reinvocation on a validating webhook is not checked', [hook({ reinvocationPolicy: 'Sometimes' })], []],
    ['condition without expression', [hook({ matchConditions: [{ name: 'a', expression: ' ' }] })], ['FieldValueRequired webhooks[0].matchConditions[0].expression']],
    ['duplicate condition', [hook({ matchConditions: [{ name: 'a', expression: 'true' }, { name: 'a', expression: 'true' }] })], ['FieldValueDuplicate webhooks[0].matchConditions[1].name']],
    ['65 conditions', [hook({ matchConditions: Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: 'true' })) })], ['FieldValueTooMany webhooks[0].matchConditions']],
    ['condition that does not compile', [hook({ matchConditions: [{ name: 'a', expression: 'object.x +' }] })], ['FieldValueInvalid webhooks[0].matchConditions[0].expression']],
    ['condition that is not bool', [hook({ matchConditions: [{ name: 'a', expression: '"x"' }] })], ['FieldValueInvalid webhooks[0].matchConditions[0].expression']],
    ['condition using authorizer', [hook({ matchConditions: [{ name: 'a', expression: 'authorizer.group("").resource("pods").check("get").allowed()' }] })], []],
    ['condition calling an unknown authorizer method', [hook({ matchConditions: [{ name: 'a', expression: 'authorizer.group("").check("get").allowed()' }] })], ['FieldValueInvalid webhooks[0].matchConditions[0].expression']],
    ['wrong JSON types', [hook({ timeoutSeconds: '10', rules: 'all' })], ['FieldValueTypeInvalid webhooks[0].rules', 'FieldValueTypeInvalid webhooks[0].timeoutSeconds']],
  ];
  for (const [what, hooks, want] of cases) assert.deepEqual(summary(validate(...hooks)), want, what);
  const segments = validate(hook({ clientConfig: { service: { namespace: 'n', name: 's', path: '/a//B/' } } })).map((e) => e.message);
  assert.equal(segments.length, 2);
  assert.match(segments[0] ?? '', /segment\[1\] may not be empty/);
  assert.match(segments[1] ?? '', /segment\[2\]: a lowercase RFC 1123 subdomain/);
  const webhooksNotAList = validateWebhookConfiguration({ kind: 'ValidatingWebhookConfiguration', metadata: { name: 'c' }, webhooks: 'x' }, false);
  assert.deepEqual(summary(webhooksNotAList), ['FieldValueTypeInvalid webhooks']);
});

test('reference behaviour: a mutating webhook reinvocation policy is Never or IfNeeded', () => {
  assert.deepEqual(summary(validateWebhookConfiguration(config(hook({ reinvocationPolicy: 'IfNeeded' })), true)), []);
  assert.deepEqual(summary(validateWebhookConfiguration(config(hook({ reinvocationPolicy: 'Sometimes' })), true)), ['FieldValueNotSupported webhooks[0].reinvocationPolicy']);
});

test('reference behaviour: webhook URLs are https with a host and no user info, query or fragment', () => {
  const cases: [string, string[]][] = [
    ['https://a.example.com/path', []],
    ['http://a.example.com', ["Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]"]],
    ['https://user:pw@a.example.com', ['Invalid value: "user:pw": user information is not permitted in the URL']],
    ['https://a.example.com/#frag', ['Invalid value: "frag": fragments are not permitted in the URL']],
    ['https://a.example.com/?q=1', ['Invalid value: "q=1": query parameters are not permitted in the URL']],
    ['not a url', ["Invalid value: \"\": 'https' is the only allowed URL scheme; desired format: https://host[/path]", 'Invalid value: "": host must be specified; desired format: https://host[/path]']],
  ];
  for (const [url, want] of cases) assert.deepEqual(validateWebhookURL(url, 'u').map((e) => e.message), want, url);
});

test('reference behaviour: rule resources accept "*", "*/*", "x/*" and "*/y" unless they overlap', () => {
  const cases: [string[], string[]][] = [
    [['pods', 'pods/status'], []],
    [['*'], []],
    [['*/*'], []],
    [['*', '*/scale'], []],
    [['pods/*', 'pods/log'], ['FieldValueInvalid r[1]']],
    [['*/status', 'pods/status'], ['FieldValueInvalid r[1]']],
    [['*/*', 'pods'], ['FieldValueInvalid r']],
    [['*', 'pods'], ['FieldValueInvalid r']],
    [[], ['FieldValueRequired r']],
    [[''], ['FieldValueRequired r[0]']],
  ];
  for (const [resources, want] of cases) assert.deepEqual(summary(validateResources(resources, 'r')), want, resources.join(','));
});

test('reference behaviour: a webhook configuration generation starts at 1 and grows when its webhooks change', () => {
  for (const type of [validatingWebhookConfigurations, mutatingWebhookConfigurations]) {
    assert.equal(type.strategy.tracksGeneration, true);
    const old: ApiObject = { ...config(hook()), metadata: { name: 'c', generation: 3 } };
    defaultWebhookConfiguration(old, type === mutatingWebhookConfigurations); // as stored
    const same: ApiObject = { ...config(hook()), metadata: { name: 'c', generation: 3 } };
    type.strategy.prepareForUpdate?.(same, structuredClone(old));
    assert.equal(same.metadata?.generation, 3);
    const changed: ApiObject = { ...config(hook({ timeoutSeconds: 20 })), metadata: { name: 'c', generation: 3 } };
    type.strategy.prepareForUpdate?.(changed, structuredClone(old));
    assert.equal(changed.metadata?.generation, 4);
  }
});

test('reference behaviour: match condition CEL is compiled when stored, the authorizer library included', () => {
  assert.deepEqual(validate(hook({ matchConditions: [{ name: 'a', expression: 'object.metadata.name.startsWith("x") && request.operation == "CREATE"' }] })), []);
  assert.deepEqual(validate(hook({ matchConditions: [{ name: 'a', expression: 'authorizer.requestResource.check("get").allowed()' }] })), []);
  const [err] = validate(hook({ matchConditions: [{ name: 'a', expression: 'authorizer.requestResource.fieldSelector("a=b").check("list").allowed()' }] }));
  assert.match(err?.message ?? '', /compilation failed: fieldSelector\(\) needs the AuthorizeWithSelectors feature gate/);
  const [bad] = validate(hook({ matchConditions: [{ name: 'a', expression: '1 +' }] }));
  assert.match(bad?.message ?? '', /compilation failed/);
});
