import type { ApiObject } from '../api/types.js';
import { apiVersionOf, isObject } from '../api/types.js';
import {
  alreadyExists,
  badRequest,
  clip,
  conflict,
  fieldError,
  forbidden,
  invalid,
  notFound,
  tooLarge,
  type FieldError,
  type Target,
} from '../errors/index.js';
import { apply, recordUpdate } from '../apply/index.js';
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch, cloneJson, JSON_PATCH, jsonEqual, MERGE_PATCH, STRATEGIC_MERGE_PATCH } from '../patch/index.js';
import { isStorageError, type Backend, type KeyValue } from '../storage/index.js';
import { MAX_REQUEST_BYTES } from '../encoding/limits.js';
import { decodeConverted, decodeKV, encodeConverted, encodeForStorage } from './codec.js';
import { itemKey } from './keys.js';
import { generateName, initCreateMeta, keepServerMeta, metaOf, nowTimestamp } from './object-meta.js';
import type { Clock } from '../util/clock.js';
import { fromStorageError, tooLargeRV } from './storage-errors.js';
import type { RequestUser, ResourceType } from './types.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './validation/index.js';
import { checkPropagation, defaultPolicyOf, finalizersAfterDelete } from './deletion-propagation.js';

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

const MAX_RETRIES = 8;

/**
 * The generic store: create, get, update, patch and delete for any ResourceType, in one fixed order of
 * steps. Per-type behaviour comes from the type's Strategy; watch events come from storage, never from here.
 */
export class GenericStore {
  constructor(readonly type: ResourceType, protected readonly deps: StoreDeps) {}

  target(name?: string): Target {
    return { group: this.type.group, kind: this.type.kind, resource: this.type.plural, ...(name !== undefined ? { name } : {}) };
  }

  key(namespace: string | undefined, name: string): string {
    return itemKey(this.type.storageKey, this.type.namespaced ? namespace : undefined, name);
  }

  /** The stored bytes of one object at storage's latest revision; `notOlderThan` past it is a 504 (spec 4.5). */
  async getKV(namespace: string | undefined, name: string, notOlderThan?: number): Promise<KeyValue> {
    if (notOlderThan !== undefined) {
      const current = await this.deps.backend.currentRevision().catch(fromStorageError);
      if (notOlderThan > current) throw tooLargeRV(notOlderThan, current);
    }
    const kv = await this.deps.backend.get(this.key(namespace, name)).catch(fromStorageError);
    if (!kv) throw notFound(this.target(name));
    return kv;
  }

  async get(namespace: string | undefined, name: string): Promise<ApiObject> {
    const kv = await this.deps.backend.get(this.key(namespace, name)).catch(fromStorageError);
    if (!kv) throw notFound(this.target(name));
    return this.type.asyncConversion ? this.decodeAsync(kv) : decodeKV(this.type, kv);
  }

  async create(namespace: string | undefined, body: unknown, opts: WriteOptions & { applied?: boolean } = {}): Promise<ApiObject> {
    const created = await this.createStored(namespace, body, opts);
    if ('object' in created) return created.object;
    return this.type.asyncConversion ? this.decodeAsync(created.kv) : decodeKV(this.type, created.kv);
  }

