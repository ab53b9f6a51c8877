/** Anonymous access (spec 5.1 item 4): a request without any credentials becomes `system:anonymous`. */
import { hasCredentials } from './credentials.js';
import { ANONYMOUS_USER, UNAUTHENTICATED_GROUP, type AuthRequest, type Authenticator, type UserInfo } from './types.js';

export class AnonymousAuthenticator implements Authenticator {
  authenticate(req: AuthRequest): UserInfo | undefined {
    // Presented credentials must be judged by their own method: a bad token never falls back to anonymous.
    if (hasCredentials(req)) return undefined;
    return { username: ANONYMOUS_USER, groups: [UNAUTHENTICATED_GROUP] };
  }
}
