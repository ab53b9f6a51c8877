import type { ApiObject } from '../api/types.js';
import type { Target } from '../errors/index.js';
import type { Backend } from '../storage/index.js';
import type { Clock } from '../util/clock.js';
import type { RequestUser, ResourceType } from './types.js';

export interface WriteOptions {
  dryRun?: boolean;
  /** The field manager of a non-apply write; its changes are recorded as an `Update` entry (spec 2.4). */
  fieldManager?: string;
  /**
   * Field validation of the decoded (or patched) object before anything else: may prune unknown fields,
   * record warnings, or throw (fieldValidation=Strict, spec 4.2).
   */
  checkFields?(obj: ApiObject): ApiObject;
  /** Admission of this write (spec 1.6); internal writers (controllers, bootstrap) pass none. */
  admission?: StoreAdmission;
  /** The status subresource: only `status` changes (spec 1.4). */
  subresource?: string;
  /**
   * The body was decoded for this write alone and the caller does not use it afterwards: the store may
   * change it in place instead of working on a copy.
   */
  bodyOwned?: boolean;
  /** The requesting user, for create hooks that record it (CertificateSigningRequest spec.username). */
  user?: RequestUser;
}

/** A write the store makes on behalf of server-side apply, whose managedFields apply already computed. */
export type StoreWriteOptions = WriteOptions & { applied?: boolean };

export interface DeleteOptions extends WriteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: string;
  /** Deprecated form of propagationPolicy: true = Orphan, false = Background. */
  orphanDependents?: boolean;
}

/**
 * Admission as the store drives it: the mutating stage after defaulting, the validating stage after the
 * type's validation, both before storage. Each answers a promise only when a plugin left work pending.
 * (Implemented by admission/write.ts; declared here so the registry does not depend on admission.)
 */
export interface StoreAdmission {
  /** Answers the object to go on with: a mutating plugin may have replaced it. `name` is '' when generated. */
  mutate(
    operation: 'CREATE' | 'UPDATE' | 'DELETE',
    object: ApiObject | undefined,
    old: ApiObject | undefined,
    name: string,
  ): ApiObject | undefined | Promise<ApiObject | undefined>;
  validate(): Promise<void> | undefined;
}

export interface StoreDeps {
  backend: Backend;
  /** Creation and deletion timestamps, managedFields times (a test server's controllable clock). */
  clock?: Clock;
}

/**
 * What each operation of the generic store works with: the type, storage, and the type's keys and error
 * targets. GenericStore is the one implementation; the operations live in store-*.ts files.
 */
export interface StoreContext {
  readonly type: ResourceType;
  readonly deps: StoreDeps;
  target(name?: string): Target;
  key(namespace: string | undefined, name: string): string;
}

/** How often a write is tried again after a concurrent write or a generated name that collided. */
export const MAX_RETRIES = 8;
