/**
 * The internal `Schema` of a CRD version: what OpenAPI serves, what pruning keeps, and what server-side
 * apply merges by. An object node that declares nothing and does not preserve unknown fields gets empty
 * `properties`, because the reference prunes every field of such an object.
 */
import type { Schema } from '../../../api/index.js';
import { objectMeta } from '../../schema.js';
import type { Node } from './node.js';

type SchemaType = NonNullable<Schema['type']>;

export function internalSchema(node: Node, root = false): Schema {
  const s: Schema = {};
  if (node.type) s.type = node.type as SchemaType;
  if (node.format) s.format = node.format;
  if (node.description !== undefined) s.description = node.description;
  if (node.properties) {
    s.properties = {};
    for (const [k, child] of node.properties) s.properties[k] = internalSchema(child);
  }
  if (node.additionalProperties !== undefined) s.additionalProperties = node.additionalProperties === true ? true : internalSchema(node.additionalProperties);
  if (node.items) s.items = internalSchema(node.items);
  if (node.required && node.required.length > 0) s.required = [...node.required];
  if (node.enum) s.enum = node.enum.filter((e): e is string | number => typeof e === 'string' || typeof e === 'number');
  if (node.hasDefault) s.default = structuredClone(node.default);
  if (node.intOrString) s['x-kubernetes-int-or-string'] = true;
  if (node.preserveUnknown) s['x-kubernetes-preserve-unknown-fields'] = true;
  if (node.embedded) s['x-kubernetes-embedded-resource'] = true;
  if (node.listType) s['x-kubernetes-list-type'] = node.listType;
  if (node.listMapKeys) s['x-kubernetes-list-map-keys'] = [...node.listMapKeys];
  if (node.mapType) s['x-kubernetes-map-type'] = node.mapType;
  if (root || node.embedded) addResourceFields(s, node, root);
  if (s.type === 'object' && !s.properties && s.additionalProperties === undefined && !node.preserveUnknown) s.properties = {};
  return s;
}

/** apiVersion, kind and the standard metadata, implicit in every resource (root or embedded). */
function addResourceFields(s: Schema, node: Node, root: boolean): void {
  // An embedded resource that only preserves unknown fields stays open: nothing is pruned in it.
  if (!root && !node.properties) return;
  const own = s.properties ?? {};
  const meta = own.metadata;
  s.properties = {
    ...own,
    apiVersion: own.apiVersion ?? { type: 'string' },
    kind: own.kind ?? { type: 'string' },
    // Restrictions on name/generateName validate values; the served shape is always ObjectMeta's.
    metadata: meta && meta.description ? { ...objectMeta, description: meta.description } : objectMeta,
  };
}
