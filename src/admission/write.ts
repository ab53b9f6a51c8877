/**
 * One write as the admission chain sees it. The write path makes one `WriteAdmission` per request; the
 * store calls its two stages with the operation and objects it then knows (a PUT or an apply that creates
 * is a CREATE), and the validating stage reuses the request the mutating stage built.
 */
import { randomUUID } from 'node:crypto';
import { META_GROUP } from '../api/naming.js';
import type { ApiObject } from '../api/types.js';
import type { AdmissionChain } from './chain.js';
import type { AdmissionOperation, AdmissionRequest, AdmissionUser, GroupVersionKind, GroupVersionResource } from './types.js';

/** The write options a request carried, turned into the options object of whichever operation it became. */
export interface WriteOptionFields {
  dryRun: boolean;
  fieldManager?: string;
  fieldValidation?: string;
  force?: boolean;
  /** A delete's own DeleteOptions (propagationPolicy, preconditions, gracePeriodSeconds...). */
  deleteOptions?: Readonly<Record<string, unknown>>;
}

/** What the handler knows before the store runs. */
export interface WriteAttributes {
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subResource: string;
  namespace: string;
  user: AdmissionUser;
  fields: WriteOptionFields;
  /** Whether a patch (PatchOptions) rather than a PUT (UpdateOptions) when the operation is UPDATE. */
  patch?: boolean;
  warn(message: string): void;
}

const OPTIONS_API_VERSION = `${META_GROUP}/v1`;

/** The options object the reference sends with each operation (spec 2.11 `options`). */
export function optionsFor(op: AdmissionOperation, f: WriteOptionFields, patch = false): Record<string, unknown> | undefined {
  if (op === 'CONNECT') return undefined;
  const kind = op === 'CREATE' ? 'CreateOptions' : op === 'DELETE' ? 'DeleteOptions' : patch ? 'PatchOptions' : 'UpdateOptions';
  const out: Record<string, unknown> = { kind, apiVersion: OPTIONS_API_VERSION };
  if (op === 'DELETE' && f.deleteOptions) Object.assign(out, f.deleteOptions);
  if (f.dryRun) out.dryRun = ['All'];
  if (op !== 'DELETE') {
    if (f.fieldManager) out.fieldManager = f.fieldManager;
    if (f.fieldValidation) out.fieldValidation = f.fieldValidation;
    if (kind === 'PatchOptions' && f.force) out.force = true;
  }
  return out;
}

/** The request object plugins see; `options` is built only when someone reads it. */
class WriteRequest implements AdmissionRequest {
  private builtOptions: Record<string, unknown> | undefined | null = null;
  readonly requestKind: GroupVersionKind;
  readonly requestResource: GroupVersionResource;
  readonly requestSubResource: string;
  readonly kind: GroupVersionKind;
  readonly resource: GroupVersionResource;
  readonly subResource: string;
  readonly namespace: string;
  readonly dryRun: boolean;
  readonly user: AdmissionUser;

  constructor(
    private readonly owner: WriteAdmission,
    readonly uid: string,
    readonly operation: AdmissionOperation,
    readonly name: string,
    public object: ApiObject | undefined,
    readonly oldObject: ApiObject | undefined,
  ) {
    const a = owner.attributes;
    this.kind = this.requestKind = a.kind;
    this.resource = this.requestResource = a.resource;
    this.subResource = this.requestSubResource = a.subResource;
    this.namespace = a.namespace;
    this.dryRun = a.fields.dryRun;
    this.user = a.user;
  }

  get options(): Readonly<Record<string, unknown>> | undefined {
    if (this.builtOptions === null) this.builtOptions = optionsFor(this.operation, this.owner.attributes.fields, this.owner.attributes.patch);
    return this.builtOptions;
  }

  warn(message: string): void {
    this.owner.attributes.warn(message);
  }

  annotate(key: string, value: string): void {
    this.owner.annotations[key] = value;
  }
}

/** Admission of one write, driven by the store (registry/store.ts `StoreAdmission`). */
export class WriteAdmission {
  /** Audit annotations plugins recorded, for the audit event of this request. */
  readonly annotations: Record<string, string> = {};
  private current: WriteRequest | undefined;
  private uid: string | undefined;

  constructor(private readonly chain: AdmissionChain, readonly attributes: WriteAttributes) {}

  /**
   * The mutating stage. Answers the object to go on with (a plugin may have replaced it), as a promise only
   * when a plugin left something pending.
   */
  mutate(operation: AdmissionOperation, object: ApiObject | undefined, oldObject: ApiObject | undefined, name: string): ApiObject | undefined | Promise<ApiObject | undefined> {
    if (!this.chain.interested(operation)) {
      this.current = undefined;
      return object;
    }
    // A retried write (a conflict on update) is admitted again against the newer stored object, with the same uid.
    const req = (this.current = new WriteRequest(this, (this.uid ??= randomUUID()), operation, name, object, oldObject));
    const pending = this.chain.admit(req);
    return pending ? pending.then(() => req.object) : req.object;
  }

  /** The validating stage, over the request the mutating stage last built. */
  validate(): Promise<void> | undefined {
    return this.current ? this.chain.validate(this.current) : undefined;
  }
}
