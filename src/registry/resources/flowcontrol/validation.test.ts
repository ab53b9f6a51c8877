import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../api/types.js';
import type { FieldError } from '../../../errors/index.js';
import { MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS } from './bootstrap.js';
import { nonResourceURLError, validateFlowSchema } from './validate-flowschema.js';
import { requiredEntropyBits, validatePriorityLevel } from './validate-prioritylevel.js';

const summary = (errs: FieldError[]) => errs.map((e) => `${e.type} ${e.field}`);
type Spec = Record<string, any>;

const flowSchema = (spec: Spec, name = 'fs'): ApiObject => ({ kind: 'FlowSchema', metadata: { name }, spec });
const goodRule = () => ({
  subjects: [{ kind: 'User', user: { name: 'alice' } }],
  resourceRules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'], namespaces: ['default'] }],
  nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/metrics/*'] }],
});
const goodFlowSchema = (): Spec => ({ priorityLevelConfiguration: { name: 'workload-low' }, matchingPrecedence: 500, rules: [goodRule()] });
const withRule = (patch: Spec): Spec => ({ ...goodFlowSchema(), rules: [{ ...goodRule(), ...patch }] });

test('reference behaviour, FlowSchema: a usual schema is valid', () => {
  assert.deepEqual(validateFlowSchema(flowSchema(goodFlowSchema())), []);
  assert.deepEqual(validateFlowSchema(flowSchema({ ...goodFlowSchema(), distinguisherMethod: { type: 'ByNamespace' } })), []);
  assert.deepEqual(
    validateFlowSchema(flowSchema(withRule({ subjects: [{ kind: 'ServiceAccount', serviceAccount: { namespace: 'ns', name: '*' } }, { kind: 'Group', group: { name: 'g' } }] }))),
    [],
  );
});

test('reference behaviour, FlowSchema: each broken rule is reported at its field', () => {
  const cases: [string, Spec, string[], string?][] = [
    ['no priority level', { ...goodFlowSchema(), priorityLevelConfiguration: {} }, ['FieldValueRequired spec.priorityLevelConfiguration.name']],
    ['bad priority level name', { ...goodFlowSchema(), priorityLevelConfiguration: { name: 'Bad_Name' } }, ['FieldValueInvalid spec.priorityLevelConfiguration.name']],
    ['precedence 0', { ...goodFlowSchema(), matchingPrecedence: 0 }, ['FieldValueInvalid spec.matchingPrecedence'], 'must be a positive value'],
    ['precedence 10001', { ...goodFlowSchema(), matchingPrecedence: 10001 }, ['FieldValueInvalid spec.matchingPrecedence'], 'must not be greater than 10000'],
    ['precedence 1', { ...goodFlowSchema(), matchingPrecedence: 1 }, ['FieldValueInvalid spec.matchingPrecedence'], "only the schema named 'exempt'"],
    ['distinguisher', { ...goodFlowSchema(), distinguisherMethod: { type: 'ByColor' } }, ['FieldValueNotSupported spec.distinguisherMethod.type']],
    ['no subjects', withRule({ subjects: [] }), ['FieldValueRequired spec.rules[0].subjects']],
    ['subject kind', withRule({ subjects: [{ kind: 'Robot' }] }), ['FieldValueNotSupported spec.rules[0].subjects[0].kind']],
    ['subject without its block', withRule({ subjects: [{ kind: 'Group' }] }), ['FieldValueRequired spec.rules[0].subjects[0].group']],
    ['subject with another block', withRule({ subjects: [{ kind: 'User', user: { name: 'a' }, group: { name: 'g' } }] }), ['FieldValueForbidden spec.rules[0].subjects[0].group']],
    ['user name empty', withRule({ subjects: [{ kind: 'User', user: { name: '' } }] }), ['FieldValueRequired spec.rules[0].subjects[0].user.name']],
    ['service account namespace', withRule({ subjects: [{ kind: 'ServiceAccount', serviceAccount: { name: 'a' } }] }), ['FieldValueRequired spec.rules[0].subjects[0].serviceAccount.namespace']],
    ['service account name', withRule({ subjects: [{ kind: 'ServiceAccount', serviceAccount: { namespace: 'n', name: 'A_B' } }] }), ['FieldValueInvalid spec.rules[0].subjects[0].serviceAccount.name']],
    ['no rules at all', withRule({ resourceRules: [], nonResourceRules: [] }), ['FieldValueRequired spec.rules[0]']],
    ['no verbs', withRule({ resourceRules: [{ verbs: [], apiGroups: [''], resources: ['pods'], clusterScope: true }] }), ['FieldValueRequired spec.rules[0].resourceRules[0].verbs']],
    ['unknown verb', withRule({ resourceRules: [{ verbs: ['get', 'escalate'], apiGroups: [''], resources: ['pods'], clusterScope: true }] }), ['FieldValueNotSupported spec.rules[0].resourceRules[0].verbs']],
    ['wildcard verb with others', withRule({ resourceRules: [{ verbs: ['*', 'get'], apiGroups: [''], resources: ['pods'], clusterScope: true }] }), ['FieldValueInvalid spec.rules[0].resourceRules[0].verbs']],
    ['no groups', withRule({ resourceRules: [{ verbs: ['get'], apiGroups: [], resources: ['pods'], clusterScope: true }] }), ['FieldValueRequired spec.rules[0].resourceRules[0].apiGroups']],
    ['wildcard group with others', withRule({ resourceRules: [{ verbs: ['get'], apiGroups: ['*', 'apps'], resources: ['pods'], clusterScope: true }] }), ['FieldValueInvalid spec.rules[0].resourceRules[0].apiGroups']],
    ['no resources', withRule({ resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: [], clusterScope: true }] }), ['FieldValueRequired spec.rules[0].resourceRules[0].resources']],
    ['no namespaces, not cluster scoped', withRule({ resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] }), ['FieldValueRequired spec.rules[0].resourceRules[0].namespaces']],
    ['bad namespace', withRule({ resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], namespaces: ['a.b'] }] }), ['FieldValueInvalid spec.rules[0].resourceRules[0].namespaces[0]']],
    ['no URLs', withRule({ nonResourceRules: [{ verbs: ['get'], nonResourceURLs: [] }] }), ['FieldValueRequired spec.rules[0].nonResourceRules[0].nonResourceURLs']],
    ['bad URL', withRule({ nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['healthz'] }] }), ['FieldValueInvalid spec.rules[0].nonResourceRules[0].nonResourceURLs[0]']],
    ['wrong JSON type', { ...goodFlowSchema(), matchingPrecedence: 'high' }, ['FieldValueTypeInvalid spec.matchingPrecedence']],
    ['rules not a list', { ...goodFlowSchema(), rules: 'all' }, ['FieldValueTypeInvalid spec.rules']],
  ];
  for (const [what, spec, want, message] of cases) {
    const errs = validateFlowSchema(flowSchema(spec));
    assert.deepEqual(summary(errs), want, what);
    if (message !== undefined) assert.match(errs[0]?.message ?? '', new RegExp(message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), what);
  }
});

test('reference behaviour, FlowSchema: non-resource URLs are "/", slash paths, or end in one "/*"', () => {
  for (const ok of ['/', '/healthz', '/apis/*', '/x/']) assert.equal(nonResourceURLError(ok), undefined, ok);
  const bad: [string, string][] = [
    ['', 'must not be empty'],
    ['x', 'must start with slash'],
    ['/a b', 'must not contain white-space'],
    ['//a', 'must not contain double slash'],
    ['/a*', 'wildcard can only do suffix glob matching'],
    ['/*/a/*', 'wildcard can only do suffix glob matching'],
  ];
  for (const [url, msg] of bad) assert.equal(nonResourceURLError(url), msg, url);
});

test('reference behaviour, FlowSchema: status conditions need a type, once each', () => {
  const o = { ...flowSchema(goodFlowSchema()), status: { conditions: [{ type: 'Dangling', status: 'False' }, { type: 'Dangling' }, { status: 'True' }] } };
  assert.deepEqual(summary(validateFlowSchema(o)), ['FieldValueDuplicate status.conditions[1].type', 'FieldValueRequired status.conditions[2].type']);
});

test('reference behaviour: a mandatory object must keep its fixed spec (the exempt level only its exempt block may change)', () => {
  const exemptFs = structuredClone(MANDATORY_FLOW_SCHEMAS[0]!);
  assert.deepEqual(validateFlowSchema(exemptFs), []);
  (exemptFs.spec as Spec).matchingPrecedence = 2;
  assert.deepEqual(summary(validateFlowSchema(exemptFs)), ['FieldValueInvalid spec']);
  const [exemptPl, catchAll] = MANDATORY_PRIORITY_LEVELS.map((o) => structuredClone(o));
  (exemptPl!.spec as Spec).exempt = { nominalConcurrencyShares: 10, lendablePercent: 50 };
  assert.deepEqual(validatePriorityLevel(exemptPl!), []);
  (catchAll!.spec as Spec).limited.nominalConcurrencyShares = 6;
  assert.deepEqual(summary(validatePriorityLevel(catchAll!)), ['FieldValueInvalid spec']);
});

const level = (spec: Spec, name = 'pl'): ApiObject => ({ kind: 'PriorityLevelConfiguration', metadata: { name }, spec });
const queued = (queuing: Spec, extra: Spec = {}): Spec => ({
  type: 'Limited',
  limited: { nominalConcurrencyShares: 10, lendablePercent: 0, limitResponse: { type: 'Queue', queuing }, ...extra },
});
const goodQueuing = { queues: 64, handSize: 8, queueLengthLimit: 50 };

test('reference behaviour, PriorityLevelConfiguration: usual levels are valid, and 0 shares is allowed', () => {
  assert.deepEqual(validatePriorityLevel(level(queued(goodQueuing))), []);
  assert.deepEqual(validatePriorityLevel(level(queued(goodQueuing, { nominalConcurrencyShares: 0, borrowingLimitPercent: 300 }))), []);
  assert.deepEqual(validatePriorityLevel(level({ type: 'Limited', limited: { nominalConcurrencyShares: 1, limitResponse: { type: 'Reject' } } })), []);
  assert.deepEqual(validatePriorityLevel(level({ type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } }, 'exempt')), []);
});

test('reference behaviour, PriorityLevelConfiguration: each broken rule is reported at its field', () => {
  const cases: [string, ApiObject, string[]][] = [
    ['unknown type', level({ type: 'Unlimited' }), ['FieldValueNotSupported spec.type']],
    ['Exempt under another name', level({ type: 'Exempt' }), ['FieldValueInvalid spec.type']],
    ['exempt name, Limited type', level(queued(goodQueuing), 'exempt'), ['FieldValueInvalid spec.type', 'FieldValueInvalid spec']],
    ['Exempt with limited', level({ type: 'Exempt', limited: { nominalConcurrencyShares: 1 } }, 'exempt'), ['FieldValueForbidden spec.limited', 'FieldValueInvalid spec']],
    ['Limited with exempt', level({ ...queued(goodQueuing), exempt: {} }), ['FieldValueForbidden spec.exempt']],
    ['Limited without limited', level({ type: 'Limited' }), ['FieldValueRequired spec.limited']],
    ['negative shares', level(queued(goodQueuing, { nominalConcurrencyShares: -1 })), ['FieldValueInvalid spec.limited.nominalConcurrencyShares']],
    ['lendable over 100', level(queued(goodQueuing, { lendablePercent: 101 })), ['FieldValueInvalid spec.limited.lendablePercent']],
    ['negative borrowing', level(queued(goodQueuing, { borrowingLimitPercent: -1 })), ['FieldValueInvalid spec.limited.borrowingLimitPercent']],
    ['exempt lendable', level({ type: 'Exempt', exempt: { lendablePercent: -1, nominalConcurrencyShares: -2 } }, 'exempt'), ['FieldValueInvalid spec.exempt.nominalConcurrencyShares', 'FieldValueInvalid spec.exempt.lendablePercent']],
    ['no limit response type', level({ type: 'Limited', limited: { nominalConcurrencyShares: 1 } }), ['FieldValueNotSupported spec.limited.limitResponse.type']],
    ['Reject with queuing', level({ type: 'Limited', limited: { nominalConcurrencyShares: 1, limitResponse: { type: 'Reject', queuing: goodQueuing } } }), ['FieldValueForbidden spec.limited.limitResponse.queuing']],
    ['Queue without queuing', level({ type: 'Limited', limited: { nominalConcurrencyShares: 1, limitResponse: { type: 'Queue' } } }), ['FieldValueRequired spec.limited.limitResponse.queuing']],
    ['queue length 0', level(queued({ ...goodQueuing, queueLengthLimit: 0 })), ['FieldValueInvalid spec.limited.limitResponse.queuing.queueLengthLimit']],
    ['too many queues', level(queued({ ...goodQueuing, queues: 10_000_001, handSize: 1 })), ['FieldValueInvalid spec.limited.limitResponse.queuing.queues']],
    ['hand larger than deck', level(queued({ ...goodQueuing, queues: 4, handSize: 5 })), ['FieldValueInvalid spec.limited.limitResponse.queuing.handSize']],
    ['too much entropy', level(queued({ ...goodQueuing, queues: 128, handSize: 9 })), ['FieldValueInvalid spec.limited.limitResponse.queuing.handSize']],
    ['wrong JSON type', level(queued({ ...goodQueuing, queues: '64' })), ['FieldValueTypeInvalid spec.limited.limitResponse.queuing.queues', 'FieldValueInvalid spec.limited.limitResponse.queuing.queues', 'FieldValueInvalid spec.limited.limitResponse.queuing.handSize']],
  ];
  for (const [what, o, want] of cases) assert.deepEqual(summary(validatePriorityLevel(o)), want, what);
});

test('reference behaviour, PriorityLevelConfiguration: shuffle sharding may use at most 60 bits of hash', () => {
  assert.equal(requiredEntropyBits(64, 8), 48);
  assert.equal(requiredEntropyBits(128, 8), 56);
  assert.equal(requiredEntropyBits(128, 9), 63);
  const errs = validatePriorityLevel(level(queued({ ...goodQueuing, queues: 128, handSize: 9 })));
  assert.match(errs[0]?.message ?? '', /required entropy bits of deckSize 128 and handSize 9 should not be greater than 60/);
});
