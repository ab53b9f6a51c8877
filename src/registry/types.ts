import type { ApiObject } from '../api/types.js';
import type { GeneratedResource, Schema } from '../api/index.js';

export type { Schema } from '../api/index.js';
import type { FieldError } from '../errors/index.js';
import type { Backend } from '../storage/index.js';

/** The requesting user, structurally authn's UserInfo (the registry does not import authn). */
export interface RequestUser {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** What a create hook may know about the request (CertificateSigningRequest records its requester). */
export interface RequestContext {
  user?: RequestUser;
}

/**
 * A subresource besides status, scale and finalize that the generic store serves (CSR `approval`): how a
 * write through it is taken from the stored object, and the update rules that replace `validateUpdate`.
 */
export interface SubresourceWrite {
  prepare(obj: ApiObject, old: ApiObject): void;
  validateUpdate?(obj: ApiObject, old: ApiObject): FieldError[];
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
  prepareForCreate?(obj: ApiObject, request?: RequestContext): void;
  /** On a create, after mutating admission: recompute what derives from fields plugins may change (a pod's QoS class). */
  afterCreateAdmission?(obj: ApiObject): void;
  /** For the main resource: keep server-owned fields (e.g. `status`) from `old`. */
  prepareForUpdate?(obj: ApiObject, old: ApiObject): void;
  /** For the status subresource: keep everything but `status` (and metadata the server owns) from `old`. */
  prepareForStatusUpdate?(obj: ApiObject, old: ApiObject): void;
  /** For the finalize subresource (namespaces): only the finalizer list changes. */
  prepareForFinalizeUpdate?(obj: ApiObject, old: ApiObject): void;
  /** Further subresources written through the store, by name (list them in the type's `subresources`). */
  subresourceWrites?: Record<string, SubresourceWrite>;
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
  /**
   * What bumps `metadata.generation` on an update (after mutating admission, as the reference's
   * PrepareForUpdate runs after it); default: `spec` changed, where `tracksGeneration` holds.
   */
  generationChanged?(obj: ApiObject, old: ApiObject): boolean;
  /** PUT without `metadata.resourceVersion` is allowed (last write wins). */
  allowUnconditionalUpdate: boolean;
  /** PUT of a missing object creates it. */
  allowCreateOnUpdate: boolean;
}

export interface ScaleRules {
  /** Dotted path of the desired replicas (e.g. `spec.replicas`). */
  specReplicasPath: string;
  /** Dotted path of the observed replicas (e.g. `status.replicas`). */
  statusReplicasPath: string;
  /** The label selector as a string (`a=b,c in (d)`), or undefined when the object has none. */
  selector(obj: ApiObject): string | undefined;
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
  /**
   * Columns after Name; Age/Created is added by the table renderer (unless the type lists its own Age
   * column, which it then places and computes). Empty = the default table.
   */
  tableColumns: TableColumn[];
  /** Field-selector fields besides metadata.name and metadata.namespace, with their values. */
  selectableFields?(obj: ApiObject): Record<string, string>;
  /** Storage identity shared by all views of the resource, e.g. "core/events". */
  storageKey: string;
  /** Conversion between this view and the stored form (omitted = this view is the stored form). */
  toStorage?(obj: ApiObject): ApiObject;
  fromStorage?(obj: ApiObject): ApiObject;
  /**
   * Set only together with `fromStorage`, by the type that made it: true when `fromStorage` would leave this
   * stored value as it is, so its bytes are served without decoding (a custom resource already defaulted).
   */
  readsStoredAsIs?(value: Uint8Array): boolean;
  /**
   * Conversion that needs a call out (a CRD's conversion webhook). When set, reads and writes convert
   * through it (in batches, asynchronously) before `fromStorage` (then only defaulting) runs; the stored
   * bytes are never served as they are.
   */
  asyncConversion?: AsyncConversion;
  /** Verbs listed in discovery (default: every verb the generic store serves). */
  verbs?: string[];
  /**
   * The `scale` subresource (autoscaling/v1 Scale): where the desired and observed replica counts live and
   * the selector string that `status.selector` of the Scale carries.
   */
  scale?: ScaleRules;
  /** The reference's entry, for types made from the generated data (discovery lists its subresources). */
  reference?: GeneratedResource;
  /** Things an object holds outside itself (a Service's cluster IPs and node ports), kept in storage. */
  allocations?: Allocations;
  /**
   * A custom resource (made from a CustomResourceDefinition): no strategic merge patch and no protobuf
   * (spec 4.3, 4.4); added and removed while the server runs.
   */
  custom?: boolean;
  /** Requests warn with this (`Warning` header, audit, metric); built-in types are listed in deprecated-versions.ts. */
  deprecation?: { warning: string; removedRelease: string };
}

/** Conversion between the versions of one resource that cannot be done synchronously. */
export interface AsyncConversion {
  /** The apiVersion objects are written in. */
  readonly storageApiVersion: string;
  /**
   * `objects` (of this resource, each in any of its versions) in `apiVersion`, in the same order; objects
   * already in it are passed through untouched. Failures are StatusErrors (500 naming the converter).
   */
  convert(objects: ApiObject[], apiVersion: string): Promise<ApiObject[]>;
}

/**
 * Reservations an object needs besides its own key, made with the backend's atomic writes so that servers
 * sharing a store never hand out one value twice. The store calls `reserve` after defaulting and
 * validation, before admission and the write, and settles the returned reservation by the write's outcome.
 */
export interface Allocations {
  /**
   * Takes what `obj` needs beyond what `old` (undefined on create) holds, filling values the server picks.
   * Throws a StatusError (422 for a taken or out-of-range value, 500 for a full range). A dry run only checks.
   */
  reserve(backend: Backend, obj: ApiObject, old: ApiObject | undefined, dryRun: boolean): Promise<Reservation>;
  /** The object left storage: gives back everything it held. */
  release(backend: Backend, old: ApiObject): Promise<void>;
}

export interface Reservation {
  /** The write was stored: gives back what the old object held and the new one no longer does. */
  commit(): Promise<void>;
  /** The write failed: gives back what `reserve` took. */
  revert(): Promise<void>;
}
