/**
 * The audit stage of the filter chain (spec 2.11, 6.5): the Audit-Id of each request, the policy decision
 * after authentication, and the events of each stage. Built only when a policy and a backend are configured;
 * otherwise the chain has no stage and pays nothing.
 */
import { gunzipSync } from 'node:zlib';
import { AUDIT_GROUP, AUDIT_AUTHZ_DECISION_ANNOTATION, AUDIT_AUTHZ_REASON_ANNOTATION, AUDIT_DEPRECATED_ANNOTATION, AUDIT_REMOVED_RELEASE_ANNOTATION, PROTOBUF_MEDIA_TYPE } from '../api/naming.js';
import { auditUser, authFailureMessage, microTime, newAuditID, peerIP, preciseNow, sourceIPs, stripManagedFields, truncateUserAgent } from '../audit/event.js';
import type { PolicyAttributes, RequestAuditConfig } from '../audit/policy.js';
import { AuditRecord } from '../audit/record.js';
import type { AuditEvent, AuditSink } from '../audit/types.js';
import { decodeBody, JSON_MEDIA, YAML_MEDIA } from '../encoding/index.js';
import { internalError, type StatusError } from '../errors/index.js';
import type { Req, Res } from './http.js';
import type { RequestInfo } from './request-info.js';

export const AUDIT_ID_HEADER = 'Audit-Id';
const EVENT_API_VERSION = `${AUDIT_GROUP}/v1`;

/** Requests the reference treats as long-running: they get a ResponseStarted event when their headers go out. */
const LONG_RUNNING_VERBS = new Set(['watch', 'proxy']);
const LONG_RUNNING_SUBRESOURCES = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);
export const isLongRunning = (info: RequestInfo) => LONG_RUNNING_VERBS.has(info.verb) || (info.isResourceRequest && LONG_RUNNING_SUBRESOURCES.has(info.subresource));

export interface AuditStageDeps {
  evaluate(a: PolicyAttributes): RequestAuditConfig | undefined;
  sink: AuditSink;
  /** blocking-strict: a RequestReceived event that cannot be stored fails the request (500). */
  strict: boolean;
  log(msg: string): void;
}

/** Per-request timing and identity, taken when the request arrives. */
export interface AuditArrival {
  id: string;
  receivedAt: number;
}

export class AuditStage {
  constructor(private readonly deps: AuditStageDeps) {}

  /** Runs first: the client's Audit-ID or a new UUID, echoed in the `Audit-Id` response header. */
  arrive(req: Req, res: Res): AuditArrival {
    const given = req.headers['audit-id'];
    const id = typeof given === 'string' && given !== '' ? given : newAuditID();
    res.setHeader(AUDIT_ID_HEADER, id);
    return { id, receivedAt: preciseNow() };
  }

  /**
   * After authentication: the request's record, or undefined at level None. Resolves once the
   * RequestReceived event is written (blocking modes); in blocking-strict a failed write is a 500.
   */
  begin(req: Req, res: Res, info: RequestInfo, user: { username: string; groups: string[]; uid?: string; extra?: Record<string, string[]> }, arrival: AuditArrival): AuditRecord | undefined | Promise<AuditRecord | undefined> {
    const config = this.deps.evaluate(policyAttributes(info, user));
    if (!config) return undefined;
    const record = new AuditRecord(this.event(req, info, config, arrival, auditUser(user)), config, this.deps.sink);
    if (isLongRunning(info)) {
      record.longRunning = true;
      onResponseStart(res, () => this.started(record, res));
    }
    else if (config.level === 'RequestResponse') captureBody(record, res);
    if (this.deps.strict) {
      return record.emitStrict('RequestReceived').then((ok) => {
        if (!ok) throw storeFailed();
        return record;
      });
    }
    const pending = record.emit('RequestReceived');
    return pending ? pending.then(() => record) : record;
  }

  /**
   * A request whose credentials were rejected: one ResponseStarted event, matched with no user (as the
   * reference audits it), saying which kinds of credentials were tried.
   */
  unauthenticated(req: Req, info: RequestInfo, arrival: AuditArrival, e: StatusError): void | Promise<void> {
    const config = this.deps.evaluate(policyAttributes(info, undefined));
    if (!config) return undefined;
    const record = new AuditRecord(this.event(req, info, config, arrival, { username: '' }), config, this.deps.sink);
    const query = (req.url ?? '').includes('access_token=') && new URLSearchParams((req.url ?? '').split('?')[1] ?? '').get('access_token');
    const socket = req.socket as { getPeerCertificate?: () => object | null } | undefined;
    const cert = socket?.getPeerCertificate?.();
    const message = authFailureMessage(headerText(req, 'authorization'), Boolean(query), Boolean(cert && Object.keys(cert).length > 0));
    return record.emit('ResponseStarted', e.code, { metadata: {}, message });
  }

  /** The authorization decision and its reason, as annotations. */
  authorized(record: AuditRecord, allowed: boolean, reason: string | undefined): void {
    record.annotate(AUDIT_AUTHZ_DECISION_ANNOTATION, allowed ? 'allow' : 'forbid');
    record.annotate(AUDIT_AUTHZ_REASON_ANNOTATION, reason ?? '');
  }

  /** An internal error escaped the handler: the Panic stage, and no ResponseComplete after it. */
  panic(record: AuditRecord, e: unknown): void {
    record.panicked = true;
    const message = `APIServer panic'd: ${e instanceof Error ? e.message : String(e)}`;
    void record.emit('Panic', undefined, { metadata: {}, status: 'Failure', message, reason: 'InternalError', code: 500 });
  }

