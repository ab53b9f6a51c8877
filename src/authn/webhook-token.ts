/**
 * Webhook token authentication (spec 5.1 item 2, 5.1 item 5): a bearer token nobody before it accepted is
 * sent to a remote service as a `TokenReview`; its answer says who the token belongs to. Answers are cached
 * for a TTL so that a busy client does not cost one webhook call per request.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { AUTHENTICATION_GROUP, REFERENCE_AUTHENTICATION_GROUP_ALIAS } from '../api/naming.js';
import { BACKEND_TIMEOUT_MS, BackendFailure, webhookBackend, type WebhookBackend } from '../util/webhook-backend.js';
import type { Dialer } from '../util/dialer.js';
import { loadWebhookKubeconfig, type WebhookConnection } from '../util/webhook-kubeconfig.js';
import { unauthorized } from '../errors/index.js';
import { bearerToken } from './bearer.js';
import { parseCertificates } from './pem.js';
import type { AuthRequest, Authenticator, UserInfo } from './types.js';

export const TOKEN_REVIEW_VERSIONS = ['v1', 'v1beta1'] as const;
export type TokenReviewVersion = (typeof TOKEN_REVIEW_VERSIONS)[number];
/** The reference's `--authentication-token-webhook-version` default. */
export const DEFAULT_TOKEN_REVIEW_VERSION: TokenReviewVersion = 'v1beta1';
/** The reference's `--authentication-token-webhook-cache-ttl` default (2m). */
export const DEFAULT_TOKEN_WEBHOOK_CACHE_TTL_MS = 120_000;
/** Distinct tokens remembered at once; the oldest answer goes first past it. */
export const DEFAULT_TOKEN_WEBHOOK_CACHE_SIZE = 10_000;

/** Exponential backoff between attempts, as the reference's default for authentication webhooks. */
export interface RetryBackoff {
  initialMs: number;
  factor: number;
  /** Each wait grows by up to this fraction, at random, so that many servers do not retry in step. */
  jitter: number;
  /** Attempts in all, the first included. */
  steps: number;
}
export const DEFAULT_TOKEN_WEBHOOK_RETRY: RetryBackoff = { initialMs: 500, factor: 1.5, jitter: 0.2, steps: 5 };

/** A review's outcome: a user, or no user (with the webhook's reason when it gave one). */
export type ReviewOutcome = { user: UserInfo } | { user?: undefined; error?: string };

export interface WebhookTokenAuthenticatorOptions {
  backend: Pick<WebhookBackend, 'post'> & Partial<Pick<WebhookBackend, 'close'>>;
  version?: TokenReviewVersion;
  /** The server's API audiences: sent in `spec.audiences`, and what an answer's audiences must meet. */
  audiences: readonly string[];
  /** 0 turns the cache off. */
  cacheTtlMs?: number;
  cacheSize?: number;
  retry?: RetryBackoff;
  /** No retry starts later than this after the first attempt (each attempt has the backend's own deadline). */
  deadlineMs?: number;
  /** Clock for the cache and the deadline (tests move it by hand). */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

interface CacheEntry {
  expires: number;
  outcome: ReviewOutcome;
}

export class WebhookTokenAuthenticator implements Authenticator {
  private readonly backend: WebhookTokenAuthenticatorOptions['backend'];
  private readonly apiVersion: string;
  private readonly audiences: readonly string[];
  private readonly ttl: number;
  private readonly maxEntries: number;
  private readonly retry: RetryBackoff;
  private readonly deadlineMs: number;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly cache = new Map<string, CacheEntry>();
  /** Concurrent requests with the same token share one webhook call. */
  private readonly inFlight = new Map<string, Promise<ReviewOutcome>>();
  /** Cache keys are keyed hashes: the cache never holds a token, and the hashes cannot be precomputed. */
  private readonly hashKey = randomBytes(32);
  private readonly audienceKey: string;

  constructor(o: WebhookTokenAuthenticatorOptions) {
    const version = o.version ?? DEFAULT_TOKEN_REVIEW_VERSION;
    if (!TOKEN_REVIEW_VERSIONS.includes(version)) throw new Error(versionError(version));
    if (o.retry && (!Number.isInteger(o.retry.steps) || o.retry.steps < 1)) throw new Error('token webhook retry: at least one attempt is required');
    this.backend = o.backend;
    this.apiVersion = `${AUTHENTICATION_GROUP}/${version}`;
    this.audiences = [...o.audiences];
    this.ttl = o.cacheTtlMs ?? DEFAULT_TOKEN_WEBHOOK_CACHE_TTL_MS;
    this.maxEntries = o.cacheSize ?? DEFAULT_TOKEN_WEBHOOK_CACHE_SIZE;
    this.retry = o.retry ?? DEFAULT_TOKEN_WEBHOOK_RETRY;
    this.deadlineMs = o.deadlineMs ?? BACKEND_TIMEOUT_MS;
    this.now = o.now ?? Date.now;
    this.sleep = o.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    // Length-prefixed, so that no audience list can run into the token that follows it.
    this.audienceKey = this.audiences.map((a) => `${a.length}:${a}`).join('');
  }

