/**
 * The generic resource API: one client per resource (and namespace) with the verbs of the REST API,
 * their query options as the reference names them, subresources and table output.
 */
import { META_GROUP, REFERENCE_META_GROUP_ALIAS } from '../api/naming.js';
import type { Query, Transport } from './transport.js';
import type { GroupVersionResource, KubeObject, ObjectList, WatchEvent } from './types.js';
import { watchEvents } from './watch-frames.js';

export interface WriteOptions {
  dryRun?: boolean;
  fieldManager?: string;
  fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
  signal?: AbortSignal;
}

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  signal?: AbortSignal;
}

export interface WatchOptions extends Omit<ListOptions, 'limit' | 'continue'> {
  allowWatchBookmarks?: boolean;
  /** Streams the current state first, closed by a bookmark (the server's WatchList feature). */
  sendInitialEvents?: boolean;
  timeoutSeconds?: number;
}

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

export const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

export interface PatchOptions extends WriteOptions {
  /** Server-side apply only: take over fields other managers own. */
  force?: boolean;
  subresource?: string;
}

export interface DeleteOptions {
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
  signal?: AbortSignal;
}

/** `Accept` for server-side tables (the CLI's `get` output), JSON as the fallback. */
export const TABLE_ACCEPT = `application/json;as=Table;v=v1;g=${META_GROUP},application/json`;

export interface Table {
  kind: 'Table';
  columnDefinitions: { name: string; type: string; format?: string; description?: string; priority?: number }[];
  rows: { cells: unknown[]; object?: unknown }[];
  metadata: { resourceVersion?: string; continue?: string };
}

/**
 * `Accept` of a metadata-only client: the metadata form in this family's meta group, then in the reference's
 * spelling, then plain JSON (a server without metadata forms: the client reduces the objects itself).
 */
const metadataAccept = (kind: string) =>
  [...new Set([META_GROUP, REFERENCE_META_GROUP_ALIAS])].map((g) => `application/json;as=${kind};g=${g};v=v1`).concat('application/json').join(',');
const METADATA_ACCEPT = metadataAccept('PartialObjectMetadata');
const METADATA_LIST_ACCEPT = metadataAccept('PartialObjectMetadataList');

/** Pure: an object as a metadata-only client shows it (objects already in that form are kept as they are). */
export function partialObjectMetadata<T extends KubeObject>(obj: T): T {
  if (obj.kind === 'PartialObjectMetadata') return obj;
  return { apiVersion: `${META_GROUP}/v1`, kind: 'PartialObjectMetadata', metadata: obj.metadata ?? {} } as T;
}