  /**
   * Create, answering with what storage holds (the response is then the stored bytes, encoded once), or
   * with the object itself for a dry run, which stores nothing.
   */
  async createStored(
    namespace: string | undefined,
    body: unknown,
    opts: WriteOptions & { applied?: boolean } = {},
  ): Promise<{ kv: KeyValue } | { object: ApiObject }> {
    let obj = this.checkFieldsOf(this.checkBody(body, namespace, opts.bodyOwned), opts);
    let meta = metaOf(obj);
    const t = this.type;
    const generated = !meta.name && typeof meta.generateName === 'string' && meta.generateName !== '';
    if (generated) meta.name = generateName(meta.generateName as string);
    initCreateMeta(obj, this.tracksGeneration(obj), this.deps.clock);
    t.strategy.prepareForCreate?.(obj, opts.user ? { user: opts.user } : undefined);
    if (opts.admission) {
      // Each await costs a turn of the microtask queue, so only what is pending is awaited.
      const mutated = opts.admission.mutate('CREATE', obj, undefined, generated ? '' : (meta.name as string));
      obj = this.admitted(mutated instanceof Promise ? await mutated : mutated, obj);
      meta = metaOf(obj);
      t.strategy.afterCreateAdmission?.(obj);
    }
    this.recordManager(obj, undefined, opts);
    this.validateOrThrow(obj, [
      ...validateObjectMeta(meta, { namespaced: t.namespaced, nameRule: t.strategy.nameRule }),
      ...t.strategy.validate(obj),
    ]);
    const validated = opts.admission?.validate();
    if (validated) await validated;
    const reservation = t.allocations ? await t.allocations.reserve(this.deps.backend, obj, undefined, opts.dryRun === true) : undefined;
    if (opts.dryRun) return { object: obj };
    for (let attempt = 0; ; attempt++) {
      try {
        const bytes = t.asyncConversion ? await this.encodeBoundedAsync(obj) : this.encodeBounded(obj);
        const kv = await this.deps.backend.create(this.key(meta.namespace, meta.name as string), bytes);
        if (reservation) await reservation.commit();
        return { kv };
      } catch (e) {
        // What was reserved for the object is given back unless a generated name is drawn again.
        if (!(isStorageError(e, 'KeyExists') && generated && attempt < MAX_RETRIES)) await reservation?.revert();
        if (!isStorageError(e, 'KeyExists')) fromStorageError(e);
        // A generated name that collides is drawn again; a chosen name is the client's conflict.
        if (!generated || attempt >= MAX_RETRIES) throw alreadyExists(this.target(meta.name));
        meta.name = generateName(meta.generateName as string);
      }
    }
  }

  /** PUT: replaces the object (or its status), creating it where the type allows (spec 4.1). */
  async update(namespace: string | undefined, name: string, body: unknown, opts: WriteOptions = {}): Promise<{ object: ApiObject; created: boolean }> {
    const obj = this.checkFieldsOf(this.checkBody(body, namespace), opts);
    const meta = metaOf(obj);
    if (meta.name === undefined || meta.name === '') meta.name = name;
    if (meta.name !== name) {
      throw badRequest(`the name of the object (${clip(String(meta.name))}) does not match the name on the URL (${clip(name)})`);
    }
    const wantRV = meta.resourceVersion;
    for (let attempt = 0; ; attempt++) {
      const cur = await this.deps.backend.get(this.key(namespace, name)).catch(fromStorageError);
      if (!cur) {
        if (!this.type.strategy.allowCreateOnUpdate || opts.subresource) throw notFound(this.target(name));
        if (wantRV !== undefined && wantRV !== '') throw notFound(this.target(name));
        try {
          return { object: await this.create(namespace, obj, opts), created: true };
        } catch (e) {
          // Someone else created it in between: retry as an update.
          if (attempt < MAX_RETRIES && (e as { reason?: string }).reason === 'AlreadyExists') continue;
          throw e;
        }
      }
      if (wantRV === undefined || wantRV === '') {
        if (!this.type.strategy.allowUnconditionalUpdate) {
          throw invalid(this.target(name), [fieldError.invalid('metadata.resourceVersion', 0, 'must be specified for an update')]);
        }
      } else if (wantRV !== String(cur.modRevision)) {
        throw this.staleConflict(name);
      }
      try {
        return { object: await this.replace(cur, cloneJson(obj) as ApiObject, opts), created: false };
      } catch (e) {
        // Only an unconditional update may retry on a concurrent write; a conditional one reports it.
        if (isStorageError(e, 'Conflict') && (wantRV === undefined || wantRV === '') && attempt < MAX_RETRIES) continue;
        if (isStorageError(e, 'Conflict')) throw this.staleConflict(name);
        if (isStorageError(e, 'NotFound')) throw notFound(this.target(name));
        throw e;
      }
    }
  }

