/**
 * The webhook authorizer (spec 5.7 items 5 and 6): asks a remote service with a SubjectAccessReview and
 * caches its answers (allow for `authorizedTTL`, anything else for `unauthorizedTTL`). A warm cache answers
 * with a promise settled long ago: no I/O and no new allocation but the cache key. When the webhook
 * cannot answer (down, slow past the timeout, garbage, non-2xx), the failure policy decides.
 */
import { evaluateMatchConditions, type MatchCondition } from '../../cel/index.js';
import type { WebhookBackend } from '../../util/webhook-backend.js';
import type { WebhookConnection } from '../../util/webhook-kubeconfig.js';
import type { Attributes, Authorizer, Decision } from '../index.js';
import { ExpiringCache } from './cache.js';
import type { RequestVars } from './conditions.js';
import { parseSarAnswer, sarBody, sarSpec, type SarSpec, type SarVersion } from './sar.js';

export type FailurePolicy = 'NoOpinion' | 'Deny';

/** One webhook authorizer, as the configuration file or the `--authorization-webhook-*` flags give it. */
export interface WebhookSettings {
  name: string;
  connection: WebhookConnection;
  subjectAccessReviewVersion: SarVersion;
  authorizedTTLMs: number;
  unauthorizedTTLMs: number;
  timeoutMs: number;
  failurePolicy: FailurePolicy;
  matchConditions: readonly MatchCondition<RequestVars>[];
}

export interface WebhookAuthorizerDeps {
  /** How to reach the webhook (tests pass a fake). */
  backend: WebhookBackend;
  now?: () => number;
  log?: (msg: string) => void;
}

/** The reference bounds its answer cache; a key this long (huge names or selectors) is not cached at all. */
export const CACHE_ENTRIES = 8192;
const MAX_CACHED_KEY_LENGTH = 10_000;
const LOG_EVERY_MS = 10_000;

const NO_OPINION: Promise<Decision> = Promise.resolve({ decision: 'noOpinion' });

/** The cache key: every attribute the review carries, unambiguously joined. */
export function cacheKey(a: Attributes): string {
  const u = a.user;
  return JSON.stringify([
    u.username,
    u.uid ?? '',
    u.groups,
    u.extra ?? null,
    a.verb,
    a.isResourceRequest,
    a.isResourceRequest ? '' : a.path,
    a.apiGroup,
    a.apiVersion,
    a.resource,
    a.subresource,
    a.namespace,
    a.name,
  ]);
}

export class WebhookAuthorizer implements Authorizer {
  private readonly cache: ExpiringCache<Promise<Decision>>;
  /** Calls in progress by key: a burst of identical requests makes one call. */
  private readonly inFlight = new Map<string, Promise<Decision>>();
  private readonly onFailure: Decision;
  private readonly now: () => number;
  private lastLog = -Infinity;

  constructor(
    readonly settings: WebhookSettings,
    private readonly deps: WebhookAuthorizerDeps,
  ) {
    this.now = deps.now ?? Date.now;
    this.cache = new ExpiringCache(CACHE_ENTRIES, this.now);
    this.onFailure =
      settings.failurePolicy === 'Deny'
        ? { decision: 'deny', reason: `authorization webhook "${settings.name}" failed and its failure policy is Deny` }
        : { decision: 'noOpinion', reason: `authorization webhook "${settings.name}" failed` };
  }

  authorize(a: Attributes): Promise<Decision> {
    let spec: SarSpec | undefined;
    if (this.settings.matchConditions.length > 0) {
      spec = sarSpec(a);
      const outcome = evaluateMatchConditions(this.settings.matchConditions, { request: spec });
      if ('error' in outcome) return Promise.resolve(this.failed(`match conditions: ${outcome.error}`));
      if (!outcome.match) return NO_OPINION;
    }
    const key = cacheKey(a);
    const cached = this.cache.get(key) ?? this.inFlight.get(key);
    if (cached !== undefined) return cached;
    // `finally` runs on a later turn, so the entry is always set before it is removed.
    const call = this.ask(spec ?? sarSpec(a), key).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, call);
    return call;
  }

  close(): void {
    this.deps.backend.close();
  }

  private async ask(spec: SarSpec, key: string): Promise<Decision> {
    try {
      const status = parseSarAnswer(await this.deps.backend.post(sarBody(spec, this.settings.subjectAccessReviewVersion)));
      let decision: Decision;
      if (status.allowed && status.denied) {
        // Both at once is a broken answer; the reference treats it as a deny.
        decision = { decision: 'deny', reason: status.reason || 'the webhook answered both allowed and denied' };
      } else if (status.denied) decision = { decision: 'deny', ...(status.reason ? { reason: status.reason } : {}) };
      else if (status.allowed) decision = { decision: 'allow', ...(status.reason ? { reason: status.reason } : {}) };
      else {
        const reason = [status.reason, status.evaluationError].filter(Boolean).join(': ');
        decision = { decision: 'noOpinion', ...(reason ? { reason } : {}) };
      }
      if (key.length <= MAX_CACHED_KEY_LENGTH) {
        this.cache.set(key, Promise.resolve(decision), decision.decision === 'allow' ? this.settings.authorizedTTLMs : this.settings.unauthorizedTTLMs);
      }
      return decision;
    } catch (e) {
      return this.failed((e as Error).message);
    }
  }

  /** The failure policy's decision; the cause goes to the log (at most every few seconds), not to the client. */
  private failed(why: string): Decision {
    const t = this.now();
    if (t - this.lastLog >= LOG_EVERY_MS) {
      this.lastLog = t;
      this.deps.log?.(`authorization webhook "${this.settings.name}": ${why} (failure policy ${this.settings.failurePolicy})`);
    }
    return this.onFailure;
  }
}
