/** The shapes of a validated AuthenticationConfiguration, generic in the compiled form of its CEL expressions. */
import type { FieldErrors } from './field-errors.js';

/** `claim` must be present with exactly `requiredValue` (a string). */
export interface RequiredClaimRule {
  claim: string;
  requiredValue: string;
}

/** A CEL boolean (compiled to `E`) that must be true; `message` is what the log says when it is not. */
export interface ExpressionRuleOf<E> {
  expression: E;
  message: string;
}

/** A claim's value behind a prefix ('' for none), or an expression's result. */
export type ClaimMappingOf<E> = { claim: string; prefix: string } | { expression: E };

export interface JwtIssuer {
  url: string;
  /** Fetched exactly as given; without it, `<url>/.well-known/openid-configuration`. */
  discoveryURL?: string;
  /** PEM CAs for the discovery and JWKS fetches; default: the system roots. */
  certificateAuthority?: string;
  /** Any of them in the token's `aud` will do (MatchAny). */
  audiences: readonly string[];
}

/** One validated `jwt[]` entry with its expressions compiled to `E`. */
export interface JwtAuthenticatorOf<E> {
  issuer: JwtIssuer;
  claimValidationRules: readonly (RequiredClaimRule | ExpressionRuleOf<E>)[];
  username: ClaimMappingOf<E>;
  groups?: ClaimMappingOf<E>;
  uid?: { claim: string } | { expression: E };
  extra: readonly { key: string; expression: E }[];
  userValidationRules: readonly ExpressionRuleOf<E>[];
  /** The JWS algorithms accepted from this issuer. */
  signingAlgorithms: readonly string[];
}

/**
 * What this layer cannot do itself: the expressions are CEL, which the authenticator compiles (a failure is
 * recorded in `errs` at `path`); the algorithms are the verifier's.
 */
export interface AuthenticationHooks<E> {
  compileExpression(variable: 'claims' | 'user', expression: string, result: 'bool' | 'any', path: string, errs: FieldErrors): E | undefined;
  /** True when the expression selects `claims.<field>`. */
  selectsClaim(expression: string, field: string): boolean;
  /** Every asymmetric algorithm the verifier supports; a file-configured issuer may use any. */
  signingAlgorithms: readonly string[];
}
