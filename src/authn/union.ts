/**
 * Several authentication methods at once (spec 5.1 item 2): the first to return a user decides. Anything
 * short of a user ends in one generic 401, so a client cannot probe which method rejected it.
 */
import { unauthorized } from '../errors/index.js';
import { AnonymousAuthenticator } from './anonymous.js';
import { AUTHENTICATED_GROUP, type AuthRequest, type Authenticator, type UserInfo } from './types.js';

export interface UnionOptions {
  /** Sees each authenticator's failure (for logs); the client only ever gets the generic 401. */
  onError?: (err: unknown) => void;
}

export class UnionAuthenticator implements Authenticator {
  private readonly authenticators: readonly Authenticator[];

  constructor(
    authenticators: readonly Authenticator[],
    private readonly options: UnionOptions = {},
  ) {
    this.authenticators = [...authenticators];
  }

  /**
   * Never returns undefined: a failure of one method (bad token, webhook error) is remembered while the
   * later ones get their chance; when none returns a user — credentials nobody accepted, or no credentials
   * and no anonymous access — the request is unauthorized.
   */
  async authenticate(req: AuthRequest): Promise<UserInfo> {
    for (const a of this.authenticators) {
      let user: UserInfo | undefined;
      try {
        const r = a.authenticate(req);
        user = r instanceof Promise ? await r : r;
      } catch (err) {
        this.options.onError?.(err);
        continue;
      }
      if (user === undefined) continue;
      if (user.username === '') {
        // Spec 7: an empty computed username fails authentication.
        this.options.onError?.(new Error('authenticator returned an empty username'));
        continue;
      }
      return a instanceof AnonymousAuthenticator ? { ...user, groups: [...user.groups] } : withAuthenticatedGroup(user);
    }
    throw unauthorized();
  }
}

/** Spec 5.1 item 3 / 2.7: every authenticated user is in `system:authenticated`, once. */
function withAuthenticatedGroup(user: UserInfo): UserInfo {
  const groups = user.groups.includes(AUTHENTICATED_GROUP) ? [...user.groups] : [...user.groups, AUTHENTICATED_GROUP];
  return { ...user, groups };
}
