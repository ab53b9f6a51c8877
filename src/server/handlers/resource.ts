import type { ApiObject } from '../../api/types.js';
import { apiVersionOf, isObject } from '../../api/types.js';
import { decodeBody, encode, JSON_MEDIA, negotiate, YAML_MEDIA, type Representation } from '../../encoding/index.js';
import { badRequest, internalError, methodNotAllowed, notFound, notFoundMessage } from '../../errors/index.js';
import { APPLY_PATCH_YAML } from '../../patch/index.js';
import type { GenericStore, Registry } from '../../registry/index.js';
import { decodeConverted, decodeFromStorage, listObjects, objectJson } from '../../registry/index.js';
import { canonicalResourceVersion, parseResourceVersion } from '../../registry/resource-version.js';
import { header, readBody, sendBytes, streamList, type Req, type Res } from '../http.js';
import type { RequestInfo } from '../request-info.js';
import { warningHeaderValues } from '../warning-header.js';
import { isVirtual, serveVirtual } from './virtual.js';
import { coreExtraHandler, ephemeralContainersStore, isStreamingSubresource } from './core-extra.js';
import { fieldChecker, fieldManagerOf, fieldValidationOf, patchMediaType, patchOptionsOf } from './write-options.js';
import { gzipWhenLarge, maybeGzip } from '../compression.js';
import { negotiateWithTables, tableFor } from './table-output.js';
import { isMetadataRep, negotiateRead, partialListFor, partialObjectFor } from './metadata-output.js';
import { serveWatch } from './watch.js';
import { serveScale } from './scale.js';
import { PROTOBUF_MEDIA_TYPE } from '../../api/naming.js';
import type { Authenticator, ServiceAccountTokenIssuer, UserInfo } from '../../authn/index.js';
import type { Attributes, Authorizer } from '../../authz/index.js';
import type { RbacIndex } from '../../authz/rbac/index.js';
import type { AdmissionChain, WriteOptionFields } from '../../admission/index.js';
import { admitSubresourceObject, writeAdmission } from '../admission-setup.js';
import { deprecationOf } from '../../registry/resources/deprecated-versions.js';
import type { ApiserverMetrics } from '../../metrics/index.js';
import type { AuditRecord } from '../../audit/record.js';
import { auditDeprecation } from '../audit-stage.js';
import type { FeatureGates } from '../../features/index.js';

const OFFERS = [JSON_MEDIA, YAML_MEDIA, PROTOBUF_MEDIA_TYPE];
/** Custom resources have no protobuf form (spec 4.4): a client asking only for it gets 406, with a fallback JSON. */
const CUSTOM_OFFERS = [JSON_MEDIA, YAML_MEDIA];

export interface ResourceContext {
  req: Req;
  res: Res;
  info: RequestInfo;
  query: URLSearchParams;
  registry: Registry;
  /** Ends watches when the server shuts down. */
  shutdown: AbortSignal;
  features: FeatureGates;
  watch: { bookmarkIntervalMs: number; minTimeoutSeconds: number; maxQueue: number; maxQueueBytes: number };
  user: UserInfo;
  auth: ResourceAuth;
  /** `Warning: 299` headers for the response (field validation, spec 7). */
  warnings?: string[];
  /** The response's form, negotiated once before anything is read or written (architecture rule 9). */
  response?: Representation;
  /** The admission chain every write passes (spec 1.6). */
  admission: AdmissionChain;
  /** This request's audit event, when the policy records it: writes add their objects and annotations. */
  audit?: AuditRecord | undefined;
  /** The server's metrics (watch events, deprecated API use). */
  metrics?: ApiserverMetrics | undefined;
}

/** What resource handlers need from authentication and authorization (reviews, tokens, RBAC admission). */
export interface ResourceAuth {
  authenticator: Authenticator;
  authorizer: Authorizer;
  /** Set when RBAC is an authorization mode: escalation checks run against it. */
  rbac: RbacIndex | undefined;
  issuer: ServiceAccountTokenIssuer;
  apiAudiences: string[];
}

