/**
 * Generated coverage of the protobuf form (spec 4.4): every apiVersion/kind with a descriptor gets a sample
 * built from its reference schema (schema-sample.ts) that must survive JSON -> protobuf -> JSON, and every
 * kind the server serves must have a descriptor. A new kind in the reference data needs no new test code.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Schema } from '../../api/index.js';
import { GROUP_SUFFIX } from '../../api/naming.js';
import { apiVersionOf, type ApiObject } from '../../api/types.js';
import { isStatusError } from '../../errors/index.js';
import { definitionSchema } from '../../registry/reference-schema.js';
import { builtinTypes } from '../../registry/resources/index.js';
import { ProtoCodec } from './codec.js';
import { DESCRIPTORS } from './descriptors.js';
import { decodeProtobuf, encodeProtobuf, protobufKinds } from './index.js';
import { jsonFields, sampleMessage, sampleValue } from './schema-sample.js';

/**
 * JSON fields the protobuf form cannot carry, by `<message>.<field>`, with why (and, where the schema's own
 * sample would not show the loss, a `sample` that does). They are left out of the samples; a test below fails
 * when one of them round-trips after all, or no schema has it any more.
 */
const EMBEDDED_TYPE_META = { reason: 'type fields of an embedded object have no field number' };
const NOT_CARRIED: Record<string, { reason: string; sample?: unknown }> = {
  // Type fields of objects embedded in others (StatefulSet spec.volumeClaimTemplates, APIGroupList groups,
  // Eviction deleteOptions) are dropped by the reference too. At the root the envelope carries them.
  'api.core.v1.PersistentVolumeClaim.apiVersion': EMBEDDED_TYPE_META,
  'api.core.v1.PersistentVolumeClaim.kind': EMBEDDED_TYPE_META,
  'apimachinery.pkg.apis.meta.v1.APIGroup.apiVersion': EMBEDDED_TYPE_META,
  'apimachinery.pkg.apis.meta.v1.APIGroup.kind': EMBEDDED_TYPE_META,
  'apimachinery.pkg.apis.meta.v1.DeleteOptions.apiVersion': EMBEDDED_TYPE_META,
  'apimachinery.pkg.apis.meta.v1.DeleteOptions.kind': EMBEDDED_TYPE_META,
};

const APIREGISTRATION_GROUP = `apiregistration.${GROUP_SUFFIX}`;

/** Kinds served by builtinTypes() that have no protobuf form in the reference data. */
const NO_PROTOBUF: Record<string, string> = {
  // kube-aggregator's types have no .proto under reference/proto, so no message exists for them.
  [`${APIREGISTRATION_GROUP}/v1/APIService`]: 'no .proto in reference/ (kube-aggregator)',
  [`${APIREGISTRATION_GROUP}/v1/APIServiceList`]: 'no .proto in reference/ (kube-aggregator)',
};

type Obj = Record<string, unknown>;

const isListMessage = (descriptor: string, kind: string) => kind.endsWith('List') && jsonFields(descriptor).items?.type === 'message';

/** A sample of one apiVersion/kind as a client would send it: type fields set, list items typed by the list. */
function sampleOf(apiVersion: string, kind: string, descriptor: string, onOmit: (key: string, s: Schema) => void): ApiObject {
  const omit = new Set(Object.keys(NOT_CARRIED));
  const obj: Obj = { ...sampleMessage(definitionSchema(descriptor), descriptor, { omit, onOmit }), apiVersion, kind };
  if (isListMessage(descriptor, kind)) {
    assert.ok(Array.isArray(obj.items) && obj.items.length === 1, `${kind}: a list sample has one item`);
    for (const item of obj.items as Obj[]) Object.assign(item, { apiVersion, kind: kind.slice(0, -'List'.length) });
  }
  return obj as ApiObject;
}

/** Counts the fields (at any depth) of a sample, to show the walk reached into it. */
function leafCount(v: unknown): number {
  if (Array.isArray(v)) return v.reduce((n: number, x) => n + leafCount(x), 0);
  if (typeof v === 'object' && v !== null) return Object.values(v).reduce((n: number, x) => n + leafCount(x), 0);
  return 1;
}

