/**
 * One JWT authenticator (spec 5.5): verifies an ID token from its issuer — signature with the issuer's
 * keys, `iss`, `aud`, `exp`, `nbf` — then maps its claims to a user and applies the validation rules, in
 * the reference's order. Every failure is a 401 whose message says why (the union logs it; the client
 * only sees the generic 401).
 */
import { celValue, EvaluationBudget, firstLine, type CompiledCel } from '../../cel/index.js';
import { unauthorized } from '../../errors/index.js';
import type { UserInfo } from '../types.js';
import { stringList } from './expressions.js';
import { parseCompactJws, verifySignature, type CompactJws } from './jws.js';
import type { IssuerKeys } from './keys.js';
import type { ClaimMapping, ExpressionRule, JwtAuthenticatorConfig } from './types.js';

/** go-oidc's allowance for issuers whose clock runs ahead: `nbf` may be up to five minutes in the future. */
export const NOT_BEFORE_LEEWAY_MS = 5 * 60 * 1000;

const reject = (why: string) => unauthorized(`oidc: ${why}`);

export interface VerifiedToken {
  user: UserInfo;
  /** The token's `exp`, in milliseconds since the epoch. */
  expiresAtMs: number;
}

type Claims = Record<string, unknown>;

export class JwtVerifier {
  private readonly algorithms: ReadonlySet<string>;
  private readonly audiences: ReadonlySet<string>;

  constructor(
    readonly config: JwtAuthenticatorConfig,
    readonly keys: IssuerKeys,
    private readonly now: () => number = Date.now,
  ) {
    this.algorithms = new Set(config.signingAlgorithms);
    this.audiences = new Set(config.issuer.audiences);
  }

  /** The user a token from this issuer stands for; throws a 401 StatusError when any check fails. */
  async verify(token: string): Promise<VerifiedToken> {
    const jws = parseCompactJws(token);
    if (typeof jws === 'string') throw reject(jws);
    const alg = jws.header.alg;
    if (typeof alg !== 'string' || !this.algorithms.has(alg)) {
      throw reject(`id token signed with unsupported algorithm, expected [${[...this.algorithms].join(' ')}] got ${JSON.stringify(alg ?? '')}`);
    }
    const kid = jws.header.kid;
    if (kid !== undefined && typeof kid !== 'string') throw reject('malformed JWS header: kid must be a string');
    await this.checkSignature(jws, alg, kid);
    const claims = jws.payload;
    const expiresAtMs = this.checkStandardClaims(claims);
    return { user: this.userOf(claims), expiresAtMs };
  }

  private async checkSignature(jws: CompactJws, alg: string, kid: string | undefined): Promise<void> {
    const verifies = (keys: readonly { key: import('node:crypto').KeyObject; alg?: string }[] | undefined) =>
      keys?.some((k) => (k.alg === undefined || k.alg === alg) && verifySignature(alg, k.key, jws)) ?? false;
    const known = this.keys.candidates(kid);
    if (verifies(known)) return;
    // An unknown key id (the issuer rotated its keys) or keys not fetched yet: ask the issuer again.
    if ((known === undefined || kid === undefined) && (await this.keys.refresh()) && verifies(this.keys.candidates(kid))) return;
    if (!this.keys.loaded) throw reject(`the keys of issuer ${this.config.issuer.url} have not been fetched yet`);
    throw reject(kid !== undefined && this.keys.candidates(kid) === undefined ? `no key with id ${JSON.stringify(kid)}` : 'failed to verify signature');
  }

  /** `iss`, `aud`, `exp` and `nbf`; returns the expiry in milliseconds. */
  private checkStandardClaims(claims: Claims): number {
    if (claims.iss !== this.config.issuer.url) throw reject(`id token issued by a different provider, expected ${JSON.stringify(this.config.issuer.url)} got ${JSON.stringify(claims.iss ?? '')}`);
    const aud = typeof claims.aud === 'string' ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud : [];
    if (!aud.some((a) => typeof a === 'string' && this.audiences.has(a))) throw reject(`expected audience in [${[...this.audiences].join(' ')}] got ${JSON.stringify(claims.aud ?? [])}`);
    const now = this.now();
    if (typeof claims.exp !== 'number' || !Number.isFinite(claims.exp)) throw reject('malformed or missing exp claim');
    const expiresAtMs = claims.exp * 1000;
    if (expiresAtMs < now) throw reject(`token is expired (Token Expiry: ${new Date(expiresAtMs).toISOString()})`);
    if (claims.nbf !== undefined) {
      if (typeof claims.nbf !== 'number' || !Number.isFinite(claims.nbf)) throw reject('malformed nbf claim');
      if (now + NOT_BEFORE_LEEWAY_MS < claims.nbf * 1000) throw reject(`current time before the nbf (not before) time: ${new Date(claims.nbf * 1000).toISOString()}`);
    }
    return expiresAtMs;
  }