/** Serves one resource request (spec 4.1) through the generic store of its type. */
export async function serveResource(ctx: ResourceContext): Promise<void> {
  const { info, registry, query } = ctx;
  // A client that cannot read the answer is refused (406) before anything is written (virtual
  // resources first; others once the URL is known to name something, as unknown paths are 404).
  if (isVirtual(info)) {
    // Reviews exist only in the group/versions that serve them (not a removed v1beta1, not one turned off).
    if (!info.subresource && !registry.servesCreateOnly(info.apiGroup, info.apiVersion, info.resource)) {
      throw notFoundMessage('the server could not find the requested resource');
    }
    ctx.response = negotiateResponse(ctx.req, info.verb);
    return serveVirtual({ ...ctx.auth, req: ctx.req, info, user: ctx.user, registry, admission: ctx.admission, audit: ctx.audit, respond: (code, obj) => respond(ctx, code, obj) });
  }
  const extra = coreExtraHandler(info);
  if (extra) {
    // Streams (log, exec, ...) answer text or upgrade; only their errors are Status objects.
    if (!isStreamingSubresource(info)) ctx.response = negotiateResponse(ctx.req, info.verb);
    return extra(ctx);
  }
  const store = ephemeralContainersStore(registry, info) ?? registry.store(info.apiGroup, info.apiVersion, info.resource);
  if (!store) throw notFoundMessage('the server could not find the requested resource');
  const t = store.type;
  const namespace = t.namespaced ? info.namespace || undefined : undefined;
  // A cluster-scoped type under namespaces/<ns>/..., or a namespaced item without a namespace, has no URL.
  if (!t.namespaced && info.namespace && !(info.resource === 'namespaces')) throw notFoundMessage('the server could not find the requested resource');
  // (A list or watch across namespaces may carry a name taken from `fieldSelector=metadata.name=`; it is not in the path.)
  if (t.namespaced && !namespace && info.name && info.verb !== 'list' && info.verb !== 'watch') throw notFoundMessage('the server could not find the requested resource');
  if (info.subresource && !t.subresources.includes(info.subresource)) {
    throw notFoundMessage('the server could not find the requested resource');
  }
  // Deprecated APIs warn on every request (spec 7); set now, as get, list and watch write their own headers.
  const deprecation = t.deprecation ?? deprecationOf(t.group, t.version, t.plural);
  if (deprecation) {
    ctx.res.setHeader('Warning', warningHeaderValues([deprecation.warning]));
    auditDeprecation(ctx.audit, deprecation.removedRelease);
    ctx.metrics?.deprecatedApi(t.group, t.version, t.plural, info.subresource, deprecation.removedRelease);
  }
  ctx.response = negotiateResponse(ctx.req, info.verb, t.custom ? CUSTOM_OFFERS : OFFERS, true);
  const dryRun = parseDryRun(query);
  if (info.subresource === 'scale' && t.scale && info.name) {
    const scaleWarnings: string[] = (ctx.warnings = deprecation ? [deprecation.warning] : []);
    const admit = (next: ApiObject, current: ApiObject) =>
      admitSubresourceObject(ctx.admission, {
        operation: 'UPDATE',
        kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
        resource: { group: t.group, version: t.version, resource: t.plural },
        subresource: 'scale',
        namespace: namespace ?? '',
        name: info.name,
        object: next,
        oldObject: current,
        user: ctx.user,
        dryRun,
        warnings: scaleWarnings,
      });
    const scale = await serveScale(store, t.scale, namespace, info.name, { method: ctx.req.method ?? 'GET', req: ctx.req, query, dryRun, admit });
    return respond(ctx, 200, scale);
  }
  const validation = fieldValidationOf(query);
  const warnings: string[] = (ctx.warnings = deprecation ? [deprecation.warning] : []);
  // One admission per write: the store runs its stages once it knows the operation (spec 1.6).
  const admit = (fields: Omit<WriteOptionFields, 'dryRun'>, patch = false) => {
    const admission = writeAdmission(ctx.admission, t, {
      namespace,
      subresource: info.subresource,
      user: ctx.user,
      fields: { dryRun, ...fields, ...(query.get('fieldValidation') ? { fieldValidation: query.get('fieldValidation') as string } : {}) },
      patch,
      warnings,
    });
    // Plugins and webhooks annotate as they run; the audit event reads the same map.
    ctx.audit?.annotationsFrom(admission.annotations);
    return { admission };
  };
  switch (info.verb) {
    case 'get':
      return serveGet(ctx, store, namespace);
    case 'list': {
      if (info.subresource) throw methodNotAllowed('GET', 'a collection subresource');
      const rep = ctx.response ?? negotiateRead(header(ctx.req, 'accept'), OFFERS);
      const body = await registry.reader(t).list(namespace, listParams(query));
      if (rep.mediaType === JSON_MEDIA && !rep.as) {
        return streamList(ctx.res, body, ctx.req.method === 'HEAD', gzipWhenLarge(ctx.req, ctx.res, ctx.features.enabled('APIResponseCompression')));
      }
      const items = [...body.items].map((b) => JSON.parse(b.toString('utf8')) as ApiObject);
      if (isMetadataRep(rep)) return sendRep(ctx, rep.mediaType, partialListFor(rep, items, body.metadata));
      if (rep.as) return sendRep(ctx, rep.mediaType === PROTOBUF_MEDIA_TYPE ? JSON_MEDIA : rep.mediaType, tableFor(t, rep, items, query, body.metadata));
      return sendRep(ctx, rep.mediaType, { kind: body.kind, apiVersion: body.apiVersion, metadata: body.metadata, items });
    }
    case 'watch':
      // The legacy `/watch/` prefix makes any method a watch; only GET serves one (found by the fuzzer).
      if (ctx.req.method !== 'GET' && ctx.req.method !== 'HEAD') throw methodNotAllowed(ctx.req.method ?? '', 'a watch');
      return serveWatch(ctx, store, namespace);
    case 'create': {
      if (info.name) throw methodNotAllowed('POST', `${t.plural} items`);
      if (t.namespaced && !namespace) throw methodNotAllowed('POST', `${t.plural} across all namespaces`);
      const raw = await readBody(ctx.req);
      const body = decodeBody(header(ctx.req, 'content-type'), raw, t.custom ? CUSTOM_OFFERS : undefined);
      ctx.audit?.requestObject(body);
      const fieldManager = fieldManagerOf(query, header(ctx.req, 'user-agent'));
      const write = { dryRun, ...admit({ fieldManager }), fieldManager, checkFields: fieldChecker(validation, t, raw, header(ctx.req, 'content-type'), warnings, body), bodyOwned: true, user: ctx.user };
      const created = await store.createStored(namespace, body, write);
      if ('object' in created) return respond(ctx, 201, created.object);
      if (t.asyncConversion) return respond(ctx, 201, (await decodeConverted(t, [created.kv]))[0]);
      return respondStored(ctx, 201, t, created.kv.value, created.kv.modRevision);
    }
    case 'update': {
      const raw = await readBody(ctx.req);
      const body = decodeBody(header(ctx.req, 'content-type'), raw, t.custom ? CUSTOM_OFFERS : undefined);
      ctx.audit?.requestObject(body);
      const fieldManager = fieldManagerOf(query, header(ctx.req, 'user-agent'), 'UpdateOptions');
      const write = { dryRun, ...sub(info), ...admit({ fieldManager }), fieldManager, checkFields: fieldChecker(validation, t, raw, header(ctx.req, 'content-type'), warnings, body) };
      const { object, created } = await store.update(namespace, info.name, body, write);
      return respond(ctx, created ? 201 : 200, object);
    }
    case 'patch': {
      const patchType = patchMediaType(header(ctx.req, 'content-type'), t.custom === true);
      const raw = await readBody(ctx.req);
      const body = decodeBody(patchType, raw, [patchType]);
      ctx.audit?.requestObject(body);
      const { fieldManager, force } = patchOptionsOf(query, patchType, header(ctx.req, 'user-agent'));
      const checkFields = fieldChecker(validation, t, raw, patchType, warnings, body);
      if (patchType === APPLY_PATCH_YAML) {
        const canCreate = async () =>
          (await ctx.auth.authorizer.authorize({ ...attributesFor(ctx), verb: 'create', name: '', subresource: '' })).decision === 'allow';
        const { object, created } = await store.apply(namespace, info.name, body, { dryRun, ...sub(info), ...admit({ fieldManager, force }, true), fieldManager, force, canCreate, checkFields, user: ctx.user });
        return respond(ctx, created ? 201 : 200, object);
      }
      const write = { dryRun, ...sub(info), ...admit({ fieldManager }, true), fieldManager, checkFields };
      return respond(ctx, 200, await store.patch(namespace, info.name, patchType, body, write));
    }
    case 'delete': {
      const opts = await deleteOptions(ctx);
      const { admission } = admit({ deleteOptions: deleteOptionsForAdmission(opts) });
      const { object, removed } = await store.delete(namespace, info.name, { ...opts, dryRun: dryRun || opts.dryRun, admission });
      if (!removed) return respond(ctx, 202, object);
      return respond(ctx, 200, successStatus(store, object));
    }
    case 'deletecollection':
      return respond(ctx, 200, await deleteCollection(ctx, store, namespace, dryRun));
    default:
      throw methodNotAllowed(ctx.req.method ?? '', `${t.plural}`);
  }
}

