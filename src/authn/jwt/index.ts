/** JWT / OpenID Connect authentication (spec 5.5): the `--oidc-*` flags and `--authentication-config`. */
export {
  AUTHENTICATION_CONFIGURATION_KIND,
  AuthenticationConfigError,
  MAX_JWT_AUTHENTICATORS,
  loadAuthenticationConfiguration,
  parseAuthenticationConfiguration,
  type ValidationContext,
} from './config.js';
export { JwtAuthentication, type JwtAuthenticationOptions } from './authentication.js';
export { JwtAuthenticators, type TokenCacheOptions } from './authenticator.js';
export { IssuerKeys, type IssuerKeysOptions } from './keys.js';
export { JwtVerifier, NOT_BEFORE_LEEWAY_MS, type VerifiedToken } from './verifier.js';
export { SIGNING_ALGORITHMS } from './jws.js';
export { jwtConfigurationOf, oidcFlagsConfig, startJwtAuthentication, type JwtSettings, type OidcFlagOptions } from './options.js';
export type { JwtAuthenticatorConfig, JwtIssuer } from './types.js';
