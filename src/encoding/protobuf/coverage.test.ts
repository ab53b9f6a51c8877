import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { apiVersionOf } from '../../api/types.js';
import { builtinTypes } from '../../registry/resources/index.js';
import type { Schema } from '../../registry/types.js';
import { descriptorFor, DESCRIPTORS } from './descriptors/index.js';
import type { FieldDescriptor } from './wire.js';

/** A message's fields as they appear in JSON: embedded (inline) messages contribute their own fields. */
function jsonFields(name: string): Record<string, FieldDescriptor> {
  const out: Record<string, FieldDescriptor> = {};
  for (const [json, fd] of Object.entries(DESCRIPTORS[name] ?? {})) {
    if (fd.inline) Object.assign(out, jsonFields(fd.message!));
    else out[json] = fd;
  }
  return out;
}

/** Walks a type's OpenAPI schema beside its descriptor: schema fields without a protobuf field, and free-form ones. */
function compare(schema: Schema, message: string, path: string, dropped: string[], freeForm: string[]): void {
  if (!schema.properties) {
    if (schema['x-kubernetes-preserve-unknown-fields']) freeForm.push(path);
    return;
  }
  const fields = jsonFields(message);
  for (const [name, sub] of Object.entries(schema.properties)) {
    if (path === '' && (name === 'apiVersion' || name === 'kind')) continue; // carried by the envelope
    const at = path ? `${path}.${name}` : name;
    const fd = fields[name];
    if (!fd) {
      dropped.push(at);
      continue;
    }
    const inner = sub.type === 'array' ? sub.items : typeof sub.additionalProperties === 'object' ? sub.additionalProperties : sub;
    const next = fd.type === 'map' ? fd.mapValue?.message : fd.type === 'message' ? fd.message : undefined;
    if (next && inner) compare(inner, next, at, dropped, freeForm);
  }
}

describe('protobuf descriptors cover the served schemas (spec 4.4)', () => {
  const dropped: string[] = [];
  const freeForm: string[] = [];
  for (const t of builtinTypes()) {
    const apiVersion = apiVersionOf(t.group, t.version);
    const before = { d: dropped.length, f: freeForm.length };
    compare(t.schema, descriptorFor(apiVersion, t.kind)!, '', dropped, freeForm);
    for (let i = before.d; i < dropped.length; i++) dropped[i] = `${apiVersion}/${t.kind} ${dropped[i]}`;
    for (let i = before.f; i < freeForm.length; i++) freeForm[i] = `${apiVersion}/${t.kind} ${freeForm[i]}`;
  }

  it('spec 4.4: every schema field has a protobuf field except the documented ones', () => {
    // The reference's VolumeSource has no `local` (it exists only for PersistentVolumes), so it has no number.
    assert.deepEqual(dropped, ['v1/Pod spec.volumes.local']);
  });

  it('spec 4.4: fields the schema leaves free-form are typed messages in protobuf', () => {
    // E.g. affinity or csi volumes: the reference encodes them field by field, so each must resolve to a message.
    assert.ok(freeForm.length > 0);
    for (const entry of freeForm) {
      const [kind, path] = entry.split(' ') as [string, string];
      const [apiVersion, k] = [kind.slice(0, kind.lastIndexOf('/')), kind.slice(kind.lastIndexOf('/') + 1)];
      let message = descriptorFor(apiVersion, k)!;
      for (const part of path.split('.')) {
        const fd = jsonFields(message)[part];
        assert.ok(fd && (fd.type === 'message' || fd.mapValue?.message), `${entry}: ${part} is not a message`);
        message = fd.message ?? fd.mapValue!.message!;
      }
    }
  });
});
