/**
 * One JWT authenticator as the verifier uses it: built from a validated `AuthenticationConfiguration`
 * entry (spec 5.5 file table) or from the `--oidc-*` flags, with every CEL expression already compiled.
 */
import type { CompiledCel } from '../../cel/index.js';
import type { ClaimMappingOf, ExpressionRuleOf, JwtAuthenticatorOf, JwtIssuer } from '../../config/authentication.js';

export type { JwtIssuer, RequiredClaimRule } from '../../config/authentication.js';

/** A CEL boolean that must be true; `message` is what the log says when it is not. */
export type ExpressionRule = ExpressionRuleOf<CompiledCel>;
/** A claim's value behind a prefix ('' for none), or a CEL expression's result. */
export type ClaimMapping = ClaimMappingOf<CompiledCel>;
export type JwtAuthenticatorConfig = JwtAuthenticatorOf<CompiledCel>;

/** Where the discovery document of an issuer is fetched from. */
export const discoveryUrlOf = (issuer: JwtIssuer): string =>
  issuer.discoveryURL ?? `${issuer.url.replace(/\/+$/, '')}/.well-known/openid-configuration`;
