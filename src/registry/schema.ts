import type { ApiObject } from '../api/types.js';
import { definitionSchema } from './reference-schema.js';
import type { Schema, TableColumn } from './types.js';

/** Small schema builders, for kinds the reference data does not describe (tests, custom types). */
export const str = (description = '', extra: Partial<Schema> = {}): Schema => ({ type: 'string', description, ...extra });
export const bool = (description = ''): Schema => ({ type: 'boolean', description });
export const int32 = (description = ''): Schema => ({ type: 'integer', format: 'int32', description });
export const int64 = (description = ''): Schema => ({ type: 'integer', format: 'int64', description });
export const time = (description = ''): Schema => ({ type: 'string', format: 'date-time', description });
export const bytes = (description = ''): Schema => ({ type: 'string', format: 'byte', description });
export const intOrString = (description = ''): Schema => ({ 'x-kubernetes-int-or-string': true, description });
export const quantity = (description = ''): Schema => ({ 'x-kubernetes-int-or-string': true, description });
export const stringMap = (description = ''): Schema => ({ type: 'object', description, additionalProperties: { type: 'string' } });
export const mapOf = (value: Schema, description = ''): Schema => ({ type: 'object', description, additionalProperties: value });
export const arrayOf = (items: Schema, description = '', extra: Partial<Schema> = {}): Schema => ({
  type: 'array',
  description,
  items,
  ...extra,
});
/** A list merged by `key` in strategic merge patch and server-side apply (a "map list"). */
export const mapList = (items: Schema, key: string, description = ''): Schema => ({
  type: 'array',
  description,
  items,
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': [key],
  'x-kubernetes-patch-merge-key': key,
  'x-kubernetes-patch-strategy': 'merge',
});
export const setList = (items: Schema, description = ''): Schema => ({
  type: 'array',
  description,
  items,
  'x-kubernetes-list-type': 'set',
});
export const obj = (properties: Record<string, Schema>, description = '', required?: string[]): Schema => ({
  type: 'object',
  description,
  properties,
  ...(required && required.length ? { required } : {}),
});
/** Free-form object (raw extension). */
export const anyObject = (description = ''): Schema => ({
  type: 'object',
  description,
  'x-kubernetes-preserve-unknown-fields': true,
});

/** ObjectMeta as the reference defines it (metadata of every stored object). */
export const objectMeta: Schema = definitionSchema('apimachinery.pkg.apis.meta.v1.ObjectMeta');

/** The schema of a whole object: apiVersion, kind, metadata, plus the kind's own top-level fields. */
export function objectSchema(description: string, fields: Record<string, Schema>, required?: string[]): Schema {
  return obj(
    {
      apiVersion: str(),
      kind: str(),
      metadata: objectMeta,
      ...fields,
    },
    description,
    required,
  );
}

/** Reads a nested field as a string for table cells and field selectors (missing -> ''). */
export function pathValue(o: ApiObject, path: string): unknown {
  let cur: unknown = o;
  for (const part of path.split('.')) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

export function column(
  name: string,
  type: TableColumn['type'],
  description: string,
  value: TableColumn['value'],
  priority = 0,
): TableColumn {
  return { name, type, description, priority, value };
}