/**
 * GET of one object (spec 4.5). Without a resourceVersion it is a consistent read: from the cache when the
 * cache has caught up with storage's current revision, else from storage. "0" may be answered by the cache
 * as it is; any other value by the cache once it has reached that revision. In JSON the stored bytes are
 * served as they are, with the resourceVersion spliced in.
 */
async function serveGet(ctx: ResourceContext, store: GenericStore, namespace: string | undefined): Promise<void> {
  const t = store.type;
  const rv = ctx.query.get('resourceVersion') ?? '';
  const atLeast = rv === '' ? 0 : parseResourceVersion(rv);
  const rep = ctx.response ?? negotiateRead(header(ctx.req, 'accept'), OFFERS);
  let value: Uint8Array;
  let revision: number;
  const reader = ctx.registry.reader(t);
  await reader.cacher.ready;
  const fromCache = rv === '' ? await reader.consistent() : atLeast === 0 || (await reader.reached(atLeast, canonicalResourceVersion(rv)));
  if (!fromCache) {
    const kv = await store.getKV(namespace, ctx.info.name, rv === '' ? undefined : atLeast);
    value = kv.value;
    revision = kv.modRevision;
  } else {
    const item = reader.cacher.get(store.key(namespace, ctx.info.name));
    if (!item) throw notFound(store.target(ctx.info.name));
    if (item.unreadable) throw internalError(item.unreadable.message);
    value = item.value;
    revision = item.modRevision;
  }
  // A conversion that calls out (a CRD's webhook): decoded and converted, then served as any object.
  if (t.asyncConversion) {
    const [obj] = await decodeConverted(t, [{ value, modRevision: revision }]);
    if (isMetadataRep(rep)) return sendRep(ctx, rep.mediaType, partialObjectFor(rep, obj as ApiObject));
    if (rep.as) return sendRep(ctx, rep.mediaType, tableFor(t, rep, [obj as ApiObject], ctx.query));
    return sendRep(ctx, rep.mediaType, obj);
  }
  if (isMetadataRep(rep)) return sendRep(ctx, rep.mediaType, partialObjectFor(rep, JSON.parse(objectJson(t, value, revision).toString('utf8')) as ApiObject));
  if (rep.as) return sendRep(ctx, rep.mediaType, tableFor(t, rep, [JSON.parse(objectJson(t, value, revision).toString('utf8')) as ApiObject], ctx.query));
  if (rep.mediaType === JSON_MEDIA) return sendRaw(ctx, JSON_MEDIA, objectJson(t, value, revision));
  return sendRep(ctx, rep.mediaType, JSON.parse(objectJson(t, value, revision).toString('utf8')));
}