const writeQuery = (o: WriteOptions = {}): Query => ({
  dryRun: o.dryRun ? 'All' : undefined,
  fieldManager: o.fieldManager,
  fieldValidation: o.fieldValidation,
});
const listQuery = (o: ListOptions = {}): Query => ({
  labelSelector: o.labelSelector,
  fieldSelector: o.fieldSelector,
  limit: o.limit,
  continue: o.continue,
  resourceVersion: o.resourceVersion,
  resourceVersionMatch: o.resourceVersionMatch,
});
const deleteBody = (o: DeleteOptions) => {
  const body: Record<string, unknown> = { apiVersion: 'v1', kind: 'DeleteOptions' };
  if (o.propagationPolicy) body.propagationPolicy = o.propagationPolicy;
  if (o.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = o.gracePeriodSeconds;
  if (o.preconditions) body.preconditions = o.preconditions;
  if (o.dryRun) body.dryRun = ['All'];
  return body;
};

export class ResourceClient<T extends KubeObject = KubeObject> {
  constructor(
    private readonly transport: Transport,
    readonly gvr: GroupVersionResource,
    /** Absent: cluster-scoped, or every namespace for list and watch of a namespaced resource. */
    readonly namespace?: string,
    /** Reads (get, list, watch) return PartialObjectMetadata only, as the reference's metadata client. */
    readonly metadataOnly = false,
  ) {}

  /** The same resource read as metadata only (ownerReferences, finalizers, labels, uid ...): far fewer bytes. */
  metadata(): ResourceClient<T> {
    return this.metadataOnly ? this : new ResourceClient<T>(this.transport, this.gvr, this.namespace, true);
  }

  /** The collection path, e.g. `/apis/apps/v1/namespaces/ns/deployments`. */
  path(name?: string, subresource?: string): string {
    const { group, version, plural } = this.gvr;
    let p = group ? `/apis/${group}/${version}` : `/api/${version}`;
    if (this.namespace) p += `/namespaces/${encodeURIComponent(this.namespace)}`;
    p += `/${plural}`;
    if (name !== undefined) p += `/${encodeURIComponent(name)}`;
    if (subresource) p += `/${subresource}`;
    return p;
  }

  /** The same resource in another namespace. */
  inNamespace(namespace: string | undefined): ResourceClient<T> {
    return new ResourceClient<T>(this.transport, this.gvr, namespace, this.metadataOnly);
  }

  async get(name: string, o: { subresource?: string; resourceVersion?: string; signal?: AbortSignal } = {}): Promise<T> {
    const obj = await this.transport.json<T>({ method: 'GET', path: this.path(name, o.subresource), query: { resourceVersion: o.resourceVersion }, signal: o.signal, ...(this.metadataOnly ? { accept: METADATA_ACCEPT } : {}) });
    return this.metadataOnly ? partialObjectMetadata(obj) : obj;
  }

  /** One page (or all, without `limit`). */
  async list(o: ListOptions = {}): Promise<ObjectList<T>> {
    const list = await this.transport.json<ObjectList<T>>({ method: 'GET', path: this.path(), query: listQuery(o), signal: o.signal, ...(this.metadataOnly ? { accept: METADATA_LIST_ACCEPT } : {}) });
    if (this.metadataOnly) list.items = (list.items ?? []).map(partialObjectMetadata);
    return list;
  }

  /** Every page in turn (`limit` per page, default 500); the pages share one snapshot. */
  async *pages(o: ListOptions = {}): AsyncGenerator<ObjectList<T>> {
    let next: string | undefined = o.continue;
    let first = true;
    do {
      // A continue token carries the snapshot; resourceVersion must not be sent with it.
      const page: ObjectList<T> = await this.list({ ...o, limit: o.limit ?? 500, continue: next, ...(first ? {} : { resourceVersion: undefined, resourceVersionMatch: undefined }) });
      first = false;
      yield page;
      next = page.metadata.continue || undefined;
    } while (next);
  }

  /** All items over every page, and the list's resourceVersion (to start a watch from). */
  async listAll(o: ListOptions = {}): Promise<{ items: T[]; resourceVersion: string }> {
    const items: T[] = [];
    let resourceVersion = '';
    for await (const page of this.pages(o)) {
      for (const item of page.items) items.push(item);
      resourceVersion = page.metadata.resourceVersion ?? resourceVersion;
    }
    return { items, resourceVersion };
  }

  /** A list rendered as a server-side Table (falls back to the plain list if the server has none). */
  table(o: ListOptions & { includeObject?: 'None' | 'Metadata' | 'Object' } = {}): Promise<Table> {
    return this.transport.json<Table>({
      method: 'GET',
      path: this.path(),
      query: { ...listQuery(o), includeObject: o.includeObject },
      accept: TABLE_ACCEPT,
      signal: o.signal,
    });
  }

  create(obj: T, o: WriteOptions & { subresource?: string; name?: string } = {}): Promise<T> {
    return this.transport.json<T>({ method: 'POST', path: this.path(o.name, o.subresource), query: writeQuery(o), body: obj, signal: o.signal });
  }

  /** PUT of the whole object; its `metadata.resourceVersion` makes it conditional. */
  update(obj: T, o: WriteOptions & { subresource?: string } = {}): Promise<T> {
    return this.transport.json<T>({ method: 'PUT', path: this.path(nameOf(obj), o.subresource), query: writeQuery(o), body: obj, signal: o.signal });
  }

  updateStatus(obj: T, o: WriteOptions = {}): Promise<T> {
    return this.update(obj, { ...o, subresource: 'status' });
  }

  /** `json` takes an array of operations; `apply` a whole (partial) object and needs a fieldManager. */
  patch(name: string, type: PatchType, patch: unknown, o: PatchOptions = {}): Promise<T> {
    if (type === 'apply' && !o.fieldManager) throw new Error('patch: an apply patch needs fieldManager');
    if (type !== 'apply' && o.force !== undefined) throw new Error('patch: force applies to apply patches only');
    return this.transport.json<T>({
      method: 'PATCH',
      path: this.path(name, o.subresource),
      query: { ...writeQuery(o), force: o.force },
      body: patch,
      contentType: PATCH_CONTENT_TYPES[type],
      signal: o.signal,
    });
  }

  /** Server-side apply of `obj` under `fieldManager`. */
  apply(obj: T, o: PatchOptions & { fieldManager: string }): Promise<T> {
    return this.patch(nameOf(obj), 'apply', obj, o);
  }

  /** The object (still terminating, with finalizers) or a Success Status, as the server answers. */
  delete(name: string, o: DeleteOptions = {}): Promise<T | { kind: 'Status'; status: string }> {
    return this.transport.json({ method: 'DELETE', path: this.path(name), query: {}, body: deleteBody(o), signal: o.signal });
  }

  deleteCollection(o: ListOptions & DeleteOptions = {}): Promise<ObjectList<T> | { kind: 'Status' }> {
    return this.transport.json({ method: 'DELETE', path: this.path(), query: listQuery(o), body: deleteBody(o), signal: o.signal });
  }

  getScale(name: string): Promise<KubeObject> {
    return this.transport.json({ method: 'GET', path: this.path(name, 'scale') });
  }

  /**
   * One watch response, event by event, ending when the server ends it. ERROR events are thrown as
   * StatusErrors (a 410 means the resourceVersion is too old: list again). See ListWatcher for the loop
   * that resumes and relists.
   */
  async *watch(o: WatchOptions = {}): AsyncGenerator<WatchEvent<T>> {
    const { stream } = await this.transport.open({
      method: 'GET',
      path: this.path(),
      query: {
        watch: true,
        labelSelector: o.labelSelector,
        fieldSelector: o.fieldSelector,
        resourceVersion: o.resourceVersion,
        resourceVersionMatch: o.resourceVersionMatch ?? (o.sendInitialEvents ? 'NotOlderThan' : undefined),
        allowWatchBookmarks: o.allowWatchBookmarks || o.sendInitialEvents ? true : undefined,
        sendInitialEvents: o.sendInitialEvents,
        timeoutSeconds: o.timeoutSeconds,
      },
      signal: o.signal,
      ...(this.metadataOnly ? { accept: METADATA_ACCEPT } : {}),
    });
    return yield* watchEvents<T>(stream, this.metadataOnly ? partialObjectMetadata : undefined);
  }
}

function nameOf(obj: KubeObject): string {
  const name = obj.metadata?.name;
  if (!name) throw new Error('the object has no metadata.name');
  return name;
}