  /** PATCH with a JSON patch (RFC 6902) or a merge patch (RFC 7386), applied to the latest object. */
  async patch(namespace: string | undefined, name: string, patchType: string, patch: unknown, opts: WriteOptions = {}): Promise<ApiObject> {
    for (let attempt = 0; ; attempt++) {
      const cur = await this.deps.backend.get(this.key(namespace, name)).catch(fromStorageError);
      if (!cur) throw notFound(this.target(name));
      const old = this.type.asyncConversion ? await this.decodeAsync(cur) : decodeKV(this.type, cur);
      let patched: unknown;
      if (patchType === JSON_PATCH) patched = applyJsonPatch(old, patch);
      else if (patchType === MERGE_PATCH) patched = applyMergePatch(old, patch);
      else if (patchType === STRATEGIC_MERGE_PATCH) patched = applyStrategicMergePatch(old, patch, this.type.schema);
      else throw badRequest(`unsupported patch type ${patchType}`);
      const obj = this.checkFieldsOf(this.checkBody(patched, namespace), opts);
      const meta = metaOf(obj);
      if (meta.name !== name) throw invalid(this.target(name), [fieldError.invalid('metadata.name', meta.name, 'field is immutable')]);
      // A resourceVersion in the patch is a precondition; otherwise the patch applies to what we just read.
      const rvInPatch = meta.resourceVersion;
      if (rvInPatch !== undefined && rvInPatch !== String(cur.modRevision)) throw this.staleConflict(name);
      try {
        // A converted old object is handed on (as a copy: patching may share parts of it), not converted again.
        return await this.replace(cur, obj, opts, this.type.asyncConversion ? (cloneJson(old) as ApiObject) : undefined);
      } catch (e) {
        if (isStorageError(e, 'Conflict') && rvInPatch === old.metadata?.resourceVersion && patchRVUnset(patch, patchType) && attempt < MAX_RETRIES) continue;
        if (isStorageError(e, 'Conflict')) throw this.staleConflict(name);
        if (isStorageError(e, 'NotFound')) throw notFound(this.target(name));
        throw e;
      }
    }
  }

  /**
   * Deletion per spec 3.1: with finalizers pending, the first delete only sets deletionTimestamp; otherwise
   * the object is removed at once. Returns the object as it was (or as it now is, when terminating).
   */
  async delete(namespace: string | undefined, name: string, opts: DeleteOptions = {}): Promise<{ object: ApiObject; removed: boolean }> {
    checkPropagation(opts);
    const typeDefault = defaultPolicyOf(this.type.group, this.type.version, this.type.plural);
    for (let attempt = 0; ; attempt++) {
      const cur = await this.deps.backend.get(this.key(namespace, name)).catch(fromStorageError);
      if (!cur) throw notFound(this.target(name));
      const old = this.type.asyncConversion ? await this.decodeAsync(cur) : decodeKV(this.type, cur);
      const p = opts.preconditions;
      if (p?.uid && p.uid !== old.metadata?.uid) {
        throw conflict(this.target(name), `Precondition failed: UID in precondition: ${p.uid}, UID in object meta: ${old.metadata?.uid ?? ''}`);
      }
      if (p?.resourceVersion && p.resourceVersion !== old.metadata?.resourceVersion) {
        throw conflict(this.target(name), `Precondition failed: ResourceVersion in precondition: ${p.resourceVersion}, ResourceVersion in object meta: ${old.metadata?.resourceVersion ?? ''}`);
      }
      if (opts.admission) {
        // A delete is admitted with the stored object as oldObject and no new object.
        const mutated = opts.admission.mutate('DELETE', undefined, old, name);
        if (mutated instanceof Promise) await mutated;
        const validated = opts.admission.validate();
        if (validated) await validated;
      }
      try {
        // The propagation policy becomes finalizers for the garbage collector (spec 3.1).
        const own = Array.isArray(old.metadata?.finalizers) ? (old.metadata.finalizers as string[]) : [];
        const finalizers = finalizersAfterDelete(own, opts, typeDefault);
        const changed = finalizers !== own;
        const decided = changed ? ({ ...old, metadata: { ...old.metadata, finalizers: [...finalizers] } } as ApiObject) : old;
        if (this.pendingFinalizers(decided).length > 0) {
          if (old.metadata?.deletionTimestamp && !changed) return { object: old, removed: false };
          const next = cloneJson(decided) as ApiObject;
          // A second delete may switch the policy's finalizers; the first deletion time stays.
          if (!old.metadata?.deletionTimestamp) {
            metaOf(next).deletionTimestamp = nowTimestamp(this.deps.clock);
            metaOf(next).deletionGracePeriodSeconds = 0;
            this.type.strategy.prepareForTerminating?.(next);
          }
          if (opts.dryRun) return { object: next, removed: false };
          const t = this.type;
          const bytes = t.asyncConversion ? await encodeConverted(t, next) : encodeForStorage(t, next);
          const kv = await this.deps.backend.update(cur.key, bytes, cur.modRevision);
          return { object: t.asyncConversion ? await this.decodeAsync(kv) : decodeKV(t, kv), removed: false };
        }
        if (opts.dryRun) return { object: old, removed: true };
        await this.deps.backend.delete(cur.key, cur.modRevision);
        if (this.type.allocations) await this.type.allocations.release(this.deps.backend, old);
        return { object: old, removed: true };
      } catch (e) {
        if ((isStorageError(e, 'Conflict') || isStorageError(e, 'NotFound')) && attempt < MAX_RETRIES) continue;
        return fromStorageError(e);
      }
    }
  }

