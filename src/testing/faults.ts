/**
 * The test kit's request observer (server/chain.ts RequestObserver): records requests, answers matching
 * ones with injected Status errors, ends open watches on demand, and makes the next watch from an old
 * resourceVersion expire (410), so that client retry and relist logic can be tested.
 */
import type { UserInfo } from '../authn/index.js';
import { StatusError, type StatusReason } from '../errors/index.js';
import type { ObservedRequest, RequestObserver } from '../server/chain.js';
import { readBody, sendStatusError, type Req, type Res } from '../server/http.js';
import type { RequestInfo } from '../server/request-info.js';

export interface RequestMatch {
  /** Request verb: get, list, watch, create, update, patch, delete, deletecollection. Any when left out. */
  verb?: string;
  /** Plural resource name (`configmaps`); any when left out. */
  resource?: string;
  subresource?: string;
  /** API group ('' is the core group); any when left out. */
  group?: string;
  namespace?: string;
  name?: string;
}

export interface Injection extends RequestMatch {
  /** How many matching requests (or watches) it applies to. Default: every one until cancelled; 1 for expireNextWatch. */
  times?: number;
  /** Answer with this Status code (409, 429, 500, 504, ...). */
  status?: number;
  /** The Status message (default: one naming the injection). */
  message?: string;
  /** For 429, 503 and 504: the Retry-After seconds (default 1). */
  retryAfterSeconds?: number;
  /** End the matching watches that are open now, cleanly. */
  closeWatch?: true;
  /** The next matching watch that gives a resourceVersion answers 410 Expired. */
  expireNextWatch?: true;
}

export interface InjectionHandle {
  /** Matching requests answered so far (watches closed, for closeWatch). */
  readonly hits: number;
  cancel(): void;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: string;
  user: string;
  groups: readonly string[];
  verb: string;
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  /** 0 while the request is still being served (an open watch). */
  status: number;
  /** The request body as text, with `recordBodies`. */
  body?: string;
}

const REASONS: Record<number, StatusReason> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  410: 'Gone',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};
const RETRY_CODES = new Set([429, 503, 504]);
const HANDLED = Promise.resolve({ handled: true });
const BODY_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);
/** Recorded requests kept; the oldest are dropped past it, so long suites do not grow without bound. */
const MAX_RECORDED = 10_000;

interface Active {
  spec: Injection;
  left: number;
  hits: number;
}

interface OpenWatch {
  info: RequestInfo;
  stop: AbortController;
}

export function matches(m: RequestMatch, info: RequestInfo): boolean {
  return (
    (m.verb === undefined || m.verb === info.verb) &&
    (m.resource === undefined || m.resource === info.resource) &&
    (m.subresource === undefined || m.subresource === info.subresource) &&
    (m.group === undefined || m.group === info.apiGroup) &&
    (m.namespace === undefined || m.namespace === info.namespace) &&
    (m.name === undefined || m.name === info.name)
  );
}

/** Checks an injection; every mistake is an Error naming the field. */
export function checkInjection(spec: Injection): void {
  const modes = [spec.status !== undefined, spec.closeWatch === true, spec.expireNextWatch === true].filter(Boolean).length;
  if (modes !== 1) throw new Error('inject: give exactly one of status, closeWatch: true, expireNextWatch: true');
  if (spec.status !== undefined && !REASONS[spec.status]) throw new Error(`inject: status ${spec.status} is not one of ${Object.keys(REASONS).join(', ')}`);
  if (spec.times !== undefined && (!Number.isInteger(spec.times) || spec.times < 1)) throw new Error('inject: times must be a positive integer');
  if (spec.retryAfterSeconds !== undefined && (!Number.isInteger(spec.retryAfterSeconds) || spec.retryAfterSeconds < 0)) throw new Error('inject: retryAfterSeconds must be a non-negative integer');
  if (spec.expireNextWatch && spec.verb !== undefined && spec.verb !== 'watch') throw new Error('inject: expireNextWatch applies to watches; leave verb out or set it to watch');
}

export function injectedError(spec: Injection, info: RequestInfo): StatusError {
  const code = spec.status as number;
  const message = spec.message ?? `injected fault: ${code} for ${info.verb} ${info.resource || info.path}`;
  if (!RETRY_CODES.has(code)) return new StatusError(code, REASONS[code] as StatusReason, message);
  const seconds = spec.retryAfterSeconds ?? 1;
  return new StatusError(code, REASONS[code] as StatusReason, message, { retryAfterSeconds: seconds }, { 'Retry-After': String(seconds) });
}

export class FaultInjector implements RequestObserver {
  private readonly injections = new Set<Active>();
  private readonly watches = new Set<OpenWatch>();
  private recorded: RecordedRequest[] = [];

  constructor(private readonly recordBodies = false) {}

