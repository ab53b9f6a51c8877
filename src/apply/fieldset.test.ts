import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../errors/index.js';
import { ancestorKeys, fieldSet, fieldSetOf, leaves, parsePathKey, pathKey, pathString, union, difference, intersection, has, isEmpty } from './fieldset.js';
import { fromFieldsV1, toFieldsV1 } from './fieldsv1.js';
import { decodeManagedFields, encodeManagedFields, isResetRequest } from './managed.js';
import { mergeOrder } from './merge.js';
import { deployment, deploymentSchema, T0, T1 } from './testing.js';

const C = 'k:{"name":"c"}';

describe('spec 2.4: field sets follow the schema', () => {
  const cases: { title: string; obj: Record<string, unknown>; want: string[][]; ignoreStatus?: boolean }[] = [
    {
      title: 'server-owned metadata and type fields are left out; labels are granular',
      obj: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'd', uid: 'u', resourceVersion: '3', labels: { app: 'x' } } },
      want: [['f:metadata', 'f:labels', 'f:app']],
    },
    {
      title: 'metadata: {} is not owned as one leaf',
      obj: { metadata: {} },
      want: [],
    },
    {
      title: 'scalar, atomic map and atomic list are one leaf each',
      obj: { spec: { replicas: 2, selector: { matchLabels: { a: 'b' } }, template: { spec: { containers: [{ name: 'c', args: ['x', 'y'] }] } } } },
      want: [
        ['f:spec', 'f:replicas'],
        ['f:spec', 'f:selector'],
        ['f:spec', 'f:template', 'f:spec', 'f:containers', C],
        ['f:spec', 'f:template', 'f:spec', 'f:containers', C, 'f:args'],
        ['f:spec', 'f:template', 'f:spec', 'f:containers', C, 'f:name'],
      ],
    },
    {
      title: 'map-list keys are JSON of the key fields, sorted; set lists use values',
      obj: { spec: { tags: ['b', 'a'], template: { spec: { containers: [{ name: 'c', ports: [{ protocol: 'TCP', containerPort: 80 }] }] } } } },
      want: [
        ['f:spec', 'f:tags', 'v:"a"'],
        ['f:spec', 'f:tags', 'v:"b"'],
        ['f:spec', 'f:template', 'f:spec', 'f:containers', C],
        ['f:spec', 'f:template', 'f:spec', 'f:containers', C, 'f:name'],
        ['f:spec', 'f:template', 'f:spec', 'f:containers', C, 'f:ports', 'k:{"containerPort":80,"protocol":"TCP"}'],
        ['f:spec', 'f:template', 'f:spec', 'f:containers', C, 'f:ports', 'k:{"containerPort":80,"protocol":"TCP"}', 'f:containerPort'],
        ['f:spec', 'f:template', 'f:spec', 'f:containers', C, 'f:ports', 'k:{"containerPort":80,"protocol":"TCP"}', 'f:protocol'],
      ],
    },
    {
      title: 'a patch merge key without list type makes a map list',
      obj: { spec: { volumes: [{ name: 'v', path: '/p' }] } },
      want: [
        ['f:spec', 'f:volumes', 'k:{"name":"v"}'],
        ['f:spec', 'f:volumes', 'k:{"name":"v"}', 'f:name'],
        ['f:spec', 'f:volumes', 'k:{"name":"v"}', 'f:path'],
      ],
    },
    {
      title: 'preserve-unknown-fields objects are granular by key, their lists atomic; unknown fields are leaves',
      obj: { spec: { config: { a: { b: 1 }, l: [1, 2] }, mystery: { x: 1 } } },
      want: [
        ['f:spec', 'f:config', 'f:a'],
        ['f:spec', 'f:config', 'f:a', 'f:b'],
        ['f:spec', 'f:config', 'f:l'],
        ['f:spec', 'f:mystery'],
      ],
    },
    {
      title: 'empty maps and nulls are leaves',
      obj: { spec: { template: {}, paused: null } },
      want: [
        ['f:spec', 'f:paused'],
        ['f:spec', 'f:template'],
      ],
    },
    {
      title: 'status is left out with ignoreStatus',
      obj: { spec: { replicas: 1 }, status: { replicas: 1 } },
      ignoreStatus: true,
      want: [['f:spec', 'f:replicas']],
    },
  ];
  for (const c of cases) {
    it(c.title, () => {
      assert.deepEqual(leaves(fieldSetOf(c.obj, deploymentSchema, { ignoreStatus: c.ignoreStatus })), c.want);
    });
  }

  it('a map-list element without its key is a 400', () => {
    assert.throws(
      () => fieldSetOf(deployment({ template: { spec: { containers: [{ image: 'i' }] } } }), deploymentSchema),
      (e: unknown) => e instanceof StatusError && e.code === 400 && /omits key field "name"/.test(e.message),
    );
  });

  it('set helpers', () => {
    const a = fieldSet([['f:a'], ['f:b']]);
    const b = fieldSet([['f:b'], ['f:c']]);
    assert.deepEqual(leaves(union(a, b)), [['f:a'], ['f:b'], ['f:c']]);
    assert.deepEqual(leaves(difference(a, b)), [['f:a']]);
    assert.deepEqual(leaves(intersection(a, b)), [['f:b']]);
    assert.equal(has(a, ['f:a']), true);
    assert.equal(isEmpty(difference(a, a)), true);
  });

  const readable: [string[], string][] = [
    [['f:spec', 'f:replicas'], '.spec.replicas'],
    [['f:spec', 'f:containers', C, 'f:image'], '.spec.containers[name="c"].image'],
    [['f:ports', 'k:{"containerPort":80,"protocol":"TCP"}'], '.ports[containerPort=80,protocol="TCP"]'],
    [['f:metadata', 'f:finalizers', 'v:"a"'], '.metadata.finalizers[="a"]'],
    [['f:args', 'i:3'], '.args[3]'],
  ];
  for (const [path, want] of readable) it(`readable path ${want}`, () => assert.equal(pathString(path), want));
});