describe('protobuf round trip of a schema-generated sample of every kind (spec 4.4)', () => {
  const omitted = new Map<string, Schema>();
  const cases = protobufKinds().map((k) => ({ ...k, obj: sampleOf(k.apiVersion, k.kind, k.descriptor, (key, s) => omitted.set(key, s)) }));

  it('spec 4.4: the generated table holds over 150 kinds, Pod, PodList, Status, Deployment and CronJob among them', () => {
    assert.ok(cases.length > 150, `only ${cases.length} kinds`);
    const keys = new Set(cases.map((c) => `${c.apiVersion}/${c.kind}`));
    for (const k of ['v1/Pod', 'v1/PodList', 'v1/Status', 'apps/v1/Deployment', 'batch/v1/CronJob']) assert.ok(keys.has(k), k);
  });

  for (const c of cases) {
    it(`spec 4.4: ${c.apiVersion}/${c.kind} (${c.descriptor}) survives JSON -> protobuf -> JSON unchanged`, () => {
      assert.ok(leafCount(c.obj) > 2, 'the sample has fields beyond apiVersion and kind');
      assert.deepStrictEqual(decodeProtobuf(encodeProtobuf(c.obj)), c.obj);
    });
  }

  it('spec 4.4: corrupted or truncated encodings of every sample are a 400 or decode, never a crash', () => {
    let seed = 7;
    const rand = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    for (const c of cases) {
      const valid = encodeProtobuf(c.obj);
      for (let i = 0; i < 12; i++) {
        const buf = Buffer.from(valid.subarray(0, i % 3 === 0 ? 4 + rand(valid.length - 4) : valid.length));
        for (let j = 0; j < 3; j++) buf[4 + rand(buf.length - 4)] = rand(256);
        try {
          decodeProtobuf(buf);
        } catch (e) {
          assert.ok(isStatusError(e) && e.code === 400, `${c.apiVersion}/${c.kind}: unexpected ${String(e)}`);
        }
      }
    }
  });

  it('spec 4.4: every field exempted from the round trip is met in some schema and still cannot round-trip', () => {
    const codec = new ProtoCodec(DESCRIPTORS);
    for (const [key, { reason, sample }] of Object.entries(NOT_CARRIED)) {
      const schema = omitted.get(key);
      assert.ok(schema, `${key} (${reason}) is in no sampled schema any more: remove the exception`);
      const [message, field] = [key.slice(0, key.lastIndexOf('.')), key.slice(key.lastIndexOf('.') + 1)];
      assert.ok(DESCRIPTORS[message], `${key}: ${message} is a message`);
      const obj = { [field]: sample ?? sampleValue(schema, jsonFields(message)[field]) };
      assert.notDeepStrictEqual(codec.decode(message, codec.encode(message, obj)), obj, `${key} round-trips now: remove the exception`);
    }
  });
});

describe('every served kind has a protobuf form (spec 4.4)', () => {
  const served = builtinTypes(() => true).flatMap((t) => {
    const apiVersion = apiVersionOf(t.group, t.version);
    return [`${apiVersion}/${t.kind}`, `${apiVersion}/${t.listKind}`];
  });
  const withDescriptor = new Set(protobufKinds().map((k) => `${k.apiVersion}/${k.kind}`));

  it('spec 4.4: every kind of builtinTypes() in any group version, its list kind and v1/Status have a descriptor', () => {
    const missing = [...served, 'v1/Status'].filter((k) => !withDescriptor.has(k) && !Object.hasOwn(NO_PROTOBUF, k));
    assert.deepEqual(missing, []);
  });

  it('reference behaviour: the kinds exempted above are served and have no descriptor in the reference data', () => {
    for (const [k, reason] of Object.entries(NO_PROTOBUF)) {
      assert.ok(served.includes(k), `${k} (${reason}) is not served: remove the exception`);
      assert.ok(!withDescriptor.has(k), `${k} has a descriptor now: remove the exception`);
    }
  });
});
