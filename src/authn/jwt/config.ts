/**
 * The AuthenticationConfiguration document is parsed in `src/config/authentication.ts`; this module gives it
 * the authenticator's CEL compiler and JWS algorithms and keeps the names this folder's callers use.
 */
import type { CompiledCel } from '../../cel/index.js';
import { loadAuthenticationDocument, parseAuthenticationDocument, type AuthenticationHooks, type ValidationContext } from '../../config/authentication.js';
import { compileExpression, selectsClaim } from './expressions.js';
import { SIGNING_ALGORITHMS } from './jws.js';
import type { JwtAuthenticatorConfig } from './types.js';

export {
  AUTHENTICATION_CONFIG_VERSIONS,
  AUTHENTICATION_CONFIGURATION_KIND,
  AUTHENTICATION_VERSION_TABLE,
  AuthenticationConfigError,
  checkCertificateAuthority,
  checkExtraKey,
  checkIssuerUrl,
  MATCH_ANY,
  MAX_JWT_AUTHENTICATORS,
  type ValidationContext,
} from '../../config/authentication.js';

const CEL_HOOKS: AuthenticationHooks<CompiledCel> = { compileExpression, selectsClaim, signingAlgorithms: SIGNING_ALGORITHMS };

/** Reads and validates the file; the error names the flag and the file. */
export function loadAuthenticationConfiguration(file: string, ctx: ValidationContext, read?: (path: string) => string): JwtAuthenticatorConfig[] {
  return loadAuthenticationDocument(file, ctx, CEL_HOOKS, read);
}

/** The document's JWT authenticators, or an AuthenticationConfigError listing every problem (`; ` between them). */
export function parseAuthenticationConfiguration(text: string, ctx: ValidationContext): JwtAuthenticatorConfig[] {
  return parseAuthenticationDocument(text, ctx, CEL_HOOKS);
}