describe('spec 2.4: field path keys', () => {
  const cases: { name: string; path: string[] }[] = [
    { name: 'the root', path: [] },
    { name: 'one field', path: ['f:metadata'] },
    { name: 'nested fields', path: ['f:spec', 'f:containers', 'k:{"name":"c"}', 'f:image'] },
    { name: 'a backslash in JSON text', path: ['f:data', 'v:"a\\"b"'] },
    { name: 'a NUL inside a segment', path: ['f:data', 'f:a\u0000b', 'f:c'] },
    { name: 'an escaped-looking sequence', path: ['f:x\\0', 'f:\\\\'] },
    { name: 'an empty field name', path: ['f:', 'f:a'] },
  ];
  for (const c of cases) {
    it(`round-trips ${c.name}`, () => assert.deepEqual(parsePathKey(pathKey(c.path)), c.path));
  }
  it('different paths never share a key', () => {
    const keys = new Set(cases.map((c) => pathKey(c.path)));
    assert.equal(keys.size, cases.length);
    assert.notEqual(pathKey(['f:a\u0000f:b']), pathKey(['f:a', 'f:b']));
  });
  it('ancestor keys are the keys of every strict prefix', () => {
    const p = ['f:spec', 'f:a\u0000b', 'k:{"k":"\\\\"}', 'f:c'];
    const got = [...ancestorKeys(new Set([pathKey(p)]))].map(parsePathKey);
    assert.deepEqual(got, [p.slice(0, 1), p.slice(0, 2), p.slice(0, 3)]);
  });
});

