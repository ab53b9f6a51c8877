import type { Authenticator, UserInfo } from '../authn/index.js';
import { forbiddenMessage, SUPERUSER_GROUP, type Attributes, type Authorizer } from '../authz/index.js';
import { forbidden, internalError, isStatusError, StatusError, tooManyRequests } from '../errors/index.js';
import { sendStatusError, type Req, type Res } from './http.js';
import type { AuditRecord } from '../audit/record.js';
import type { AuditStage } from './audit-stage.js';
import { impersonate, namesImpersonation } from './impersonation.js';
import { APF_FLOWSCHEMA_UID_HEADER, APF_PRIORITY_LEVEL_UID_HEADER } from '../api/naming.js';
import type { FlowControl, Level } from '../flowcontrol/index.js';
import { isLongRunning } from './audit-stage.js';
import { parseRequestInfo, parseRequestUrl, type RequestInfo, type RequestUrl } from './request-info.js';
import type { RequestMetrics, TrackedRequest } from './request-metrics.js';

/** What the final handler gets once a request has passed every filter. */
export interface RequestContext {
  req: Req;
  res: Res;
  url: RequestUrl;
  info: RequestInfo;
  user: UserInfo;
  /** This request's audit event, when the audit policy records it (handlers add objects and annotations). */
  audit: AuditRecord | undefined;
  /** Set by a request observer (src/testing/): ends this request's watch early, with a clean end. */
  signal?: AbortSignal | undefined;
}

/**
 * Sees requests once the user is known (test tooling: recording, injected faults). Absent in production:
 * the chain then does no extra work at all.
 */
export interface RequestObserver {
  begin(req: Req, info: RequestInfo, user: UserInfo): ObservedRequest;
}

export interface ObservedRequest {
  /**
   * Just before the handler (after authorization): may throw a StatusError, answer the request itself
   * (`handled`), give the handler a replacement request (its body already read) or a signal ending a watch.
   */
  admit(res: Res): Promise<{ req?: Req; signal?: AbortSignal; handled?: boolean }> | undefined;
  /** After the answer, with its status code. */
  end(statusCode: number): void;
}

export interface ChainDeps {
  authenticator: Authenticator;
  authorizer: Authorizer;
  handler(ctx: RequestContext): Promise<void>;
  /** Concurrency limits (`--max-requests-inflight`, `--max-mutating-requests-inflight`); 0 = unlimited. */
  maxInFlight?: { readOnly: number; mutating: number };
  /** Priority and fairness (`--enable-priority-and-fairness`); when set, it replaces `maxInFlight`. */
  flowControl?: FlowControl;
  /** Called for failures that are not StatusErrors (bugs); the client gets a 500 Status. */
  onInternalError?(e: unknown, ctx: { method: string; path: string }): void;
  /** Set when an audit policy and a backend are configured (audit-stage.ts). */
  audit?: AuditStage;
  /** Request, in-flight and authentication metrics (request-metrics.ts). */
  metrics?: RequestMetrics;
  /** Test tooling's view of each request (RequestObserver). */
  observer?: RequestObserver;
}

/**
 * The filter chain, in order, top to bottom. Each stage either passes the request on or ends it with a
 * Status error. Stages still to come have their place marked here.
 */