  /**
   * Server-side apply (spec 2.4, 4.3): merges the applied configuration into the live object with field
   * ownership, creating the object when it is missing (`canCreate` checks the create permission).
   */
  async apply(
    namespace: string | undefined,
    name: string,
    body: unknown,
    opts: WriteOptions & { fieldManager: string; force: boolean; canCreate(): Promise<boolean> },
  ): Promise<{ object: ApiObject; created: boolean }> {
    const t = this.type;
    const applied = this.checkFieldsOf(this.checkBody(body, namespace), opts);
    const meta = metaOf(applied);
    if (meta.managedFields !== undefined) throw badRequest('metadata.managedFields must be nil');
    if (meta.name === undefined || meta.name === '') meta.name = name;
    if (meta.name !== name) throw badRequest(`the name of the object (${clip(String(meta.name))}) does not match the name on the URL (${clip(name)})`);
    const apiVersion = apiVersionOf(t.group, t.version);
    const ignoreStatus = t.subresources.includes('status') && opts.subresource !== 'status';
    for (let attempt = 0; ; attempt++) {
      const cur = await this.deps.backend.get(this.key(namespace, name)).catch(fromStorageError);
      const live = cur ? (t.asyncConversion ? await this.decodeAsync(cur) : decodeKV(t, cur)) : undefined;
      const { object, managedFields } = apply({
        live,
        applied,
        schema: t.schema,
        manager: opts.fieldManager,
        force: opts.force,
        apiVersion,
        ...(opts.subresource ? { subresource: opts.subresource } : {}),
        now: nowTimestamp(this.deps.clock),
        ignoreStatus,
      });
      metaOf(object).managedFields = managedFields as unknown as Record<string, unknown>[];
      try {
        if (!cur) {
          if (opts.subresource) throw notFound(this.target(name));
          if (!(await opts.canCreate())) throw forbidden(`${t.plural} "${name}" is forbidden: applying a missing object creates it, which needs the create permission`, this.target(name));
          return { object: await this.create(namespace, object, { ...opts, applied: true }), created: true };
        }
        return { object: await this.replace(cur, object, { ...opts, applied: true }, t.asyncConversion && live ? (cloneJson(live) as ApiObject) : undefined), created: false };
      } catch (e) {
        const again = isStorageError(e, 'Conflict') || isStorageError(e, 'NotFound') || (e as { reason?: string }).reason === 'AlreadyExists';
        if (again && attempt < MAX_RETRIES) continue;
        if (isStorageError(e)) fromStorageError(e);
        throw e;
      }
    }
  }

  /** Records the writer's changes in managedFields (spec 2.4); `[{}]` in the request resets them (spec 4.3). */
  private recordManager(obj: ApiObject, old: ApiObject | undefined, opts: WriteOptions & { applied?: boolean }): void {
    if (!opts.fieldManager || opts.applied) return;
    const t = this.type;
    const managed = recordUpdate({
      live: old,
      updated: obj,
      schema: t.schema,
      manager: opts.fieldManager,
      apiVersion: apiVersionOf(t.group, t.version),
      ...(opts.subresource ? { subresource: opts.subresource } : {}),
      now: nowTimestamp(this.deps.clock),
      ignoreStatus: t.subresources.includes('status') && opts.subresource !== 'status',
    });
    const m = metaOf(obj);
    if (managed.length > 0) m.managedFields = managed as unknown as Record<string, unknown>[];
    else delete m.managedFields;
  }

