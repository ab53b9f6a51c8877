import type { ApiObject } from '../api/types.js';
import type { Schema, TableColumn } from './types.js';

/** Small builders so that type folders read like the API reference. */
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

export const ownerReference = obj(
  {
    apiVersion: str('API version of the referent.'),
    kind: str('Kind of the referent.'),
    name: str('Name of the referent.'),
    uid: str('UID of the referent.'),
    controller: bool('If true, this reference points to the managing controller.'),
    blockOwnerDeletion: bool('If true, the owner cannot be deleted from the key-value store until this reference is removed.'),
  },
  'OwnerReference contains enough information to let you identify an owning object.',
  ['apiVersion', 'kind', 'name', 'uid'],
);

export const managedFieldsEntry = obj(
  {
    apiVersion: str('APIVersion defines the version of this resource that this field set applies to.'),
    fieldsType: str('FieldsType is the discriminator for the different fields format and version. "FieldsV1" is the only one.'),
    fieldsV1: anyObject('FieldsV1 holds the first JSON version format as described in the "FieldsV1" type.'),
    manager: str('Manager is an identifier of the workflow managing these fields.'),
    operation: str('Operation is the type of operation which lead to this ManagedFieldsEntry being created: "Apply" or "Update".'),
    subresource: str('Subresource is the name of the subresource used to update that object.'),
    time: time('Time is the timestamp of when the ManagedFields entry was added.'),
  },
  'ManagedFieldsEntry is a workflow-id, a FieldSet and the group version of the resource that the fieldset applies to.',
);

export const objectMeta = obj(
  {
    name: str('Name must be unique within a namespace. Cannot be updated.'),
    generateName: str('An optional prefix, used by the server, to generate a unique name ONLY IF the Name field has not been provided.'),
    namespace: str('Namespace defines the space within which each name must be unique. Cannot be updated.'),
    uid: str('UID is the unique in time and space value for this object. Populated by the system. Read-only.'),
    resourceVersion: str('An opaque value that represents the internal version of this object. Populated by the system. Read-only.'),
    generation: int64('A sequence number representing a specific generation of the desired state. Populated by the system. Read-only.'),
    creationTimestamp: time('CreationTimestamp is a timestamp representing the server time when this object was created. Read-only.'),
    deletionTimestamp: time('DeletionTimestamp is RFC 3339 date and time at which this resource will be deleted. Read-only.'),
    deletionGracePeriodSeconds: int64('Number of seconds allowed for this object to gracefully terminate before it will be removed.'),
    labels: stringMap('Map of string keys and values that can be used to organize and categorize (scope and select) objects.'),
    annotations: stringMap('Annotations is an unstructured key value map stored with a resource that may be set by external tools.'),
    ownerReferences: mapList(ownerReference, 'uid', 'List of objects depended by this object.'),
    finalizers: setList(str(), 'Must be empty before the object is deleted from the registry.'),
    managedFields: arrayOf(managedFieldsEntry, 'ManagedFields maps workflow-id and version to the set of fields that are managed by that workflow.'),
  },
  'ObjectMeta is metadata that all persisted resources must have.',
);

/** The schema of a whole object: apiVersion, kind, metadata, plus the kind's own top-level fields. */
export function objectSchema(description: string, fields: Record<string, Schema>, required?: string[]): Schema {
  return obj(
    {
      apiVersion: str('APIVersion defines the versioned schema of this representation of an object.'),
      kind: str('Kind is a string value representing the REST resource this object represents.'),
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
