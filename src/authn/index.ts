export {
  ANONYMOUS_USER,
  AUTHENTICATED_GROUP,
  UNAUTHENTICATED_GROUP,
  type AuthRequest,
  type Authenticator,
  type UserInfo,
} from './types.js';
export { authorizationHeader, hasCredentials } from './credentials.js';
export { bearerToken } from './bearer.js';
export { TokenFileAuthenticator, parseTokenFile } from './token-file.js';
export { AnonymousAuthenticator } from './anonymous.js';
export { UnionAuthenticator, type UnionOptions } from './union.js';
export { peerCertificateChain, subjectNames, verifyClientChain } from './client-cert.js';
export { X509Authenticator } from './x509.js';
export { RequestHeaderAuthenticator, type RequestHeaderOptions } from './request-header.js';
export {
  BOOTSTRAP_TOKEN_SECRET_TYPE,
  BootstrapTokenAuthenticator,
  type BootstrapSecretLookup,
  validateBootstrapTokenSecret,
} from './bootstrap-token.js';
export {
  ServiceAccountAuthenticator,
  ServiceAccountTokenIssuer,
  loadKeyFile,
  loadSigningKey,
  serviceAccountUsername,
  type IssueRequest,
  type ServiceAccountAuthenticatorOptions,
  type ServiceAccountLookup,
} from './service-account.js';
export {
  DEFAULT_TOKEN_REVIEW_VERSION,
  TOKEN_REVIEW_VERSIONS,
  WebhookTokenAuthenticator,
  checkTokenWebhookConfig,
  tokenWebhookFromConfig,
  type RetryBackoff,
  type TokenReviewVersion,
  type TokenWebhookConfig,
} from './webhook-token.js';
export { keyIdOf } from './service-account.js';
export {
  AuthenticationConfigError,
  JwtAuthentication,
  jwtConfigurationOf,
  startJwtAuthentication,
  type JwtAuthenticationOptions,
  type JwtSettings,
  type OidcFlagOptions,
} from './jwt/index.js';
