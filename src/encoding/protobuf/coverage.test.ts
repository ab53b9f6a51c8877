import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Schema } from '../../api/index.js';
import { apiVersionOf } from '../../api/types.js';
import { builtinTypes } from '../../registry/resources/index.js';
import { descriptorFor, DESCRIPTORS } from './descriptors.js';
import { POINTER_FIELDS } from './pointer-fields.js';
import { jsonFields } from './schema-sample.js';

/** Walks a served schema beside its descriptor and lists schema fields without a protobuf field. */
function dropped(schema: Schema, message: string, path: string, out: string[], onPath = new Set<object>()): string[] {
  if (!schema.properties || onPath.has(schema.properties)) return out;
  onPath.add(schema.properties);
  const fields = jsonFields(message);
  for (const [name, sub] of Object.entries(schema.properties)) {
    if (path === '' && (name === 'apiVersion' || name === 'kind')) continue; // carried by the envelope
    const at = path ? `${path}.${name}` : name;
    const fd = fields[name];
    if (!fd) {
      out.push(at);
      continue;
    }
    const inner = sub.type === 'array' ? sub.items : typeof sub.additionalProperties === 'object' ? sub.additionalProperties : sub;
    const next = fd.type === 'map' ? fd.mapValue?.message : fd.type === 'message' ? fd.message : undefined;
    if (next && inner) dropped(inner, next, at, out, onPath);
  }
  onPath.delete(schema.properties);
  return out;
}

describe('protobuf descriptors cover the served schemas (spec 4.4)', () => {
  it('spec 4.4: every field of a served schema has a protobuf field, except type fields of embedded objects', () => {
    const out: string[] = [];
    for (const t of builtinTypes(() => true)) {
      const apiVersion = apiVersionOf(t.group, t.version);
      const message = descriptorFor(apiVersion, t.kind);
      if (message) out.push(...dropped(t.schema, message, '', []).map((p) => `${apiVersion}/${t.kind} ${p}`));
    }
    // A claim template embedded in a StatefulSet keeps its type fields in JSON only; the reference drops them.
    assert.deepEqual(out, ['apps/v1/StatefulSet spec.volumeClaimTemplates.apiVersion', 'apps/v1/StatefulSet spec.volumeClaimTemplates.kind']);
  });

  it('spec 4.4: descriptors reference only known messages and use each field number once', () => {
    for (const [name, d] of Object.entries(DESCRIPTORS)) {
      const numbers = Object.values(d).map((fd) => fd.no);
      assert.equal(new Set(numbers).size, numbers.length, `duplicate field number in ${name}`);
      for (const [json, fd] of Object.entries(d)) {
        const target = fd.type === 'map' ? fd.mapValue?.message : fd.message;
        const needsMessage = ['message', 'union'].includes(fd.type) || ['message', 'union'].includes(fd.mapValue?.type ?? '');
        if (needsMessage || fd.inline) assert.ok(target && DESCRIPTORS[target], `${name}.${json} -> ${target}`);
      }
    }
  });

  it('reference behaviour: every pointer field names a scalar field of a generated message', () => {
    const scalars = new Set(['string', 'int32', 'int64', 'bool', 'intorstring']);
    const unknown = [...POINTER_FIELDS].filter((key) => {
      const dot = key.lastIndexOf('.');
      const fd = DESCRIPTORS[key.slice(0, dot)]?.[key.slice(dot + 1)];
      return !fd || !scalars.has(fd.type) || fd.keep !== true;
    });
    assert.deepEqual(unknown, []);
  });
});
