import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { configmaps } from '../registry/resources/configmaps/index.js';
import { namespaces } from '../registry/resources/namespaces/index.js';
import { pods } from '../registry/resources/pods/index.js';
import type { Schema } from '../registry/types.js';
import { findUnknownFields, pruneUnknownFields, type FieldSchema } from './unknown-fields.js';

type Obj = Record<string, unknown>;
const pod = (container: Obj = {}, extra: Obj = {}): Obj => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', labels: { 'any-key': 'x' }, annotations: { 'a.b/c': 'y' } },
  spec: { containers: [{ name: 'app', image: 'nginx', ...container }] },
  ...extra,
});

const cases: { title: string; schema: Schema; obj: unknown; want: string[] }[] = [
  { title: 'a valid pod has none', schema: pods.schema, obj: pod(), want: [] },
  {
    title: 'misspelled container field, with the array index',
    schema: pods.schema,
    obj: pod({ imagePullPolicyy: 'Always' }),
    want: ['.spec.containers[0].imagePullPolicyy'],
  },
  {
    title: 'several levels, document order',
    schema: pods.schema,
    obj: { ...pod({ foo: 1 }), metadata: { name: 'web', unknownMeta: 'x' }, bogus: true },
    want: ['.metadata.unknownMeta', '.spec.containers[0].foo', '.bogus'],
  },
  {
    title: 'children of an unknown field are not listed separately',
    schema: pods.schema,
    obj: pod({}, { extra: { a: { b: 1 } } }),
    want: ['.extra'],
  },
  {
    title: 'map keys (labels, annotations, data) are free',
    schema: configmaps.schema,
    obj: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', labels: { whatever: 'x' } }, data: { 'any.key': 'v' }, binaryData: { k: 'AA==' } },
    want: [],
  },
  {
    title: 'int-or-string and quantities are leaves; maps of quantities are free',
    schema: pods.schema,
    obj: pod({ resources: { limits: { cpu: '1', 'example.com/gpu': 2 } }, ports: [{ containerPort: 80 }], livenessProbe: { httpGet: { port: 'http', path: '/' } } }),
    want: [],
  },
  {
    title: 'preserve-unknown-fields objects are open (managedFields fieldsV1)',
    schema: pods.schema,
    obj: { ...pod(), metadata: { name: 'web', managedFields: [{ manager: 'm', fieldsV1: { 'f:spec': { 'f:anything': {} } }, nope: 1 }] } },
    want: ['.metadata.managedFields[0].nope'],
  },
  {
    title: 'namespace spec and status',
    schema: namespaces.schema,
    obj: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n' }, spec: { finalizers: ['orch'], extra: 1 }, status: { phase: 'Active' } },
    want: ['.spec.extra'],
  },
  { title: 'null values and type mismatches are left to validation', schema: pods.schema, obj: { ...pod(), spec: null, status: 'x', metadata: [] }, want: [] },
];

const custom: { title: string; schema: FieldSchema; obj: unknown; want: string[] }[] = [
  { title: 'additionalProperties: false closes an object', schema: { type: 'object', additionalProperties: false }, obj: { a: 1 }, want: ['.a'] },
  { title: 'additionalProperties: true opens it', schema: { type: 'object', properties: { a: {} }, additionalProperties: true }, obj: { a: 1, b: 2 }, want: [] },
  {
    title: 'map values are checked against additionalProperties',
    schema: { type: 'object', additionalProperties: { type: 'object', properties: { x: {} } } },
    obj: { k1: { x: 1 }, k2: { y: 1 } },
    want: ['.k2.y'],
  },
  {
    title: 'preserve-unknown-fields with properties still checks the known ones',
    schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { spec: { type: 'object', properties: { a: {} } } } },
    obj: { free: 1, spec: { a: 1, b: 2 } },
    want: ['.spec.b'],
  },
  { title: 'an object schema without properties describes no shape', schema: { type: 'object' }, obj: { a: { b: 1 } }, want: [] },
  { title: 'inherited names are not schema properties', schema: { type: 'object', properties: {} }, obj: JSON.parse('{"constructor":1,"__proto__":2}'), want: ['.constructor', '.__proto__'] },
];

describe('spec 4.2 / spec 7: findUnknownFields', () => {
  for (const c of [...cases, ...custom]) {
    it(`spec 4.2: ${c.title}`, () => assert.deepEqual(findUnknownFields(c.obj, c.schema), c.want));
  }
});

describe('spec 4.2 / spec 7: pruneUnknownFields (fieldValidation Ignore and Warn drop them)', () => {
  for (const c of [...cases, ...custom]) {
    it(`spec 7: ${c.title}: nothing unknown is left`, () => {
      const pruned = pruneUnknownFields(c.obj, c.schema);
      assert.deepEqual(findUnknownFields(pruned, c.schema), []);
    });
  }

  it('spec 7: known fields are kept and the input is not changed', () => {
    const input = pod({ imagePullPolicyy: 'Always', imagePullPolicy: 'Never' }, { bogus: 1 });
    const before = structuredClone(input);
    assert.deepEqual(pruneUnknownFields(input, pods.schema), pod({ imagePullPolicy: 'Never' }));
    assert.deepEqual(input, before);
  });

  it('spec 7: a "__proto__" map key is copied as a key, not as a prototype', () => {
    const schema: FieldSchema = { type: 'object', properties: { data: { type: 'object', additionalProperties: { type: 'string' } } } };
    const input = JSON.parse('{"data":{"__proto__":"x","a":"y"},"z":1}') as Obj;
    const out = pruneUnknownFields(input, schema) as Obj;
    const data = out.data as Obj;
    assert.deepEqual(Object.keys(data), ['__proto__', 'a']);
    assert.equal(Object.getPrototypeOf(data), Object.prototype);
    assert.ok(!('z' in out));
  });
});