function sendRep(ctx: ResourceContext, mediaType: string, obj: unknown): void {
  sendRaw(ctx, mediaType, ctx.req.method === 'HEAD' ? Buffer.alloc(0) : encode(obj, mediaType));
}

/** Get and list responses: gzip above 128 KiB when the client accepts it (spec 4.4). */
function sendRaw(ctx: ResourceContext, mediaType: string, body: Buffer): void {
  if (ctx.req.method === 'HEAD') return sendBytes(ctx.res, 200, mediaType, Buffer.alloc(0));
  sendBytes(ctx.res, 200, mediaType, maybeGzip(ctx.req, ctx.res, body, ctx.features.enabled('APIResponseCompression')));
}

function sub(info: RequestInfo) {
  return info.subresource ? { subresource: info.subresource } : {};
}

/** Writes a stored object as `respond` would write it decoded: in JSON, the stored bytes as they are (encode once). */
function respondStored(ctx: ResourceContext, code: number, t: GenericStore['type'], value: Uint8Array, revision: number): void {
  const rep = ctx.response ?? negotiate(header(ctx.req, 'accept'), OFFERS);
  if (rep.mediaType !== JSON_MEDIA) return respond(ctx, code, decodeFromStorage(t, value, revision));
  warningHeader(ctx);
  sendBytes(ctx.res, code, JSON_MEDIA, ctx.req.method === 'HEAD' ? Buffer.alloc(0) : objectJson(t, value, revision));
}