export function buildChain(deps: ChainDeps): (req: Req, res: Res) => Promise<void> {
  const limits = deps.maxInFlight ?? { readOnly: 0, mutating: 0 };
  const inFlight = { readOnly: 0, mutating: 0 };
  const audit = deps.audit;
  const flowControl = deps.flowControl;
  const observer = deps.observer;
  return async (req, res) => {
    const method = req.method ?? 'GET';
    let path = '/';
    let slot: 'readOnly' | 'mutating' | undefined;
    let seat: Level | undefined;
    // With audit on, every response carries its Audit-Id, even one that fails before authentication.
    const arrival = audit?.arrive(req, res);
    let record: AuditRecord | undefined;
    const started = deps.metrics ? performance.now() : 0;
    let tracked: TrackedRequest | undefined;
    let observed: ObservedRequest | undefined;
    try {
      // 1. Request info: what is being asked for (pure parse of method + URL).
      const url = parseRequestUrl(req.url ?? '/');
      path = url.pathname;
      const info = parseRequestInfo(method, url.pathname, url.searchParams);
      // 2. Authentication: who is asking (401 for rejected credentials).
      // Repeated headers (one group per X-Remote-Group / Impersonate-Group line) must stay separate.
      const headers = (req.headersDistinct ?? req.headers) as AuthHeaders;
      let authenticated: UserInfo | undefined;
      try {
        authenticated = await deps.authenticator.authenticate({ headers, peerCertificate: peerCertificate(req) });
        if (!authenticated) throw new StatusError(401, 'Unauthorized', 'Unauthorized');
      } catch (e) {
        deps.metrics?.rejected(started, e);
        if (audit && arrival && isStatusError(e)) await audit.unauthenticated(req, info, arrival, e);
        throw e;
      }
      if (deps.metrics) tracked = deps.metrics.begin(started, authenticated, info, url, req);
      // 3. Audit: the policy sets the level; the RequestReceived event is written (audit-stage.ts).
      if (audit && arrival) {
        // A promise only while a backend is still writing RequestReceived (no extra turn otherwise).
        const begun = audit.begin(req, res, info, authenticated, arrival);
        record = begun instanceof Promise ? await begun : begun;
      }
      // 4. Impersonation: Impersonate-* headers, each authorized with the impersonate verb (spec 5.7).
      // Nearly every request names nobody: no promise (and no turn of the microtask queue) for it.
      const user = namesImpersonation(headers) ? await impersonate(headers, authenticated, deps.authorizer) : authenticated;
      if (record && user !== authenticated) record.impersonated(user);
      if (observer) observed = observer.begin(req, info, user);
      // 4b. Priority and fairness: classify, then a seat, a place in a queue, or 429 with Retry-After.
      // Long-running requests (watches, exec, ...) are classified but hold no seat.
      if (flowControl) {
        const schema = flowControl.classify(user, info);
        const level = flowControl.levelOf(schema);
        res.setHeader(APF_FLOWSCHEMA_UID_HEADER, schema.uid);
        res.setHeader(APF_PRIORITY_LEVEL_UID_HEADER, level.uid);
        if (!isLongRunning(info)) {
          const admitted = flowControl.admit(schema, level, user, info);
          seat = admitted instanceof Promise ? await admitted : admitted;
        }
      } else if (!isLongRunning(info) && !user.groups.includes(SUPERUSER_GROUP)) {
        // 4b'. Without it, max in flight: past the limit, 429 with Retry-After (system:masters exempt).
        slot = method === 'GET' || method === 'HEAD' ? 'readOnly' : 'mutating';
        if (limits[slot] > 0 && inFlight[slot] >= limits[slot]) {
          slot = undefined;
          throw tooManyRequests('Too many requests, please try again later.', 1);
        }
        inFlight[slot]++;
      }
      // 5. Authorization: may this user do this (403 otherwise).
      const attrs = attributes(user, info);
      const decision = await deps.authorizer.authorize(attrs);
      if (record) audit?.authorized(record, decision.decision === 'allow', decision.reason);
      if (decision.decision !== 'allow') throw forbidden(forbiddenMessage(attrs, decision.reason), forbiddenTarget(info));
      // 6. Admission runs inside the registry's write path, after decoding and defaulting (admission issue).
      // 6b. A request observer's faults and watch endings (tests only).
      const admitted = observed?.admit(res);
      const hook = admitted ? await admitted : undefined;
      if (hook?.handled) return;
      // 7. The handler: resources, discovery, health, OpenAPI.
      await deps.handler({ req: hook?.req ?? req, res, url, info, user, audit: record, signal: hook?.signal });
    } catch (e) {
      const accept = req.headers.accept;
      if (isStatusError(e)) {
        record?.status(e.toStatus());
        return sendStatusError(res, e, accept);
      }
      if (record) audit?.panic(record, e);
      deps.onInternalError?.(e, { method, path });
      sendStatusError(res, internalError(e instanceof Error ? e.message : String(e)), accept);
    } finally {
      if (slot) inFlight[slot]--;
      seat?.release();
      if (tracked) deps.metrics?.end(tracked, res);
      observed?.end(res.statusCode);
      const completing = record && audit?.complete(record, res);
      if (completing) await completing;
    }
  };
}

type AuthHeaders = Record<string, string | string[] | undefined>;

/**
 * The client certificate chain as sent; the authenticators verify it against their own CAs. Read once per
 * HTTP/2 connection, which carries many requests and cannot renegotiate TLS (RFC 9113 §9.2.1); an HTTP/1.1
 * connection could, so it is read per request.
 */
function peerCertificate(req: Req): unknown {
  const socket = req.socket as ({ getPeerCertificate?: (detailed: boolean) => unknown; alpnProtocol?: unknown } & object) | undefined;
  if (!socket?.getPeerCertificate) return undefined;
  if (socket.alpnProtocol !== 'h2') return socket.getPeerCertificate(true);
  let cert = h2PeerCertificates.get(socket);
  if (cert === undefined) h2PeerCertificates.set(socket, (cert = socket.getPeerCertificate(true)));
  return cert;
}
const h2PeerCertificates = new WeakMap<object, unknown>();

export function attributes(user: UserInfo, info: RequestInfo): Attributes {
  return {
    user,
    verb: info.verb,
    isResourceRequest: info.isResourceRequest,
    path: info.path,
    apiGroup: info.apiGroup,
    apiVersion: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource,
    namespace: info.namespace,
    name: info.name,
  };
}

function forbiddenTarget(info: RequestInfo) {
  return info.isResourceRequest ? { group: info.apiGroup, kind: info.resource, ...(info.name ? { name: info.name } : {}) } : {};
}