  /**
   * No opinion without a bearer token; a user for a token the webhook accepts; otherwise a 401 (denied,
   * meant for another audience, or the webhook could not answer). A cached answer comes synchronously.
   */
  authenticate(req: AuthRequest): UserInfo | Promise<UserInfo> | undefined {
    const token = bearerToken(req.headers);
    if (token === undefined) return undefined;
    if (this.ttl <= 0) return this.review(token).then(userOrReject);
    const key = createHmac('sha256', this.hashKey).update(this.audienceKey).update(token).digest('base64url');
    const hit = this.cache.get(key);
    if (hit !== undefined) {
      if (hit.expires > this.now()) return userOrReject(hit.outcome);
      this.cache.delete(key);
    }
    let pending = this.inFlight.get(key);
    if (pending === undefined) {
      const asked = this.review(token);
      pending = asked;
      this.inFlight.set(key, asked);
      // Errors are not remembered: the next request asks again. Like the reference's cache, neither is
      // an answer that carries an error message.
      asked.then(
        (outcome) => {
          this.inFlight.delete(key);
          if (outcome.user !== undefined || outcome.error === undefined) this.remember(key, outcome);
        },
        () => this.inFlight.delete(key),
      );
    }
    return pending.then(userOrReject);
  }

  close(): void {
    this.backend.close?.();
  }

  /** The webhook's verdict; a webhook that cannot be reached or answers nonsense is a 401 as well. */
  private async review(token: string): Promise<ReviewOutcome> {
    try {
      const answer = await this.post(tokenReviewRequest(this.apiVersion, token, this.audiences));
      return parseTokenReview(answer, this.audiences);
    } catch (e) {
      throw unauthorized(`token webhook: ${(e as Error).message}`);
    }
  }

  /** Transient failures (connection, 429, 5xx) are retried with backoff while the deadline allows. */
  private async post(body: string): Promise<string> {
    const started = this.now();
    let wait = this.retry.initialMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.backend.post(body);
      } catch (e) {
        const transient = e instanceof BackendFailure && e.retryable;
        const delay = wait * (1 + this.retry.jitter * Math.random());
        if (!transient || attempt >= this.retry.steps || this.now() - started + delay >= this.deadlineMs) throw e;
        await this.sleep(delay);
        wait *= this.retry.factor;
      }
    }
  }

  /** The oldest entry makes room past the bound (insertion order is age: entries are never refreshed). */
  private remember(key: string, outcome: ReviewOutcome): void {
    if (this.cache.size >= this.maxEntries) {
      const oldest = this.cache.keys().next();
      if (!oldest.done) this.cache.delete(oldest.value);
    }
    this.cache.set(key, { expires: this.now() + this.ttl, outcome });
  }
}

/** A copy of the remembered user: a caller changing what it got must not change later answers. */
function userOrReject(outcome: ReviewOutcome): UserInfo {
  const u = outcome.user;
  if (u !== undefined) {
    const user: UserInfo = { ...u, groups: [...u.groups] };
    if (u.extra !== undefined) user.extra = Object.fromEntries(Object.entries(u.extra).map(([k, v]) => [k, [...v]]));
    return user;
  }
  throw unauthorized(outcome.error !== undefined ? `token webhook: ${outcome.error}` : 'token webhook: the token was not accepted');
}

/** What the flags give: the kubeconfig file and the review version. */
export interface TokenWebhookConfig {
  configFile: string;
  /** The control-plane egress (`--egress-selector-config-file`); undefined connects directly. */
  dialer?: Dialer;
  version?: TokenReviewVersion;
  cacheTtlMs?: number;
  /** Deadline of one webhook call; the reference's is 30 s. */
  timeoutMs?: number;
  retry?: RetryBackoff;
}

const CONFIG_FLAG = '--authentication-token-webhook-config-file';

/** The authenticator a kubeconfig file describes; any problem with the file is a start-up error naming it. */
export function tokenWebhookFromConfig(config: TokenWebhookConfig, audiences: readonly string[]): WebhookTokenAuthenticator {
  const conn = checkTokenWebhookConfig(config);
  const timeoutMs = config.timeoutMs ?? BACKEND_TIMEOUT_MS;
  return new WebhookTokenAuthenticator({
    backend: webhookBackend(conn, timeoutMs, config.dialer),
    audiences,
    deadlineMs: timeoutMs,
    ...(config.version !== undefined ? { version: config.version } : {}),
    ...(config.cacheTtlMs !== undefined ? { cacheTtlMs: config.cacheTtlMs } : {}),
    ...(config.retry !== undefined ? { retry: config.retry } : {}),
  });
}

