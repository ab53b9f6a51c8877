/**
 * The admission seam (spec 1.6): every write is authenticated, authorized, then admitted. Mutating plugins
 * run in order and may change the object; then the type's own validation; then validating plugins, which
 * may only accept or reject. The first rejection (a thrown StatusError) ends the request and stores nothing.
 */
import type { ApiObject } from '../api/types.js';
import type { Dialer } from '../util/dialer.js';

/** A patch is an UPDATE; an apply that creates is a CREATE; pod exec/attach/portforward are CONNECT. */
export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

export interface GroupVersionResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

export interface AdmissionUser {
  readonly username: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** One write as admission sees it. Built once per request by the write path. */
export interface AdmissionRequest {
  /** Unique per request (CEL's `request.uid`); each webhook call sends a uid of its own, as the reference does. */
  readonly uid: string;
  readonly operation: AdmissionOperation;
  /** The kind and resource of the object being written (the storage view of the request). */
  readonly kind: GroupVersionKind;
  readonly resource: GroupVersionResource;
  /** '' when the request is on the resource itself. */
  readonly subResource: string;
  /** What the client addressed; differs from kind/resource only when a plugin sees another version. */
  readonly requestKind: GroupVersionKind;
  readonly requestResource: GroupVersionResource;
  readonly requestSubResource: string;
  /** '' for cluster-scoped objects. */
  readonly namespace: string;
  /** '' on a create whose name the server generates. */
  readonly name: string;
  /** The new object (CREATE, UPDATE, CONNECT options); mutating plugins may change it in place. */
  object: ApiObject | undefined;
  /** The stored object (UPDATE, DELETE). */
  readonly oldObject: ApiObject | undefined;
  /** CreateOptions, UpdateOptions, PatchOptions or DeleteOptions as the request carried them. */
  readonly options: Readonly<Record<string, unknown>> | undefined;
  readonly dryRun: boolean;
  readonly user: AdmissionUser;
  /** Adds a `Warning: 299` line to the response. */
  warn(message: string): void;
  /** Records an audit annotation on the request's audit event. */
  annotate(key: string, value: string): void;
}

export interface AdmissionPlugin {
  readonly name: string;
  handles(operation: AdmissionOperation): boolean;
  /** Mutating stage: may change `req.object`; throws a StatusError to reject. */
  admit?(req: AdmissionRequest): Promise<void> | void;
  /** Validating stage: must not change anything; throws a StatusError to reject. */
  validate?(req: AdmissionRequest): Promise<void> | void;
  /**
   * Reinvocation (webhooks' `reinvocationPolicy: IfNeeded`). After the mutating stage the chain asks each
   * plugin that has this method; if any answers true, the chain runs the whole mutating stage once more
   * with the same request object (never a third time). A plugin tells the second pass from the first by
   * its own per-request state.
   */
  wantsReinvocation?(req: AdmissionRequest): boolean;
}

/** Read access to stored objects for plugins that consult other objects (namespaces, limit ranges, ...). */
export interface ObjectReader {
  /** The current object, or undefined when it does not exist. `group` '' is the core group. */
  get(group: string, resource: string, namespace: string | undefined, name: string): Promise<ApiObject | undefined>;
  /** Current objects of a resource, in one namespace or (namespace undefined) all of them. */
  list(group: string, resource: string, namespace?: string): Promise<ApiObject[]>;
  /**
   * The object as the server's watch cache holds it at this moment, without waiting for anything; undefined
   * when the cache does not hold it (it may still exist: confirm with `get`). Lets a plugin answer the
   * common case of a hot write without an await. Objects returned are shared: never change them.
   */
  peek?(group: string, resource: string, namespace: string | undefined, name: string): ApiObject | undefined;
  /**
   * The objects the watch cache holds at this moment (as `list`), without waiting; undefined until the cache
   * has loaded. Lets a plugin see "nothing here" on a hot write without an await. Never change the objects.
   */
  peekList?(group: string, resource: string, namespace?: string): readonly ApiObject[] | undefined;
}

/** A resource permission to check for a user (the server fills in the user and `isResourceRequest`). */
export interface AuthorizationCheck {
  readonly verb: string;
  readonly group: string;
  /** '*' when the check is not about one version. */
  readonly version: string;
  readonly resource: string;
  readonly subresource?: string;
  readonly namespace?: string;
  readonly name?: string;
}

/** A permission on a non-resource path (`/healthz`, `/metrics`, ...), for policies' `authorizer.path(p)`. */
export interface PathAuthorizationCheck {
  readonly verb: string;
  readonly path: string;
}

/** The authorizer's whole answer: its decision and why ('' when it gave no reason). */
export interface AuthorizationDecision {
  readonly decision: 'allow' | 'deny' | 'noOpinion';
  readonly reason: string;
}

/** A resource that serves a kind, and whether its objects live in namespaces (a REST mapping). */
export interface KindMapping {
  readonly resource: GroupVersionResource;
  readonly namespaced: boolean;
}

/** What plugin factories get from the server. */
export interface AdmissionDeps {
  objects: ObjectReader;
  /** Egress selections for webhook calls (`--egress-selector-config-file`); absent or unset: direct. */
  egress?: { readonly controlplane?: Dialer; readonly cluster?: Dialer };
  /**
   * The group/versions serving the same stored resource as `r` (matchPolicy Equivalent), `r` included;
   * e.g. a resource served in v1 and v1beta1 of one group.
   */
  equivalentResources(r: GroupVersionResource): GroupVersionResource[];
  /** The kind served at `r`, or undefined when nothing is served there. */
  kindOf(r: GroupVersionResource): GroupVersionKind | undefined;
  /**
   * `obj`, served at `from`, in the version served at `to` (two versions of one stored resource, for
   * matchPolicy Equivalent); a new object. Undefined when the server has no conversion between them. A
   * conversion that calls out (a custom resource's conversion webhook) answers a promise, which rejects
   * with the conversion's StatusError; built-in types convert synchronously.
   */
  convertObject?(obj: ApiObject, from: GroupVersionResource, to: GroupVersionResource): ApiObject | Promise<ApiObject> | undefined;
  log(message: string): void;
  /**
   * Whether the server's authorizer allows `user` the check (true only on an explicit allow). Absent where
   * no authorizer is wired (unit tests); plugins that need it refuse to start without it.
   */
  authorize?(user: AdmissionUser, check: AuthorizationCheck): Promise<boolean>;
  /**
   * As `authorize`, with the decision and reason, for resource or path checks; an authorizer failure
   * rejects the promise. Absent where no authorizer is wired.
   */
  authorizeDecision?(user: AdmissionUser, check: AuthorizationCheck | PathAuthorizationCheck): Promise<AuthorizationDecision>;
  /** The resources serving `kind` at its group/version ([] when none); absent in unit tests that need none. */
  resourcesOfKind?(kind: GroupVersionKind): KindMapping[];
  /**
   * Creates the namespace `name` as the server itself would (through the registry and admission, as the
   * server's own user). Rejects with the write's StatusError (409 AlreadyExists when it exists). Absent in
   * unit tests; NamespaceAutoProvision refuses to start without it.
   */
  createNamespace?(name: string): Promise<void>;
  /**
   * Rewrites the status of a stored object with a compare-and-swap on its resourceVersion: reads it from
   * storage, asks `mutate` for the new object (undefined: write nothing), and stores that only if nobody
   * wrote the object meanwhile; else reads it again and asks again (`attempt` counts from 0). An error
   * `mutate` throws ends the call. Answers the stored object, or undefined when it does not exist. Absent
   * where nothing can be written (unit tests); plugins that need it refuse to start without it.
   */
  updateStatus?(
    group: string,
    resource: string,
    namespace: string | undefined,
    name: string,
    mutate: (current: ApiObject, attempt: number) => ApiObject | undefined | Promise<ApiObject | undefined>,
  ): Promise<ApiObject | undefined>;
  /** Told each webhook call's latency and whether it rejected the request (the webhook latency metric). */
  observeWebhook?(name: string, mutating: boolean, operation: string, rejected: boolean, seconds: number): void;
}

/** Builds a plugin from the server's dependencies and its AdmissionConfiguration entry (undefined when none). */
export type AdmissionPluginFactory = (deps: AdmissionDeps, configuration: unknown) => AdmissionPlugin;
