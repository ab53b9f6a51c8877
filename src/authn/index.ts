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
