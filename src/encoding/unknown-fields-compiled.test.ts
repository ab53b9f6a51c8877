/**
 * The unknown-field walk runs over a compiled form of the schema (unknown-fields.ts). These tables hold it
 * to the walk straight over the schema, on objects made from every built-in type's schema with unknown
 * members sown at each level, and on the schema shapes the compiled form has to get right.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { builtinTypes } from '../registry/resources/index.js';
import { findUnknownFields, findUnknownFieldsUncompiled, type FieldSchema } from './unknown-fields.js';

type Obj = Record<string, unknown>;

/**
 * An object shaped by `s` down to `depth`: each declared member, two map entries where the schema has
 * map values, one unknown member per object, lists of two elements, and a scalar where the schema says
 * nothing more. Members are visited in a fixed order, so the object is the same on every run.
 */
function sample(s: FieldSchema | undefined, depth: number, seed: number): unknown {
  if (!s || depth === 0) return `v${seed}`;
  if (s.items) return [sample(s.items, depth - 1, seed + 1), sample(s.items, depth - 1, seed + 2)];
  const out: Obj = {};
  if (s.properties) for (const [k, cs] of Object.entries(s.properties)) out[k] = sample(cs, depth - 1, seed + k.length);
  if (typeof s.additionalProperties === 'object') {
    out[`key${seed}`] = sample(s.additionalProperties, depth - 1, seed + 3);
    out[`other${seed}`] = sample(s.additionalProperties, depth - 1, seed + 4);
  }
  out[`unknown${seed}`] = { below: seed };
  return out;
}

describe('spec 4.2: the compiled unknown-field walk gives the plain walk\'s answers', () => {
  for (const t of builtinTypes()) {
    it(`spec 4.2: ${t.group || 'core'}/${t.version} ${t.plural}: objects with unknown members at every level`, () => {
      for (const depth of [2, 4, 7]) {
        const obj = sample(t.schema, depth, depth);
        const want = findUnknownFieldsUncompiled(obj, t.schema);
        assert.ok(want.length > 0, 'the sample has unknown members');
        assert.deepEqual(findUnknownFields(obj, t.schema), want);
        // Twice: the second walk uses the schema compiled by the first.
        assert.deepEqual(findUnknownFields(obj, t.schema), want);
      }
    });
  }

  const recursive: FieldSchema = { type: 'object', properties: { name: { type: 'string' } } };
  recursive.properties!.child = recursive;
  recursive.properties!.children = { type: 'array', items: recursive };
  const shapes: { title: string; schema: FieldSchema; obj: unknown }[] = [
    {
      title: 'a schema that contains itself',
      schema: recursive,
      obj: { name: 'a', x: 1, child: { name: 'b', child: { y: 2 } }, children: [{ z: 3 }, { child: { w: 4 } }] },
    },
    {
      title: 'a declared member whose schema is missing counts as undeclared',
      schema: { type: 'object', properties: { a: undefined as unknown as FieldSchema, b: {} }, additionalProperties: false },
      obj: { a: 1, b: 2 },
    },
    {
      title: 'a member named like an Object.prototype property',
      schema: { type: 'object', properties: { toString: { type: 'object', properties: { x: {} } } } },
      obj: JSON.parse('{"toString":{"x":1,"y":2},"valueOf":1,"__proto__":{"q":1}}'),
    },
    {
      title: 'a declared "__proto__" member',
      schema: JSON.parse('{"type":"object","properties":{"__proto__":{"type":"object","properties":{"a":{}}}}}') as FieldSchema,
      obj: JSON.parse('{"__proto__":{"a":1,"b":2},"c":3}'),
    },
    {
      title: 'int-or-string below a list and a map',
      schema: { type: 'object', properties: { l: { type: 'array', items: { 'x-kubernetes-int-or-string': true } }, m: { type: 'object', additionalProperties: { 'x-kubernetes-int-or-string': true } } } },
      obj: { l: [{ a: 1 }, 'x'], m: { k: { b: 2 } }, n: 1 },
    },
    {
      title: 'a list where the schema has no items, and an object where it has a list',
      schema: { type: 'object', properties: { free: { type: 'array' }, list: { type: 'array', items: { type: 'object', properties: {} } } } },
      obj: { free: [{ a: 1 }], list: { notAList: 1 } },
    },
    {
      title: 'preserve-unknown-fields beside declared members',
      schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { spec: { type: 'object', properties: { a: {} } } } },
      obj: { free: { deep: 1 }, spec: { a: 1, b: 2 } },
    },
  ];
  for (const c of shapes) {
    it(`spec 4.2: ${c.title}`, () => {
      const want = findUnknownFieldsUncompiled(c.obj, c.schema);
      assert.deepEqual(findUnknownFields(c.obj, c.schema), want);
      assert.deepEqual(findUnknownFields(c.obj, c.schema), want);
    });
  }

  it('spec 4.2: the expected answers of the shape table, spelled out for two of its rows', () => {
    assert.deepEqual(findUnknownFields(shapes[0]!.obj, recursive), ['.x', '.child.child.y', '.children[0].z', '.children[1].child.w']);
    assert.deepEqual(findUnknownFields(shapes[2]!.obj, shapes[2]!.schema), ['.toString.y', '.valueOf', '.__proto__']);
  });
});
