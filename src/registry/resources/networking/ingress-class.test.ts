import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NETWORKING_GROUP } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import type { FieldError } from '../../../errors/index.js';
import { ingressClasses, validateDomainPrefixedPath } from './ingress-class.js';

const summary = (errs: FieldError[]) => errs.map((e) => `${e.type} ${e.field}`);
const ingressClass = (spec: unknown): ApiObject => ({ apiVersion: `${NETWORKING_GROUP}/v1`, kind: 'IngressClass', metadata: { name: 'nginx' }, spec });
const s = ingressClasses.strategy;

const params = (p: object) => ({ controller: 'example.com/ingress', parameters: { apiGroup: 'example.com', kind: 'Params', name: 'cfg', ...p } });
const cases: { name: string; spec: unknown; want: string[] }[] = [
  { name: 'a domain-prefixed controller', spec: { controller: 'example.com/ingress-nginx' }, want: [] },
  { name: 'cluster-scoped parameters', spec: params({ scope: 'Cluster' }), want: [] },
  { name: 'namespaced parameters', spec: params({ scope: 'Namespace', namespace: 'ingress' }), want: [] },
  { name: 'no controller', spec: {}, want: ['FieldValueRequired spec.controller'] },
  { name: 'a controller without a path', spec: { controller: 'example.com' }, want: ['FieldValueInvalid spec.controller'] },
  { name: 'a controller whose domain is not a subdomain', spec: { controller: 'Example_com/x' }, want: ['FieldValueInvalid spec.controller'] },
  { name: 'a controller whose path has a bad character', spec: { controller: 'example.com/a b' }, want: ['FieldValueInvalid spec.controller'] },
  { name: 'a controller over 250 characters', spec: { controller: `example.com/${'a'.repeat(250)}` }, want: ['FieldValueTooLong spec.controller'] },
  { name: 'parameters without a scope', spec: params({}), want: ['FieldValueRequired spec.parameters.scope'] },
  { name: 'parameters with an unknown scope', spec: params({ scope: 'Global' }), want: ['FieldValueNotSupported spec.parameters.scope'] },
  { name: 'Namespace scope without a namespace', spec: params({ scope: 'Namespace' }), want: ['FieldValueRequired spec.parameters.namespace'] },
  { name: 'Namespace scope with a bad namespace', spec: params({ scope: 'Namespace', namespace: 'a.b' }), want: ['FieldValueInvalid spec.parameters.namespace'] },
  { name: 'Cluster scope with a namespace', spec: params({ scope: 'Cluster', namespace: 'x' }), want: ['FieldValueForbidden spec.parameters.namespace'] },
  { name: 'parameters without kind', spec: params({ scope: 'Cluster', kind: '' }), want: ['FieldValueRequired spec.parameters.kind'] },
];

for (const c of cases) {
  test(`reference behaviour, IngressClass validation: ${c.name}`, () => {
    assert.deepEqual(summary(s.validate(ingressClass(c.spec))), c.want);
  });
}

test('reference behaviour, IngressClass: the domain-prefixed path message', () => {
  assert.equal(validateDomainPrefixedPath('f', 'nope')[0]?.message, 'Invalid value: "nope": must be a domain-prefixed path (such as "acme.io/foo")');
});

test('reference behaviour, IngressClass: parameters scope defaults to Cluster', () => {
  const o = ingressClass(params({}));
  s.prepareForCreate?.(o);
  assert.equal((o.spec as { parameters: { scope: string } }).parameters.scope, 'Cluster');
  assert.deepEqual(summary(s.validate(o)), []);
});

test('reference behaviour, IngressClass: controller is immutable', () => {
  const old = ingressClass({ controller: 'example.com/a' });
  assert.deepEqual(summary(s.validateUpdate?.(ingressClass({ controller: 'example.com/b' }), old) ?? []), ['FieldValueInvalid spec.controller']);
  assert.deepEqual(s.validateUpdate?.(ingressClass({ controller: 'example.com/a', parameters: {} }), old), []);
});

test('reference behaviour, IngressClass: table CONTROLLER, PARAMETERS', () => {
  const cells = (o: ApiObject) => ingressClasses.tableColumns.map((c) => c.value(o));
  assert.deepEqual(ingressClasses.tableColumns.map((c) => c.name), ['Controller', 'Parameters']);
  assert.deepEqual(cells(ingressClass({ controller: 'example.com/a' })), ['example.com/a', '<none>']);
  assert.deepEqual(cells(ingressClass(params({}))), ['example.com/ingress', 'Params.example.com/cfg']);
  assert.deepEqual(cells(ingressClass({ controller: 'x/y', parameters: { kind: 'ConfigMap', name: 'c' } })), ['x/y', 'ConfigMap/c']);
});
