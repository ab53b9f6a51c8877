/**
 * The JWT authenticators of one configuration, as one Authenticator: a bearer token goes to the
 * authenticator of the issuer its (unverified) `iss` names; a token of no configured issuer (a service
 * account token, a static token) gets "no opinion" so the other authenticators see it.
 *
 * Verified tokens are remembered for a short while (never past their `exp`), so a client repeating
 * requests with the same ID token costs one map lookup, answered without a turn of the event loop.
 */
import { bearerToken } from '../bearer.js';
import type { AuthRequest, Authenticator, UserInfo } from '../types.js';
import { unverifiedIssuer } from './jws.js';
import type { JwtVerifier } from './verifier.js';

export interface TokenCacheOptions {
  /** How long a verified token is remembered. Default 10 s. */
  cacheTtlMs?: number;
  /** Tokens remembered at most; the oldest are forgotten first. Default 4096. */
  cacheSize?: number;
  now?: () => number;
}

interface CachedUser {
  user: UserInfo;
  untilMs: number;
}

export class JwtAuthenticators implements Authenticator {
  private readonly byIssuer: ReadonlyMap<string, JwtVerifier>;
  private readonly cache = new Map<string, CachedUser>();
  private readonly ttlMs: number;
  private readonly size: number;
  private readonly now: () => number;

  constructor(
    readonly verifiers: readonly JwtVerifier[],
    options: TokenCacheOptions = {},
  ) {
    this.byIssuer = new Map(verifiers.map((v) => [v.config.issuer.url, v]));
    this.ttlMs = options.cacheTtlMs ?? 10_000;
    this.size = options.cacheSize ?? 4096;
    this.now = options.now ?? Date.now;
  }

  authenticate(req: AuthRequest): UserInfo | undefined | Promise<UserInfo | undefined> {
    const token = bearerToken(req.headers);
    if (token === undefined) return undefined;
    const hit = this.cache.get(token);
    if (hit !== undefined) {
      if (hit.untilMs > this.now()) return copyOf(hit.user);
      this.cache.delete(token);
    }
    const iss = unverifiedIssuer(token);
    const verifier = iss === undefined ? undefined : this.byIssuer.get(iss);
    if (verifier === undefined) return undefined;
    return verifier.verify(token).then(({ user, expiresAtMs }) => {
      this.remember(token, user, Math.min(this.now() + this.ttlMs, expiresAtMs));
      return copyOf(user);
    });
  }

  private remember(token: string, user: UserInfo, untilMs: number): void {
    if (this.size <= 0) return;
    while (this.cache.size >= this.size) {
      const oldest = this.cache.keys().next();
      if (oldest.done) break;
      this.cache.delete(oldest.value);
    }
    this.cache.set(token, { user, untilMs });
  }
}

/** Later stages (the group adder, impersonation) get their own arrays, never the cached ones. */
function copyOf(user: UserInfo): UserInfo {
  const copy: UserInfo = { ...user, groups: [...user.groups] };
  if (user.extra) copy.extra = Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]]));
  return copy;
}
