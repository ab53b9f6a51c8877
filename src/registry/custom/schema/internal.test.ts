import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ApiObject } from '../../../api/types.js';
import { findUnknownFields, pruneUnknownFields } from '../../../encoding/unknown-fields.js';
import { objectMeta } from '../../schema.js';
import { databaseObject, databaseSchema } from './fixture.js';
import { compileCustomSchema } from './index.js';

const P = 'spec.versions[0].schema.openAPIV3Schema';

test('reference behaviour: a controller-gen style schema compiles, validates, defaults and checks transition rules', () => {
  const { schema, errors } = compileCustomSchema(databaseSchema, P);
  assert.deepEqual(errors, []);
  const o = databaseObject() as unknown as ApiObject;
  schema!.applyDefaults(o);
  const spec = o.spec as Record<string, any>;
  assert.equal(spec.backup.retention, '168h');
  assert.equal(spec.users[0].passwordSecretRef.key, 'password');
  assert.deepEqual(schema!.validate(o), []);
  const bad = databaseObject() as any;
  bad.spec.engine = 'mysql';
  bad.spec.version = '8.0';
  bad.spec.replicas = 5;
  bad.spec.users.push({ name: 'app' });
  bad.status.conditions[0].status = 'Maybe';
  const found = schema!.validate(bad, o).map((e) => `${e.type} ${e.field}`);
  assert.deepEqual(found, [
    'FieldValueDuplicate spec.users[2]',
    'FieldValueNotSupported status.conditions[0].status',
    'FieldValueInvalid spec.replicas',
    'FieldValueInvalid spec',
  ]);
});

test('reference behaviour: the internal schema carries types, extensions, user descriptions only, and implicit resource fields', () => {
  const s = compileCustomSchema(databaseSchema, P).schema!.schema;
  assert.equal(s.properties!.metadata, objectMeta);
  assert.equal(s.description, 'Database is the Schema for the databases API');
  const spec = s.properties!.spec!;
  assert.deepEqual(spec.required, ['engine', 'version']);
  assert.equal(spec.properties!.replicas!.default, 1);
  assert.equal(spec.properties!.replicas!.description, undefined);
  assert.deepEqual(spec.properties!.engine!.enum, ['postgres', 'mysql']);
  assert.equal(spec.properties!.storage!.properties!.size!['x-kubernetes-int-or-string'], true);
  assert.equal(spec.properties!.users!['x-kubernetes-list-type'], 'map');
  assert.deepEqual(spec.properties!.users!['x-kubernetes-list-map-keys'], ['name']);
  assert.equal(spec.properties!.users!.items!.properties!.passwordSecretRef!['x-kubernetes-map-type'], 'atomic');
  assert.equal(spec.properties!.podTemplate!['x-kubernetes-preserve-unknown-fields'], true);
  assert.deepEqual((spec.properties!.parameters!.additionalProperties as { type: string }).type, 'string');
});

test('reference behaviour: pruning through the internal schema drops exactly the undeclared fields', () => {
  const r = compileCustomSchema(
    {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            a: { type: 'string' },
            empty: { type: 'object' },
            open: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            e: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'string' } } },
          },
        },
      },
    },
    P,
  );
  const s = r.schema!.schema;
  const o = { apiVersion: 'v', kind: 'K', metadata: { name: 'n', bogus: 1 }, spec: { a: 'x', b: 'y', empty: { z: 1 }, open: { q: { r: 1 } }, e: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: 's', other: 1 } }, top: 1 };
  assert.deepEqual(findUnknownFields(o, s), ['.metadata.bogus', '.spec.b', '.spec.empty.z', '.spec.e.other', '.top']);
  assert.deepEqual(pruneUnknownFields(o, s), { apiVersion: 'v', kind: 'K', metadata: { name: 'n' }, spec: { a: 'x', empty: {}, open: { q: { r: 1 } }, e: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: 's' } } });
});

test('performance: validate + defaults of a realistic object is cheap (micro-benchmark)', () => {
  const { schema } = compileCustomSchema(databaseSchema, P);
  const old = databaseObject() as unknown as ApiObject;
  const n = 5000;
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    const o = databaseObject() as unknown as ApiObject;
    schema!.applyDefaults(o);
    schema!.validate(o, old);
  }
  const opsPerSec = Math.round(n / ((performance.now() - start) / 1000));
  console.log(`custom schema validate+defaults: ${opsPerSec} ops/s`);
  assert.ok(opsPerSec > 2000, `${opsPerSec} ops/s`);
});
