import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ADMISSIONREGISTRATION_GROUP } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { StatusError } from '../../errors/index.js';
import { admissionRequest, fixedObjects } from '../testing/contract.js';
import type { AdmissionDeps, GroupVersionResource } from '../types.js';
import { validatingAdmissionPolicyPlugin } from './plugin.js';

// Widgets served as example.com/v1 (field `count`) and v2 (field `total`), one stored resource.
const V1: GroupVersionResource = { group: 'example.com', version: 'v1', resource: 'widgets' };
const V2: GroupVersionResource = { group: 'example.com', version: 'v2', resource: 'widgets' };
const P = `${ADMISSIONREGISTRATION_GROUP}/validatingadmissionpolicies`;
const B = `${ADMISSIONREGISTRATION_GROUP}/validatingadmissionpolicybindings`;
const SEEN = "' as ' + object.apiVersion + ' kind ' + request.kind.version + ' resource ' + request.resource.version + ' requestKind ' + request.requestKind.version";

function policy(name: string, version: string, expression: string, matchPolicy?: 'Exact'): ApiObject {
  const rule = { operations: ['CREATE'], apiGroups: ['example.com'], apiVersions: [version], resources: ['widgets'] };
  return {
    metadata: { name, uid: `uid-${name}`, resourceVersion: '1' },
    spec: { failurePolicy: 'Fail', matchConstraints: { resourceRules: [rule], ...(matchPolicy ? { matchPolicy } : {}) }, validations: [{ expression, messageExpression: `'refused' + ${SEEN}` }] },
  };
}
const binding = (name: string, labels: Record<string, string> = {}): ApiObject => ({
  metadata: { name, uid: `uid-b-${name}`, resourceVersion: '1' },
  spec: { policyName: name, validationActions: ['Deny'], matchResources: { objectSelector: { matchLabels: labels } } },
});

/** Deps whose conversion counts its calls; `calling` makes it answer a promise, as a conversion webhook does. */
function deps(policies: ApiObject[], bindings: ApiObject[], calling = false) {
  const calls: string[] = [];
  const d: AdmissionDeps = {
    objects: fixedObjects({ [P]: policies, [B]: bindings, '/namespaces': [{ metadata: { name: 'default' } }] }),
    equivalentResources: () => [V1, V2],
    kindOf: (r) => ({ group: r.group, version: r.version, kind: 'Widget' }),
    convertObject(o, from, to) {
      calls.push(`${from.version}->${to.version}`);
      const spec = o.spec as { count?: number; total?: number };
      const converted = to.version === 'v2' ? { total: spec.count } : { count: spec.total };
      const out = { ...o, apiVersion: `example.com/${to.version}`, spec: converted };
      return calling ? Promise.resolve(out) : out;
    },
    log: () => undefined,
  };
  return { d, calls };
}

const request = (count: number, labels: Record<string, string> = {}) =>
  admissionRequest({
    operation: 'CREATE',
    name: 'w',
    kind: { group: 'example.com', version: 'v1', kind: 'Widget' },
    resource: V1,
    object: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default', labels }, spec: { count } },
  });

async function outcome(d: AdmissionDeps, count: number, labels: Record<string, string> = {}): Promise<string> {
  try {
    await validatingAdmissionPolicyPlugin(d, undefined).validate!(request(count, labels));
    return 'admitted';
  } catch (e) {
    assert.ok(e instanceof StatusError);
    return e.message.replace(/^.* denied request: /, '');
  }
}

describe('ValidatingAdmissionPolicy on the version it matched (issues 15, 18)', () => {
  // [title, policies, bindings, conversions expected, outcome for a v1 widget with count 9]
  const cases: [string, ApiObject[], ApiObject[], string[], string][] = [
    ['a policy for the request\'s own version needs no conversion', [policy('own', 'v1', 'object.spec.count <= 5')], [binding('own')], [], 'refused as example.com/v1 kind v1 resource v1 requestKind v1'],
    ['a policy for v2 (Equivalent) sees the object converted to v2', [policy('other', 'v2', 'object.spec.total <= 5')], [binding('other')], ['v1->v2'], 'refused as example.com/v2 kind v2 resource v2 requestKind v1'],
    ['a policy for v2 with matchPolicy Exact does not apply', [policy('exact', 'v2', 'false', 'Exact')], [binding('exact')], [], 'admitted'],
    ['a policy for v2 whose binding does not select the object converts nothing', [policy('unbound', 'v2', 'false')], [binding('unbound', { only: 'these' })], [], 'admitted'],
    ['two policies for v2 share one conversion', [policy('a', 'v2', 'object.spec.total <= 100'), policy('b', 'v2', 'object.spec.total <= 5')], [binding('a'), binding('b')], ['v1->v2'], 'refused as example.com/v2 kind v2 resource v2 requestKind v1'],
  ];
  for (const [title, policies, bindings, conversions, expected] of cases) {
    for (const calling of [false, true]) {
      it(`reference behaviour: ${title} (${calling ? 'conversion that calls out' : 'built-in conversion'})`, async () => {
        const { d, calls } = deps(policies, bindings, calling);
        assert.equal(await outcome(d, 9), expected);
        assert.deepEqual(calls, conversions);
      });
    }
  }

  it('reference behaviour: a failed conversion fails the request with a 500 carrying the conversion\'s message, whatever the failure policy', async () => {
    const ignoring = policy('x', 'v2', 'true');
    (ignoring.spec as Record<string, unknown>).failurePolicy = 'Ignore';
    const { d } = deps([ignoring], [binding('x')]);
    d.convertObject = () => Promise.reject(new StatusError(500, 'InternalError', 'conversion webhook for example.com/Widget failed: down'));
    await assert.rejects(validatingAdmissionPolicyPlugin(d, undefined).validate!(request(1)) as Promise<void>, (e: StatusError) =>
      e.code === 500 && e.message === 'Internal error occurred: conversion webhook for example.com/Widget failed: down');
  });

  it('reference behaviour: without a conversion between the versions the request fails rather than showing the policy another version', async () => {
    const { d } = deps([policy('x', 'v2', 'true')], [binding('x')]);
    delete d.convertObject;
    await assert.rejects(validatingAdmissionPolicyPlugin(d, undefined).validate!(request(1)) as Promise<void>, /unable to convert Widget from example.com\/v1 to example.com\/v2: no conversion between these versions/);
  });
});