  /**
   * The stored form of a created or updated object, refused (413) past the request body limit: whatever
   * built it (a patch, apply, defaulting), no write stores more than a client could send. Deletion's own
   * write (deletionTimestamp) is not held to it, so an object can always be deleted.
   */
  private encodeBounded(obj: ApiObject): Uint8Array {
    return this.bounded(encodeForStorage(this.type, obj));
  }

  private async encodeBoundedAsync(obj: ApiObject): Promise<Uint8Array> {
    return this.bounded(await encodeConverted(this.type, obj));
  }

  private bounded(bytes: Uint8Array): Uint8Array {
    if (bytes.length > MAX_REQUEST_BYTES) {
      throw tooLarge(`Request entity too large: the object is too large to store: ${bytes.length} bytes, the limit is ${MAX_REQUEST_BYTES} bytes`);
    }
    return bytes;
  }

  /** A stored object in this type's version through its asynchronous conversion (a CRD's webhook). */
  private async decodeAsync(kv: KeyValue): Promise<ApiObject> {
    return (await decodeConverted(this.type, [kv]))[0] as ApiObject;
  }

  private checkFieldsOf(obj: ApiObject, opts: WriteOptions): ApiObject {
    return opts.checkFields ? opts.checkFields(obj) : obj;
  }

  /** Finalizers that keep a deleted object in storage (metadata.finalizers, plus type-specific ones). */
  pendingFinalizers(obj: ApiObject): string[] {
    const own = Array.isArray(obj.metadata?.finalizers) ? (obj.metadata.finalizers as string[]) : [];
    return [...own, ...(this.type.strategy.pendingFinalizers?.(obj) ?? [])];
  }

  /** The common tail of update and patch: prepare, validate, and compare-and-swap against `cur`. */
  private async replace(cur: KeyValue, obj: ApiObject, opts: WriteOptions & { applied?: boolean }, converted?: ApiObject): Promise<ApiObject> {
    const t = this.type;
    const old = converted ?? (t.asyncConversion ? await this.decodeAsync(cur) : decodeKV(t, cur));
    keepServerMeta(obj, old);
    const custom = opts.subresource ? t.strategy.subresourceWrites?.[opts.subresource] : undefined;
    if (custom) {
      custom.prepare(obj, old);
    } else if (opts.subresource === 'status') {
      t.strategy.prepareForStatusUpdate?.(obj, old);
    } else if (opts.subresource === 'finalize') {
      t.strategy.prepareForFinalizeUpdate?.(obj, old);
    } else {
      t.strategy.prepareForUpdate?.(obj, old);
    }
    if (opts.admission) {
      const mutated = opts.admission.mutate('UPDATE', obj, old, metaOf(obj).name as string);
      obj = this.admitted(mutated instanceof Promise ? await mutated : mutated, obj);
    }
    // After admission, so that a mutating plugin's change to the spec counts as one.
    const plainUpdate = !custom && opts.subresource !== 'status' && opts.subresource !== 'finalize';
    const changed = t.strategy.generationChanged ? t.strategy.generationChanged(obj, old) : this.tracksGeneration(obj) && !jsonEqual(obj.spec, old.spec);
    if (plainUpdate && changed) {
      metaOf(obj).generation = (typeof old.metadata?.generation === 'number' ? old.metadata.generation : 0) + 1;
    }
    if (!opts.applied) this.recordManager(obj, old, opts);
    this.validateOrThrow(obj, [
      ...validateObjectMetaUpdate(obj.metadata, old.metadata),
      ...t.strategy.validate(obj),
      ...(custom?.validateUpdate ? custom.validateUpdate(obj, old) : (t.strategy.validateUpdate?.(obj, old) ?? [])),
    ]);
    const validated = opts.admission?.validate();
    if (validated) await validated;
    metaOf(obj).resourceVersion = old.metadata?.resourceVersion as string;
    // An update that changes nothing is not written: same resourceVersion, no watch event. Unless the value
    // was read with an older encryption key (stale): writing it again re-encrypts it with the current one.
    if (jsonEqual(obj, old) && !cur.stale) return old;
    const reservation = t.allocations ? await t.allocations.reserve(this.deps.backend, obj, old, opts.dryRun === true) : undefined;
    if (opts.dryRun) return obj;
    try {
      if (obj.metadata?.deletionTimestamp && this.pendingFinalizers(obj).length === 0) {
        // The last finalizer is gone: the object leaves storage (spec 3.1).
        await this.deps.backend.delete(cur.key, cur.modRevision);
        await reservation?.revert();
        await t.allocations?.release(this.deps.backend, old);
        return obj;
      }
      const bytes = t.asyncConversion ? await this.encodeBoundedAsync(obj) : this.encodeBounded(obj);
      const kv = await this.deps.backend.update(cur.key, bytes, cur.modRevision);
      if (reservation) await reservation.commit();
      return t.asyncConversion ? await this.decodeAsync(kv) : decodeKV(t, kv);
    } catch (e) {
      await reservation?.revert();
      throw e;
    }
  }