/** Escaped and bounded (warning-header.ts): it cannot throw, so a stored write is never answered with a 500. */
function warningHeader(ctx: { res: Res; warnings?: string[] }): void {
  const lines = ctx.warnings && ctx.warnings.length > 0 ? warningHeaderValues(ctx.warnings) : [];
  if (lines.length > 0) ctx.res.setHeader('Warning', lines);
}

/** Writes an object in the negotiated media type (JSON or YAML, spec 4.4). */
export function respond(ctx: { req: Req; res: Res; warnings?: string[]; response?: Representation; audit?: AuditRecord | undefined }, code: number, obj: unknown): void {
  const rep = ctx.response ?? negotiate(header(ctx.req, 'accept'), OFFERS);
  if (ctx.audit && (obj as { kind?: unknown } | null)?.kind === 'Status') ctx.audit.status(obj as object);
  warningHeader(ctx);
  sendBytes(ctx.res, code, rep.mediaType, ctx.req.method === 'HEAD' ? Buffer.alloc(0) : encode(obj, rep.mediaType));
}

/** Reads (with their Table forms) and writes alike; watch streams settle their framing in watch.ts. */
function negotiateResponse(req: Req, verb: string, offers = OFFERS, stored = false): Representation | undefined {
  if (verb === 'watch') return undefined;
  const accept = header(req, 'accept');
  if (verb !== 'get' && verb !== 'list') return negotiate(accept, offers);
  // Stored resources also answer metadata-only forms; virtual and extra handlers render tables only.
  return stored ? negotiateRead(accept, offers) : negotiateWithTables(accept, offers);
}

function parseDryRun(q: URLSearchParams): boolean {
  const values = q.getAll('dryRun');
  for (const v of values) {
    if (v !== 'All') throw badRequest(`Invalid dry run value: "${v}": supported values: "All"`);
  }
  return values.length > 0;
}

/** The request's authorization attributes, for follow-up checks (apply creating an object needs create). */
function attributesFor(ctx: ResourceContext): Attributes {
  const i = ctx.info;
  return { user: ctx.user, verb: i.verb, isResourceRequest: true, path: i.path, apiGroup: i.apiGroup, apiVersion: i.apiVersion, resource: i.resource, subresource: i.subresource, namespace: i.namespace, name: i.name };
}


export function listParams(q: URLSearchParams) {
  const limitRaw = q.get('limit');
  let limit: number | undefined;
  if (limitRaw !== null && limitRaw !== '') {
    if (!/^-?\d+$/.test(limitRaw)) throw badRequest(`limit: Invalid value: "${limitRaw}": must be an integer`);
    limit = Number(limitRaw);
  }
  return {
    labelSelector: q.get('labelSelector') ?? '',
    fieldSelector: q.get('fieldSelector') ?? '',
    ...(limit !== undefined ? { limit } : {}),
    ...(q.get('continue') ? { continue: q.get('continue') as string } : {}),
    ...(q.has('resourceVersion') ? { resourceVersion: q.get('resourceVersion') as string } : {}),
    ...(q.get('resourceVersionMatch') ? { resourceVersionMatch: q.get('resourceVersionMatch') as string } : {}),
  };
}

