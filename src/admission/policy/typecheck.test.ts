import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Schema } from '../../api/schema.js';
import type { ApiObject } from '../../api/types.js';
import { checkedResources, PolicyTypeChecker, type TypeCheckSchemas } from './typecheck.js';

const str: Schema = { type: 'string' };
const obj = (properties: Record<string, Schema>): Schema => ({ type: 'object', properties });
const meta = obj({ name: str, labels: { type: 'object', additionalProperties: str }, creationTimestamp: { type: 'string', format: 'date-time' } });
const container = obj({ name: str, image: str });
const widget = obj({
  apiVersion: str,
  kind: str,
  metadata: meta,
  spec: obj({ replicas: { type: 'integer' }, size: { 'x-kubernetes-int-or-string': true }, containers: { type: 'array', items: container }, extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }),
});
const settings = obj({ metadata: meta, data: { type: 'object', additionalProperties: str } });

const schemas: TypeCheckSchemas = {
  resource: (g, v, r) => (g === 'example' && v === 'v1' && r === 'widgets' ? { kind: { group: 'example', version: 'v1', kind: 'Widget' }, schema: widget } : g === '' && v === 'v1' && r === 'settings' ? { kind: { group: '', version: 'v1', kind: 'Setting' }, schema: settings } : undefined),
  kind: (g, v, k) => (g === '' && v === 'v1' && k === 'Setting' ? settings : undefined),
  namespace: obj({ metadata: meta }),
};

const rule = (resources: string[], apiGroups = ['example'], apiVersions = ['v1']) => ({ apiGroups, apiVersions, operations: ['CREATE'], resources });
const policy = (spec: Record<string, unknown>, rules = [rule(['widgets'])]): ApiObject => ({ metadata: { name: 'p', generation: 1 }, spec: { matchConstraints: { resourceRules: rules }, ...spec } });
const check = (spec: Record<string, unknown>, rules?: ReturnType<typeof rule>[]) => new PolicyTypeChecker(schemas).check(policy(spec, rules));

describe('ValidatingAdmissionPolicy type checking (reference behaviour)', () => {
  it('reference behaviour: an unknown field is reported under its expression in the reference layout', () => {
    assert.deepEqual(check({ validations: [{ expression: 'object.spec.replicass > 1' }] }), [
      { fieldRef: 'spec.validations[0].expression', warning: "example/v1, Kind=Widget: ERROR: <input>:1:12: undefined field 'replicass'\n | object.spec.replicass > 1\n | ...........^" },
    ]);
  });

  const clean: [string, string][] = [
    ['a typed comparison', 'object.spec.replicas > 1'],
    ['map fields, lists and macros', 'object.metadata.labels["a"] == "b" && object.spec.containers.all(c, c.image.startsWith("r/"))'],
    ['int-or-string and free-form values are dyn', 'object.spec.size == "1" && object.spec.extra.anything.deep > 3'],
    ['date-time strings are timestamps', 'object.metadata.creationTimestamp < timestamp("2030-01-01T00:00:00Z")'],
    ['the request, the namespace and the authorizer', 'request.userInfo.groups.exists(g, g == "x") && namespaceObject.metadata.name != "" && authorizer.group("").resource("pods").check("get").allowed()'],
    ['params without paramKind are dyn', 'params.anything == 1'],
  ];
  for (const [title, expression] of clean) {
    it(`reference behaviour: no warning for ${title}`, () => assert.deepEqual(check({ validations: [{ expression }] }), []));
  }

  const problems: [string, string, RegExp][] = [
    ['an operator on mismatched types', 'object.spec.replicas > "1"', /ERROR: <input>:1:22: found no matching overload for '_>_' applied to '\(int, string\)'\n \| object.spec.replicas > "1"\n \| \.{21}\^$/],
    ['a function on the wrong type', 'object.spec.replicas.startsWith("a")', /found no matching overload for 'startsWith' applied to 'int.\(string\)'/],
    ['a field of a list element', 'object.spec.containers.exists(c, c.imag == "x")', /undefined field 'imag'/],
    ['a second line', 'object.spec.replicas > 1 &&\n  object.spec.foo', /ERROR: <input>:2:14: undefined field 'foo'\n \|   object.spec.foo\n \| \.{13}\^$/],
  ];
  for (const [title, expression, warning] of problems) {
    it(`reference behaviour: a warning for ${title}`, () => {
      const out = check({ validations: [{ expression }] });
      assert.equal(out.length, 1);
      assert.match(out[0]!.warning, warning);
    });
  }

  it('reference behaviour: params are typed from paramKind; variables by their expressions, in order', () => {
    const out = check({
      paramKind: { apiVersion: 'v1', kind: 'Setting' },
      variables: [{ name: 'n', expression: 'object.spec.replicas' }, { name: 'cs', expression: 'object.spec.containers' }],
      validations: [
        { expression: 'int(params.data.max) >= variables.n' },
        { expression: 'params.dat.max == ""', messageExpression: '"n=" + variables.n' },
        { expression: 'variables.cs.all(c, c.nam != "")' },
      ],
      auditAnnotations: [{ key: 'k', valueExpression: 'params.data.max + 1' }],
      matchConditions: [{ name: 'm', expression: 'object.nope' }],
    });
    assert.deepEqual(out.map((w) => [w.fieldRef, /: ERROR: <input>:\d+:\d+: ([^\n]*)/.exec(w.warning)?.[1]]), [
      ['spec.matchConditions[0].expression', "undefined field 'nope'"],
      ['spec.validations[1].expression', "undefined field 'dat'"],
      ['spec.validations[1].messageExpression', "found no matching overload for '_+_' applied to '(string, int)'"],
      ['spec.validations[2].expression', "undefined field 'nam'"],
      ['spec.auditAnnotations[0].valueExpression', "found no matching overload for '_+_' applied to '(string, int)'"],
    ]);
  });

  it('reference behaviour: each matched kind gets its own line group; wildcards, subresources and unknown kinds are not checked', () => {
    const out = check({ validations: [{ expression: 'object.spec.replicas > 1' }] }, [rule(['widgets']), rule(['settings'], [''])]);
    assert.equal(out.length, 1);
    assert.match(out[0]!.warning, /^\/v1, Kind=Setting: ERROR: <input>:1:7: undefined field 'spec'/);
    assert.deepEqual(check({ validations: [{ expression: 'object.nope' }] }, [rule(['*']), rule(['widgets/status']), rule(['gadgets']), rule(['widgets'], ['*'])]), []);
  });

  it('reference behaviour: at most 10 combinations, in group, version, resource order', () => {
    const resources = Array.from({ length: 12 }, (_, i) => `r${String(i).padStart(2, '0')}`);
    const picked = checkedResources(policy({}, [rule([...resources].reverse(), ['b', 'a'])]));
    assert.equal(picked.length, 10);
    assert.deepEqual(picked.slice(0, 2), [{ group: 'a', version: 'v1', resource: 'r00' }, { group: 'a', version: 'v1', resource: 'r01' }]);
    assert.ok(picked.every((r) => r.group === 'a'));
  });
});