  /** The request is over: ResponseStarted for a long-running one that never answered, then ResponseComplete. */
  complete(record: AuditRecord, res: Res): void | Promise<void> {
    if (record.panicked) return undefined;
    if (record.longRunning && !res.headersSent) {
      // The connection closed before anything was sent: the reference records a made-up success.
      const early = { metadata: {}, status: 'Success', message: 'Connection closed early', code: 200 };
      if (!record.responseStarted) void record.emit('ResponseStarted', undefined, early);
      return record.emit('ResponseComplete', undefined, early);
    }
    finishBody(record, res);
    return record.emit('ResponseComplete', res.statusCode);
  }

  private started(record: AuditRecord, res: Res): void {
    record.responseStarted = true;
    void record.emit('ResponseStarted', res.statusCode);
  }

  private event(req: Req, info: RequestInfo, config: RequestAuditConfig, arrival: AuditArrival, user: AuditEvent['user']): AuditEvent {
    const received = microTime(arrival.receivedAt);
    const ev: AuditEvent = {
      kind: 'Event',
      apiVersion: EVENT_API_VERSION,
      level: config.level,
      auditID: arrival.id,
      stage: 'RequestReceived',
      requestURI: req.url ?? '/',
      verb: info.verb,
      user,
      sourceIPs: sourceIPs(headerText(req, 'x-forwarded-for'), headerText(req, 'x-real-ip'), peerIP(req.socket as { remoteAddress?: string } | undefined), true),
      requestReceivedTimestamp: received,
      stageTimestamp: received,
    };
    const ua = truncateUserAgent(headerText(req, 'user-agent'));
    if (ua !== undefined) ev.userAgent = ua;
    if (info.isResourceRequest) ev.objectRef = objectRef(info);
    return ev;
  }
}

/** Records a deprecated API's use (spec 7): `<prefix>/deprecated` and, when planned, the removal release. */
export function auditDeprecation(record: AuditRecord | undefined, removedRelease: string): void {
  if (!record) return;
  record.annotate(AUDIT_DEPRECATED_ANNOTATION, 'true');
  if (removedRelease) record.annotate(AUDIT_REMOVED_RELEASE_ANNOTATION, removedRelease);
}

const storeFailed = () => internalError('failed to store audit event');

function headerText(req: Req, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

export function policyAttributes(info: RequestInfo, user: PolicyAttributes['user']): PolicyAttributes {
  return {
    user,
    verb: info.verb,
    isResourceRequest: info.isResourceRequest,
    path: info.path,
    apiGroup: info.apiGroup,
    namespace: info.namespace,
    resource: info.resource,
    subresource: info.subresource,
    name: info.name,
  };
}

function objectRef(info: RequestInfo): NonNullable<AuditEvent['objectRef']> {
  const ref: NonNullable<AuditEvent['objectRef']> = {};
  if (info.resource) ref.resource = info.resource;
  if (info.namespace) ref.namespace = info.namespace;
  if (info.name) ref.name = info.name;
  if (info.apiGroup) ref.apiGroup = info.apiGroup;
  if (info.apiVersion) ref.apiVersion = info.apiVersion;
  if (info.subresource) ref.subresource = info.subresource;
  return ref;
}

type Writer = (chunk?: Buffer | string, cb?: unknown) => unknown;

/** Calls `fn` once, just before the response's headers go out (flushHeaders, or the first write or end). */
function onResponseStart(res: Res, fn: () => void): void {
  const r = res as unknown as Record<string, Writer | undefined>;
  const names = ['flushHeaders', 'write', 'end'] as const;
  const originals = names.map((n) => r[n]);
  const restore = () => names.forEach((n, i) => (r[n] = originals[i]));
  names.forEach((n, i) => {
    const original = originals[i];
    if (!original) return;
    r[n] = function (this: unknown, ...args: unknown[]) {
      restore();
      if (!res.headersSent) fn();
      return (original as (...a: unknown[]) => unknown).apply(res, args);
    } as Writer;
  });
}

const bodies = new WeakMap<AuditRecord, Buffer[]>();

/** At RequestResponse: keeps what the handler writes, to decode it as the event's responseObject. */
function captureBody(record: AuditRecord, res: Res): void {
  const chunks: Buffer[] = [];
  bodies.set(record, chunks);
  const r = res as unknown as Record<string, Writer>;
  for (const n of ['write', 'end'] as const) {
    const original = r[n] as Writer;
    r[n] = function (this: unknown, ...args: unknown[]) {
      const c = args[0];
      if (typeof c === 'string' || Buffer.isBuffer(c)) chunks.push(typeof c === 'string' ? Buffer.from(c) : c);
      return (original as (...a: unknown[]) => unknown).apply(res, args);
    } as Writer;
  }
}

/** Decodes a captured JSON, YAML or protobuf body; anything else (text, streams) is not an object to record. */
function finishBody(record: AuditRecord, res: Res): void {
  const chunks = bodies.get(record);
  if (!chunks || chunks.length === 0 || record.event.responseObject !== undefined) return;
  try {
    let body = Buffer.concat(chunks);
    if (String(res.getHeader('content-encoding') ?? '') === 'gzip') body = gunzipSync(body);
    const type = String(res.getHeader('content-type') ?? '');
    const media = type.split(';')[0]?.trim() ?? '';
    if (media !== JSON_MEDIA && media !== YAML_MEDIA && media !== PROTOBUF_MEDIA_TYPE) return;
    const obj = media === JSON_MEDIA ? JSON.parse(body.toString('utf8')) : decodeBody(media, body, [media]);
    if (record.config.omitManagedFields && obj && typeof obj === 'object') stripManagedFields(obj as object);
    record.event.responseObject = obj;
  } catch {
    // A body that does not decode is left out of the event rather than failing the request.
  }
}