/** DeleteOptions from the body (JSON or YAML) and the query (spec 3.1). */
async function deleteOptions(ctx: ResourceContext) {
  const raw = await readBody(ctx.req);
  let body: Record<string, unknown> = {};
  if (raw.length > 0) {
    const parsed = decodeBody(header(ctx.req, 'content-type'), raw);
    if (!isObject(parsed)) throw badRequest('DeleteOptions must be an object');
    if (parsed.kind !== undefined && parsed.kind !== 'DeleteOptions') {
      throw badRequest(`the body of a delete must be DeleteOptions, not ${String(parsed.kind)}`);
    }
    body = parsed;
    ctx.audit?.requestObject(body);
  }
  const pre = isObject(body.preconditions) ? body.preconditions : undefined;
  const policy = (body.propagationPolicy as string | undefined) ?? ctx.query.get('propagationPolicy') ?? undefined;
  const orphanRaw = body.orphanDependents ?? ctx.query.get('orphanDependents') ?? undefined;
  if (orphanRaw !== undefined && orphanRaw !== null && !['true', 'false'].includes(String(orphanRaw))) {
    throw badRequest(`orphanDependents: Invalid value: "${String(orphanRaw)}": must be a boolean`);
  }
  const orphanDependents = orphanRaw === undefined || orphanRaw === null ? undefined : String(orphanRaw) === 'true';
  const dryRun = Array.isArray(body.dryRun) ? body.dryRun.length > 0 : false;
  if (Array.isArray(body.dryRun) && body.dryRun.some((v) => v !== 'All')) {
    throw badRequest(`Invalid dry run value: ${JSON.stringify(body.dryRun)}: supported values: "All"`);
  }
  const grace = body.gracePeriodSeconds ?? ctx.query.get('gracePeriodSeconds');
  if (grace !== undefined && grace !== null && !/^-?\d+$/.test(String(grace))) {
    throw badRequest(`gracePeriodSeconds: Invalid value: "${String(grace)}": must be an integer`);
  }
  return {
    ...(pre ? { preconditions: pre as { uid?: string; resourceVersion?: string } } : {}),
    ...(policy ? { propagationPolicy: policy } : {}),
    ...(orphanDependents !== undefined ? { orphanDependents } : {}),
    ...(grace !== undefined && grace !== null ? { gracePeriodSeconds: Number(grace) } : {}),
    dryRun,
  };
}

/** The DeleteOptions admission plugins see (without the dry-run flag, which the request carries). */
function deleteOptionsForAdmission(opts: Awaited<ReturnType<typeof deleteOptions>>): Record<string, unknown> {
  return {
    ...(opts.preconditions ? { preconditions: opts.preconditions } : {}),
    ...(opts.propagationPolicy ? { propagationPolicy: opts.propagationPolicy } : {}),
    ...(opts.orphanDependents !== undefined ? { orphanDependents: opts.orphanDependents } : {}),
    ...(opts.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: opts.gracePeriodSeconds } : {}),
  };
}

function successStatus(store: GenericStore, obj: ApiObject) {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: { name: obj.metadata?.name, group: store.type.group, kind: store.type.plural, uid: obj.metadata?.uid },
  };
}

async function deleteCollection(ctx: ResourceContext, store: GenericStore, namespace: string | undefined, dryRun: boolean) {
  const t = store.type;
  const { items } = await listObjects(t, ctx.registry.backend, namespace, listParams(ctx.query));
  const opts = await deleteOptions(ctx);
  const deleted: ApiObject[] = [];
  for (const item of items) {
    try {
      const itemNamespace = item.metadata?.namespace;
      const admission = writeAdmission(ctx.admission, t, {
        namespace: itemNamespace,
        subresource: '',
        user: ctx.user,
        fields: { dryRun: dryRun || opts.dryRun, deleteOptions: deleteOptionsForAdmission(opts) },
        warnings: ctx.warnings ?? [],
      });
      const r = await store.delete(itemNamespace, item.metadata?.name as string, { ...opts, dryRun: dryRun || opts.dryRun, admission });
      deleted.push(r.object);
    } catch (e) {
      // Gone in the meantime: nothing left to delete.
      if ((e as { code?: number }).code !== 404) throw e;
    }
  }
  return { kind: t.listKind, apiVersion: apiVersionOf(t.group, t.version), metadata: {}, items: deleted };
}