describe('spec 2.4: FieldsV1', () => {
  const cases: { title: string; paths: string[][]; wire: Record<string, unknown> }[] = [
    {
      title: 'labels and a map-list element with its own "." entry',
      paths: [
        ['f:metadata', 'f:labels', 'f:app'],
        ['f:spec', 'f:containers', C],
        ['f:spec', 'f:containers', C, 'f:image'],
      ],
      wire: { 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:spec': { 'f:containers': { [C]: { '.': {}, 'f:image': {} } } } },
    },
    {
      title: 'v: and i: segments',
      paths: [
        ['f:metadata', 'f:finalizers', 'v:"x/y"'],
        ['f:args', 'i:0'],
        ['f:ports', 'v:{"a":1,"b":[true]}'],
      ],
      wire: { 'f:metadata': { 'f:finalizers': { 'v:"x/y"': {} } }, 'f:args': { 'i:0': {} }, 'f:ports': { 'v:{"a":1,"b":[true]}': {} } },
    },
    { title: 'the empty set', paths: [], wire: {} },
  ];
  for (const c of cases) {
    it(`round trip: ${c.title}`, () => {
      const set = fieldSet(c.paths);
      assert.deepEqual(toFieldsV1(set), c.wire);
      assert.deepEqual(leaves(fromFieldsV1(c.wire)), leaves(set));
    });
  }

  it('keys are canonicalised on input (key field order does not matter)', () => {
    const set = fromFieldsV1({ 'f:ports': { 'k:{"protocol":"TCP","containerPort":80}': {} } });
    assert.deepEqual(leaves(set), [['f:ports', 'k:{"containerPort":80,"protocol":"TCP"}']]);
  });

  const malformed: [string, unknown, RegExp][] = [
    ['not an object', [], /^fieldsV1: must be an object/],
    ['unknown prefix', { 'f:spec': { 'x:y': {} } }, /^fieldsV1\.spec: invalid path element "x:y"/],
    ['bad key JSON', { 'f:spec': { 'f:c': { 'k:{name}': {} } } }, /^fieldsV1\.spec\.c: invalid path element/],
    ['non-object leaf', { 'f:spec': { 'f:replicas': true } }, /^fieldsV1\.spec\.replicas: must be an object/],
    ['"." with content', { 'f:spec': { '.': { 'f:a': {} } } }, /^fieldsV1\.spec: "\." must be an empty object/],
    ['bad index', { 'f:args': { 'i:-1': {} } }, /^fieldsV1\.args: invalid path element/],
  ];
  for (const [title, wire, message] of malformed) {
    it(`malformed input is a 400 naming the path: ${title}`, () => {
      assert.throws(() => fromFieldsV1(wire), (e: unknown) => e instanceof StatusError && e.code === 400 && message.test(e.message));
    });
  }
});

describe('spec 2.4: managed-field entries', () => {
  const entry = (manager: string, operation: string, time: string, fields: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    manager,
    operation,
    apiVersion: 'apps/v1',
    time,
    fieldsType: 'FieldsV1',
    fieldsV1: fields,
    ...extra,
  });

  it('decode and encode round trip; Apply entries sort first, then by time', () => {
    const raw = [
      entry('kubectl', 'Update', T0, { 'f:spec': { 'f:replicas': {} } }),
      entry('ctl', 'Update', T0, { 'f:status': { 'f:replicas': {} } }, { subresource: 'status' }),
      entry('ci', 'Apply', T1, { 'f:spec': { 'f:paused': {} } }),
    ];
    const decoded = decodeManagedFields(raw);
    assert.deepEqual(
      decoded.map((d) => [d.manager, d.operation, d.subresource]),
      [
        ['kubectl', 'Update', ''],
        ['ctl', 'Update', 'status'],
        ['ci', 'Apply', ''],
      ],
    );
    assert.deepEqual(encodeManagedFields(decoded), [raw[2], raw[0], raw[1]]);
  });

  it('Update entries of one manager merge; empty sets are dropped', () => {
    const decoded = decodeManagedFields([
      entry('kubectl', 'Update', T0, { 'f:spec': { 'f:replicas': {} } }),
      entry('kubectl', 'Update', T1, { 'f:spec': { 'f:paused': {} } }),
      entry('idle', 'Update', T0, {}),
    ]);
    assert.equal(decoded.length, 2);
    assert.deepEqual(encodeManagedFields(decoded), [entry('kubectl', 'Update', T1, { 'f:spec': { 'f:paused': {}, 'f:replicas': {} } })]);
  });

  const invalid: [string, unknown, RegExp][] = [
    ['not a list', {}, /must be a list/],
    ['bad operation', [entry('a', 'Patch', T0, {})], /managedFields\[0\]\.operation/],
    ['bad fieldsType', [entry('a', 'Apply', T0, {}, { fieldsType: 'FieldsV2' })], /managedFields\[0\]\.fieldsType/],
    ['bad time', [entry('a', 'Apply', 'yesterday', {})], /managedFields\[0\]\.time/],
    ['bad fields', [entry('a', 'Apply', T0, { 'f:a': 1 })], /managedFields\[0\]\.fieldsV1\.a: must be an object/],
    ['duplicate Apply', [entry('a', 'Apply', T0, {}), entry('a', 'Apply', T1, {})], /duplicate Apply entry/],
  ];
  for (const [title, raw, message] of invalid) {
    it(`invalid entries are a 400: ${title}`, () => {
      assert.throws(() => decodeManagedFields(raw), (e: unknown) => e instanceof StatusError && e.code === 400 && message.test(e.message));
    });
  }

  it('spec 4.3: only [{}] is a reset request', () => {
    assert.equal(isResetRequest([{}]), true);
    assert.equal(isResetRequest([]), false);
    assert.equal(isResetRequest([{}, {}]), false);
    assert.equal(isResetRequest([{ manager: 'a' }]), false);
  });
});

describe('merged list order', () => {
  const cases: [string[], string[], string[]][] = [
    [[], ['a', 'b'], ['a', 'b']],
    [['a', 'b'], ['a', 'b'], ['a', 'b']],
    [['a', 'b', 'c'], ['c', 'x', 'a'], ['c', 'x', 'b', 'a']],
    [['a', 'b'], ['x', 'b'], ['a', 'x', 'b']],
    [['a', 'b'], ['x'], ['a', 'b', 'x']],
    [['a', 'b', 'a'], ['a'], ['a', 'b']],
    // Runs of new elements: before the first named slot, and after the named element they follow.
    [['a', 'b'], ['x', 'y', 'a', 'z', 'w'], ['x', 'y', 'a', 'z', 'w', 'b']],
    [['a', 'b', 'c'], ['y', 'c', 'x', 'a'], ['y', 'c', 'x', 'b', 'a']],
  ];
  for (const [live, applied, want] of cases) {
    it(`live [${live}] + applied [${applied}] -> [${want}]`, () => {
      assert.deepEqual(
        mergeOrder(live, applied).map((s) => s.id),
        want,
      );
    });
  }

  it('issue 23: 100,000 elements are ordered in linear time (inserting one by one was quadratic)', () => {
    const live = Array.from({ length: 100_000 }, (_, i) => `l${i}`);
    const applied = Array.from({ length: 100_000 }, (_, i) => (i % 2 === 0 ? `l${i}` : `n${i}`));
    const start = Date.now();
    const ids = mergeOrder(live, applied).map((s) => s.id);
    assert.ok(Date.now() - start < 5000, `took ${Date.now() - start} ms`);
    assert.equal(ids.length, 150_000);
    assert.deepEqual(ids.slice(0, 4), ['l0', 'n1', 'l1', 'l2']);
  });
});
