/**
 * One JWT authenticator as the verifier uses it: built from a validated `AuthenticationConfiguration`
 * entry (spec 5.5 file table) or from the `--oidc-*` flags, with every CEL expression already compiled.
 */
import type { CompiledCel } from '../../cel/index.js';

/** `claim` must be present with exactly `requiredValue` (a string). */
export interface RequiredClaimRule {
  claim: string;
  requiredValue: string;
}

/** A CEL boolean that must be true; `message` is what the log says when it is not. */
export interface ExpressionRule {
  expression: CompiledCel;
  message: string;
}

/** A claim's value behind a prefix ('' for none), or a CEL expression's result. */
export type ClaimMapping = { claim: string; prefix: string } | { expression: CompiledCel };

export interface JwtIssuer {
  url: string;
  /** Fetched exactly as given; without it, `<url>/.well-known/openid-configuration`. */
  discoveryURL?: string;
  /** PEM CAs for the discovery and JWKS fetches; default: the system roots. */
  certificateAuthority?: string;
  /** Any of them in the token's `aud` will do (MatchAny). */
  audiences: readonly string[];
}

export interface JwtAuthenticatorConfig {
  issuer: JwtIssuer;
  claimValidationRules: readonly (RequiredClaimRule | ExpressionRule)[];
  username: ClaimMapping;
  groups?: ClaimMapping;
  uid?: { claim: string } | { expression: CompiledCel };
  extra: readonly { key: string; expression: CompiledCel }[];
  userValidationRules: readonly ExpressionRule[];
  /** The JWS algorithms accepted from this issuer. */
  signingAlgorithms: readonly string[];
}

/** Where the discovery document of an issuer is fetched from. */
export const discoveryUrlOf = (issuer: JwtIssuer): string =>
  issuer.discoveryURL ?? `${issuer.url.replace(/\/+$/, '')}/.well-known/openid-configuration`;
