/**
 * The AuthorizationConfiguration document is parsed in `src/config/authorization.ts`; this module gives it
 * the authorizer's CEL match-condition compiler and keeps the names this folder's callers use.
 */
import {
  loadAuthorizationDocument,
  parseAuthorizationDocument,
  type AuthorizationConfigurationOf,
  type AuthorizationParseOptions,
  type AuthorizerEntryOf,
} from '../config/authorization.js';
import type { MatchCondition } from '../cel/index.js';
import { compileMatchCondition, type RequestVars } from './webhook/index.js';

export {
  AUTHORIZATION_CONFIG_KIND,
  AUTHORIZATION_CONFIG_VERSIONS,
  AuthorizationConfigError,
  CONFIG_AUTHORIZER_TYPES,
  DEFAULT_AUTHORIZED_TTL_MS,
  DEFAULT_UNAUTHORIZED_TTL_MS,
  MAX_WEBHOOK_TIMEOUT_MS,
  type ConfigAuthorizerType,
} from '../config/authorization.js';

type Condition = MatchCondition<RequestVars>;
export type AuthorizerEntry = AuthorizerEntryOf<Condition>;
export type AuthorizationConfiguration = AuthorizationConfigurationOf<Condition>;
export type ParseOptions = Omit<AuthorizationParseOptions<Condition>, 'compileCondition'>;

/** Reads the file and checks it; throws an AuthorizationConfigError whose message starts with the file name. */
export function loadAuthorizationConfiguration(file: string): AuthorizationConfiguration {
  return loadAuthorizationDocument(file, { compileCondition: compileMatchCondition });
}

/** Parses and checks the document's text, compiling match conditions as CEL. */
export function parseAuthorizationConfiguration(text: string, opts: ParseOptions = {}): AuthorizationConfiguration {
  return parseAuthorizationDocument(text, { ...opts, compileCondition: compileMatchCondition });
}