/** Reads and checks the configuration without connecting anywhere (the command line checks it this way). */
export function checkTokenWebhookConfig(config: TokenWebhookConfig): WebhookConnection {
  if (config.version !== undefined && !TOKEN_REVIEW_VERSIONS.includes(config.version)) throw new Error(versionError(config.version));
  const at = `${CONFIG_FLAG} ${config.configFile}`;
  const conn = loadWebhookKubeconfig(config.configFile, { at });
  // Bad PEM would otherwise surface only at the first request, as a 401 with no visible cause.
  if (conn.ca !== undefined) parseCertificates(conn.ca, `${at}: certificate-authority`);
  if (conn.cert !== undefined) {
    try {
      createSecureContext({ cert: conn.cert, key: conn.key });
    } catch (e) {
      throw new Error(`${at}: the client certificate and key cannot be used: ${(e as Error).message}`);
    }
  }
  return conn;
}

const versionError = (v: string) =>
  `--authentication-token-webhook-version: unsupported TokenReview version "${v}" (supported: ${TOKEN_REVIEW_VERSIONS.join(', ')})`;

/** The body sent to the webhook, shaped as the reference sends it. */
export function tokenReviewRequest(apiVersion: string, token: string, audiences: readonly string[]): string {
  return JSON.stringify({
    apiVersion,
    kind: 'TokenReview',
    metadata: { creationTimestamp: null },
    spec: { token, ...(audiences.length > 0 ? { audiences } : {}) },
    status: { user: {} },
  });
}

/** Answers in either version of the group (and in the reference's spelling of it) have the same shape. */
const ANSWER_VERSIONS = new Set(
  [AUTHENTICATION_GROUP, REFERENCE_AUTHENTICATION_GROUP_ALIAS].flatMap((g) => TOKEN_REVIEW_VERSIONS.map((v) => `${g}/${v}`)),
);

/**
 * The outcome of a webhook's answer. Throws for an answer that is not a TokenReview or whose fields have
 * the wrong types (a broken webhook: the request fails, nothing is cached). Audiences: when the webhook
 * names the audiences the token is good for, at least one must be one of ours; when it names none, the
 * token is taken to be good for the audiences that were asked for.
 */
export function parseTokenReview(text: string, wanted: readonly string[]): ReviewOutcome {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new Error('the answer is not JSON');
  }
  if (!isRecord(doc)) throw new Error('the answer is not a JSON object');
  if (doc.kind !== 'TokenReview' || typeof doc.apiVersion !== 'string' || !ANSWER_VERSIONS.has(doc.apiVersion)) {
    throw new Error(`the answer is not a TokenReview (apiVersion ${JSON.stringify(doc.apiVersion)}, kind ${JSON.stringify(doc.kind)})`);
  }
  const status = doc.status ?? {};
  if (!isRecord(status)) throw new Error('status must be an object');
  const bad = (field: string, what: string): never => {
    throw new Error(`status.${field} must be ${what}`);
  };
  if (status.authenticated !== undefined && typeof status.authenticated !== 'boolean') bad('authenticated', 'a boolean');
  if (status.error !== undefined && typeof status.error !== 'string') bad('error', 'a string');
  const answered = optionalStrings(status.audiences) ?? bad('audiences', 'a list of strings');
  const u = status.user ?? {};
  if (!isRecord(u)) return bad('user', 'an object');
  if (u.username !== undefined && typeof u.username !== 'string') bad('user.username', 'a string');
  if (u.uid !== undefined && typeof u.uid !== 'string') bad('user.uid', 'a string');
  const groups = optionalStrings(u.groups) ?? bad('user.groups', 'a list of strings');
  let extra: Record<string, string[]> | undefined;
  if (u.extra !== undefined && u.extra !== null) {
    if (!isRecord(u.extra)) bad('user.extra', 'a map of string lists');
    extra = {};
    for (const [k, v] of Object.entries(u.extra as Record<string, unknown>)) extra[k] = optionalStrings(v) ?? bad(`user.extra[${k}]`, 'a list of strings');
  }

  const error = typeof status.error === 'string' && status.error !== '' ? status.error : undefined;
  if (wanted.length > 0) {
    const good = answered.length > 0 ? answered : wanted;
    if (!wanted.some((a) => good.includes(a))) return {}; // meant for another audience: no user, no reason
  }
  if (status.authenticated !== true) return error !== undefined ? { error } : {};
  const user: UserInfo = { username: (u.username as string | undefined) ?? '', groups };
  if (typeof u.uid === 'string' && u.uid !== '') user.uid = u.uid;
  if (extra !== undefined) user.extra = extra;
  return { user };
}

/** A list of strings (null and absent are an empty list), or undefined for anything else. */
function optionalStrings(v: unknown): string[] | undefined {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || !v.every((s) => typeof s === 'string')) return undefined;
  return [...(v as string[])];
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
