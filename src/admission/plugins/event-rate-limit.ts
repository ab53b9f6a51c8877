/**
 * EventRateLimit (reference plugin, off by default): token buckets on Event writes, per the limits of its
 * configuration (event-rate-limit-config.ts). Every limit takes its token for each request; when any bucket
 * is empty the request fails with 429 TooManyRequests, naming each limit reached, and a Retry-After of the
 * longest wait. Dry-run writes never reach storage and so are not counted.
 */
import type { ApiObject } from '../../api/types.js';
import { isObject } from '../../api/types.js';
import { tooManyRequests } from '../../errors/index.js';
import type { AdmissionDeps, AdmissionOperation, AdmissionPlugin, AdmissionRequest } from '../types.js';
import { parseEventRateLimitConfiguration, type EventLimit, type LimitType } from './event-rate-limit-config.js';
import { LruMap, TokenBucket, type Clock } from './token-bucket.js';

export const EVENT_RATE_LIMIT = 'EventRateLimit';

/** Core events only: the reference limits the core Event kind, not writes through the events group. */
const isEventWrite = (req: AdmissionRequest) => req.resource.resource === 'events' && req.subResource === '' && req.resource.group === '';

const str = (v: unknown) => (typeof v === 'string' ? v : '');

/**
 * The SourceAndObject key: the reporting source and the object the event is about, run together as the
 * reference builds it. Core events carry them in `source`/`involvedObject`, events/v1 in
 * `deprecatedSource`/`regarding`.
 */
export function sourceAndObjectKey(event: ApiObject | undefined): string {
  if (!event) return '';
  const source = isObject(event.source) ? event.source : isObject(event.deprecatedSource) ? event.deprecatedSource : {};
  const about = isObject(event.involvedObject) ? event.involvedObject : isObject(event.regarding) ? event.regarding : {};
  return str(source.component) + str(source.host) + str(about.kind) + str(about.namespace) + str(about.name) + str(about.uid) + str(about.apiVersion);
}

/** The bucket key a request falls under for one type of limit. */
export function limitKey(type: LimitType, req: AdmissionRequest): string {
  switch (type) {
    case 'Server':
      return '';
    case 'Namespace':
      return req.namespace;
    case 'User':
      return req.user.username;
    case 'SourceAndObject':
      return sourceAndObjectKey(req.object);
  }
}

/** One configured limit: its buckets (one for Server, an LRU of them otherwise). */
class Enforcer {
  private readonly single: TokenBucket | undefined;
  private readonly buckets: LruMap<TokenBucket> | undefined;

  constructor(readonly limit: EventLimit, now: number) {
    if (limit.type === 'Server') this.single = new TokenBucket(limit.qps, limit.burst, now);
    else this.buckets = new LruMap(limit.cacheSize);
  }

  bucket(key: string, now: number): TokenBucket {
    return this.single ?? this.buckets!.get(key, () => new TokenBucket(this.limit.qps, this.limit.burst, now));
  }
}

export class EventRateLimitPlugin implements AdmissionPlugin {
  readonly name = EVENT_RATE_LIMIT;
  private readonly enforcers: Enforcer[];

  constructor(limits: readonly EventLimit[], private readonly clock: Clock = () => performance.now()) {
    const now = clock();
    this.enforcers = limits.map((l) => new Enforcer(l, now));
  }

  handles(op: AdmissionOperation): boolean {
    return op === 'CREATE' || op === 'UPDATE';
  }

  validate(req: AdmissionRequest): void {
    if (!isEventWrite(req) || req.dryRun) return;
    const now = this.clock();
    let reached: string[] | undefined;
    let waitSeconds = 0;
    for (const e of this.enforcers) {
      const key = limitKey(e.limit.type, req);
      const bucket = e.bucket(key, now);
      if (bucket.tryTake(now)) continue;
      (reached ??= []).push(`limit reached on type ${e.limit.type} for key ${key}`);
      waitSeconds = Math.max(waitSeconds, bucket.secondsUntilToken(now));
    }
    if (!reached) return;
    // One reason alone, several in brackets: the reference's aggregate-error form.
    const why = reached.length === 1 ? reached[0] : `[${reached.join(', ')}]`;
    throw tooManyRequests(`Too many requests: ${why}`, Math.max(1, Math.ceil(waitSeconds)));
  }
}

export function eventRateLimitPlugin(_deps: AdmissionDeps, configuration: unknown): AdmissionPlugin {
  return new EventRateLimitPlugin(parseEventRateLimitConfiguration(configuration));
}