  /** The body must be an object of this kind and version, in the namespace of the URL. */
  private checkBody(body: unknown, namespace: string | undefined, owned = false): ApiObject {
    if (!isObject(body)) throw badRequest(`the body of the request must be a JSON or YAML object (${this.type.kind})`);
    const obj = (owned ? body : cloneJson(body)) as ApiObject;
    const t = this.type;
    const want = apiVersionOf(t.group, t.version);
    if (obj.kind !== undefined && obj.kind !== t.kind) {
      throw badRequest(`the kind in the data (${clip(String(obj.kind))}) does not match the expected kind (${t.kind}) of ${t.plural}`);
    }
    if (obj.apiVersion !== undefined && obj.apiVersion !== want) {
      throw badRequest(`the API version in the data (${clip(String(obj.apiVersion))}) does not match the expected API version (${want})`);
    }
    obj.apiVersion = want;
    obj.kind = t.kind;
    if (obj.metadata !== undefined && !isObject(obj.metadata)) {
      throw invalid(this.target(), [fieldError.typeInvalid('metadata', obj.metadata, 'must be an object')]);
    }
    const meta = metaOf(obj);
    if (t.namespaced) {
      if (meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== namespace) {
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      if (namespace) meta.namespace = namespace;
    } else {
      delete meta.namespace;
    }
    return obj;
  }

  private validateOrThrow(obj: ApiObject, errors: FieldError[]): void {
    if (errors.length > 0) throw invalid({ ...this.target(obj.metadata?.name), resource: undefined }, errors);
  }

  /**
   * The object a mutating stage handed back: it must still be an object of this type, in the same
   * namespace and (unless generated) with the same name, as the request addressed.
   */
  private admitted(result: ApiObject | undefined, before: ApiObject): ApiObject {
    if (result === before) return result;
    if (!isObject(result)) throw badRequest(`admission did not return a ${this.type.kind} object`);
    const was = metaOf(before);
    const now = metaOf(result);
    if (now.namespace !== was.namespace) throw badRequest('admission may not change the namespace of the object');
    if (now.name !== was.name) throw badRequest('admission may not change the name of the object');
    return result;
  }

  private tracksGeneration(obj: ApiObject): boolean {
    return this.type.strategy.tracksGeneration ?? 'spec' in obj;
  }

  private staleConflict(name: string) {
    return conflict(this.target(name), 'the object has been modified; please apply your changes to the latest version and try again');
  }
}

/** True when a patch does not itself set metadata.resourceVersion (so it may be re-applied to a newer object). */
function patchRVUnset(patch: unknown, patchType: string): boolean {
  if (patchType === MERGE_PATCH) return !(isObject(patch) && isObject(patch.metadata) && 'resourceVersion' in patch.metadata);
  return !(Array.isArray(patch) && patch.some((op) => isObject(op) && typeof op.path === 'string' && op.path.startsWith('/metadata/resourceVersion')));
}