  inject(spec: Injection): InjectionHandle {
    checkInjection(spec);
    const active: Active = { spec: { ...spec }, left: spec.times ?? (spec.expireNextWatch ? 1 : Infinity), hits: 0 };
    if (spec.closeWatch) {
      for (const w of [...this.watches]) {
        if (active.left === 0) break;
        if (!matches(spec, w.info)) continue;
        active.left--;
        active.hits++;
        w.stop.abort();
      }
    } else this.injections.add(active);
    return {
      get hits() {
        return active.hits;
      },
      cancel: () => void this.injections.delete(active),
    };
  }

  /** Ends every open watch (a reset does, so that clients re-list the restored state). */
  closeAllWatches(): void {
    for (const w of [...this.watches]) w.stop.abort();
  }

  requests(): RecordedRequest[] {
    return this.recorded.map((r) => ({ ...r }));
  }

  clearRequests(): void {
    this.recorded = [];
  }

  begin(req: Req, info: RequestInfo, user: UserInfo): ObservedRequest {
    const q = (req.url ?? '/').indexOf('?');
    const entry: RecordedRequest = {
      method: req.method ?? 'GET',
      path: q < 0 ? (req.url ?? '/') : (req.url as string).slice(0, q),
      query: q < 0 ? '' : (req.url as string).slice(q + 1),
      user: user.username,
      groups: user.groups,
      verb: info.verb,
      group: info.apiGroup,
      resource: info.resource,
      subresource: info.subresource,
      namespace: info.namespace,
      name: info.name,
      status: 0,
    };
    this.recorded.push(entry);
    if (this.recorded.length > 2 * MAX_RECORDED) this.recorded.splice(0, this.recorded.length - MAX_RECORDED);
    let watch: OpenWatch | undefined;
    return {
      // Faults are answered here rather than thrown: a server of another naming runs in another module graph,
      // whose chain would not recognize this graph's StatusError.
      admit: (res) => {
        const fault = this.take(info, req);
        if (fault instanceof StatusError) sendStatusError(res, fault, req.headers.accept);
        else if (fault === 'expire') expireWatch(res, req, info);
        if (fault) return HANDLED;
        if (info.verb === 'watch') {
          watch = { info, stop: new AbortController() };
          this.watches.add(watch);
          return Promise.resolve({ signal: watch.stop.signal });
        }
        if (this.recordBodies && BODY_VERBS.has(info.verb)) return withBody(req, res, entry);
        return undefined;
      },
      end: (status) => {
        entry.status = status;
        if (watch) this.watches.delete(watch);
      },
    };
  }

  /** The first injection matching this request, used up by one. */
  private take(info: RequestInfo, req: Req): StatusError | 'expire' | undefined {
    for (const a of this.injections) {
      if (!matches(a.spec, info)) continue;
      if (a.spec.expireNextWatch && (info.verb !== 'watch' || !hasOldResourceVersion(req))) continue;
      a.hits++;
      if (--a.left <= 0) this.injections.delete(a);
      return a.spec.expireNextWatch ? 'expire' : injectedError(a.spec, info);
    }
    return undefined;
  }
}

/** A watch from a resourceVersion the client got earlier ("" and "0" ask for any state: nothing to expire). */
function hasOldResourceVersion(req: Req): boolean {
  const rv = new URLSearchParams((req.url ?? '').split('?')[1] ?? '').get('resourceVersion');
  return rv !== null && rv !== '' && rv !== '0';
}

/**
 * As the reference's watch cache answers a too old resourceVersion: 200, then one ERROR event holding a
 * 410 Expired Status, then the end. Protobuf watches get the Status as the HTTP answer instead.
 */
function expireWatch(res: Res, req: Req, info: RequestInfo): void {
  const rv = new URLSearchParams((req.url ?? '').split('?')[1] ?? '').get('resourceVersion');
  const status = new StatusError(410, 'Expired', `too old resource version: ${rv} (injected expiry of ${info.resource} watches)`);
  const accept = String(req.headers.accept ?? '');
  if (accept !== '' && !accept.includes('json') && !accept.includes('*/*')) return sendStatusError(res, status, accept);
  res.statusCode = 200;
  res.setHeader('Content-Type', 'application/json');
  res.end(`${JSON.stringify({ type: 'ERROR', object: status.toStatus() })}\n`);
}

/** Reads the body once for the record; the handler gets a request whose body is that buffer. */
async function withBody(req: Req, res: Res, entry: RecordedRequest): Promise<{ req?: Req; handled?: boolean }> {
  let body: Buffer;
  try {
    body = await readBody(req);
  } catch (e) {
    if (!(e instanceof StatusError)) throw e;
    sendStatusError(res, e, req.headers.accept);
    return { handled: true };
  }
  entry.body = body.toString('utf8');
  const replay = Object.create(req as object) as Req;
  replay.readAll = async (limit, tooLarge) => {
    if (body.length > limit) throw tooLarge();
    return body;
  };
  return { req: replay };
}
