import type { ApiObject } from '../api/types.js';
import type { FieldError } from '../errors/index.js';

/**
 * A schema in OpenAPI v3 form (a JSON Schema subset). It drives OpenAPI documents (`kubectl explain`),
 * unknown-field detection, and later server-side apply (list types and map keys via the x- extensions).
 */
export interface Schema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  description?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  required?: string[];
  enum?: (string | number)[];
  default?: unknown;
  /** Any type (int-or-string, raw extensions). */
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-patch-merge-key'?: string;
  'x-kubernetes-patch-strategy'?: string;
}

/** One column of a type's table form (spec 2.6); `value` computes the cell from the object. */
export interface TableColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format?: string;
  description: string;
  /** 0 = shown by default; 1 = only with `-o wide`. */
  priority: number;
  value(obj: ApiObject): string | number | boolean | null;
}

export type NameRule = 'subdomain' | 'label' | 'path-segment';

/**
 * Per-type behaviour. The GenericStore owns the order of steps and calls these hooks:
 * create:  defaulting (`prepareForCreate`) -> metadata validation -> `validate` -> store
 * update:  `prepareForUpdate(new, old)` -> metadata validation -> `validate` + `validateUpdate` -> store
 * All hooks work on plain objects in the type's own version and may mutate `obj` in place.
 */
export interface Strategy {
  nameRule: NameRule;
  /** Fill defaults and reset server-owned fields (e.g. `status` for types with a status subresource). */
  prepareForCreate?(obj: ApiObject): void;
  /** For the main resource: keep server-owned fields (e.g. `status`) from `old`. */
  prepareForUpdate?(obj: ApiObject, old: ApiObject): void;
  /** For the status subresource: keep everything but `status` (and metadata the server owns) from `old`. */
  prepareForStatusUpdate?(obj: ApiObject, old: ApiObject): void;
  /** For the finalize subresource (namespaces): only the finalizer list changes. */
  prepareForFinalizeUpdate?(obj: ApiObject, old: ApiObject): void;
  /** Field errors of the whole object (metadata is validated by the store). Paths start at the root. */
  validate(obj: ApiObject): FieldError[];
  /** Extra rules on update (immutable fields). */
  validateUpdate?(obj: ApiObject, old: ApiObject): FieldError[];
  /** Finalizers besides metadata.finalizers that keep a deleted object stored (namespaces: spec.finalizers). */
  pendingFinalizers?(obj: ApiObject): string[];
  /** Called when the first delete marks the object terminating (namespaces: status.phase = Terminating). */
  prepareForTerminating?(obj: ApiObject): void;
  /** Non-fatal messages returned as `Warning` headers. */
  warnings?(obj: ApiObject, old?: ApiObject): string[];
  /** Whether `metadata.generation` tracks changes of `spec` (default true when the type has a spec). */
  tracksGeneration?: boolean;
  /** PUT without `metadata.resourceVersion` is allowed (last write wins). */
  allowUnconditionalUpdate: boolean;
  /** PUT of a missing object creates it. */
  allowCreateOnUpdate: boolean;
}

/**
 * How one version of a resource is served. Several ResourceTypes may share one storage (`storageKey`),
 * e.g. core/v1 Event and events.orch.io/v1 Event; each converts to and from the stored form.
 */
export interface ResourceType {
  group: string;
  version: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  categories?: string[];
  namespaced: boolean;
  /** Subresources served by the generic store ('status'); others are registered by their own handlers. */
  subresources: string[];
  /** Schema of the whole object (apiVersion, kind, metadata included). */
  schema: Schema;
  strategy: Strategy;
  /** Columns after Name; Age/Created is added by the table renderer. Empty = the default table. */
  tableColumns: TableColumn[];
  /** Field-selector fields besides metadata.name and metadata.namespace, with their values. */
  selectableFields?(obj: ApiObject): Record<string, string>;
  /** Storage identity shared by all views of the resource, e.g. "core/events". */
  storageKey: string;
  /** Conversion between this view and the stored form (omitted = this view is the stored form). */
  toStorage?(obj: ApiObject): ApiObject;
  fromStorage?(obj: ApiObject): ApiObject;
  /** Verbs listed in discovery (default: every verb the generic store serves). */
  verbs?: string[];
}