  /** Mappings first, then required claims, claim validation rules and user validation rules. */
  private userOf(claims: Claims): UserInfo {
    const c = this.config;
    let celClaims: unknown;
    const budget = new EvaluationBudget();
    const run = (e: CompiledCel, what: string, vars?: Record<string, unknown>) => {
      try {
        return e.evaluate(vars ?? { claims: (celClaims ??= celValue(claims)) }, budget);
      } catch (err) {
        throw reject(`error evaluating ${what}: ${firstLine((err as Error).message)}`);
      }
    };

    const username = this.username(claims, c.username, run);
    if (username === '') throw reject('empty username is not allowed');
    const user: UserInfo = { username, groups: c.groups ? this.groups(claims, c.groups, run) : [] };
    if (c.uid) {
      const uid = 'claim' in c.uid ? stringClaim(claims, c.uid.claim, 'uid') : run(c.uid.expression, 'uid claim expression');
      if (typeof uid !== 'string') throw reject('error evaluating uid claim expression: uid claim expression must return a string');
      if (uid !== '') user.uid = uid;
    }
    if (c.extra.length > 0) {
      const extra: Record<string, string[]> = {};
      for (const m of c.extra) {
        const values = asList(run(m.expression, `extra mapping expression for key ${JSON.stringify(m.key)}`), 'extra mapping expression');
        if (values.length > 0) extra[m.key] = values;
      }
      if (Object.keys(extra).length > 0) user.extra = extra;
    }
    for (const rule of c.claimValidationRules) {
      if ('claim' in rule) {
        if (!(rule.claim in claims)) throw reject(`required claim ${rule.claim} not present in ID token`);
        const value = stringClaim(claims, rule.claim, 'required');
        if (value !== rule.requiredValue) throw reject(`required claim ${rule.claim} value does not match. Got = ${value}, want = ${rule.requiredValue}`);
      } else checkRule(rule, run(rule.expression, 'claim validation expression'), 'claim validation expression');
    }
    if (c.userValidationRules.length > 0) {
      const vars = { user: { username: user.username, uid: user.uid ?? '', groups: user.groups, extra: user.extra ?? {} } };
      for (const rule of c.userValidationRules) checkRule(rule, run(rule.expression, 'user validation rule', vars), 'user info validation rule');
    }
    return user;
  }

  private username(claims: Claims, m: ClaimMapping, run: (e: CompiledCel, what: string) => unknown): string {
    if ('expression' in m) {
      const v = run(m.expression, 'username claim expression');
      if (typeof v !== 'string') throw reject('error evaluating username claim expression: username claim expression must return a string');
      return v;
    }
    const value = stringClaim(claims, m.claim, 'username');
    // With the email claim, an email_verified claim that is present must say true.
    if (m.claim === 'email' && claims.email_verified !== undefined) {
      if (typeof claims.email_verified !== 'boolean') throw reject("parse 'email_verified' claim: not a boolean");
      if (!claims.email_verified) throw reject('email not verified');
    }
    return value === '' ? '' : m.prefix + value;
  }

  private groups(claims: Claims, m: ClaimMapping, run: (e: CompiledCel, what: string) => unknown): string[] {
    if ('expression' in m) return asList(run(m.expression, 'groups claim expression'), 'groups claim expression');
    const v = claims[m.claim];
    if (v === undefined) {
      const names = claims._claim_names;
      if (names !== null && typeof names === 'object' && m.claim in names) throw reject(`groups claim ${JSON.stringify(m.claim)} is a distributed claim, which this server does not fetch`);
      return [];
    }
    // A single string is accepted too, as the reference does for "role"-like claims.
    const groups = typeof v === 'string' ? [v] : Array.isArray(v) && v.every((g) => typeof g === 'string') ? (v as string[]) : undefined;
    if (!groups) throw reject(`parse groups claim ${JSON.stringify(m.claim)}: must be a string or an array of strings`);
    return m.prefix === '' ? [...groups] : groups.map((g) => m.prefix + g);
  }
}

function stringClaim(claims: Claims, name: string, what: string): string {
  const v = claims[name];
  if (v === undefined) throw reject(`parse ${what} claim ${JSON.stringify(name)}: claim not present`);
  if (typeof v !== 'string') throw reject(`parse ${what} claim ${JSON.stringify(name)}: not a string`);
  return v;
}

function asList(v: unknown, what: string): string[] {
  try {
    return stringList(v, what);
  } catch (e) {
    throw reject(`error evaluating ${what}: ${(e as Error).message}`);
  }
}

function checkRule(rule: ExpressionRule, result: unknown, what: string): void {
  if (typeof result !== 'boolean') throw reject(`error evaluating ${what}: validation expression must return a boolean`);
  if (!result) throw reject(`error evaluating ${what}: validation expression ${JSON.stringify(rule.expression.expression)} failed${rule.message ? `: ${rule.message}` : ''}`);
}
