/**
 * The authentication seam (architecture: "The seams"; spec 5.1): each method is an Authenticator, the
 * union decides. Values in UserInfo are opaque until an authorizer interprets them.
 */

/** Spec 2.7 reserved identities. */
export const ANONYMOUS_USER = 'system:anonymous';
export const UNAUTHENTICATED_GROUP = 'system:unauthenticated';
export const AUTHENTICATED_GROUP = 'system:authenticated';

export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export interface AuthRequest {
  headers: Record<string, string | string[] | undefined>;
  /** DER of the verified client certificate chain, when any */
  peerCertificate?: unknown;
}

/** Returns the user, or undefined for "no opinion" (no credentials of this kind). Throws StatusError 401 when credentials of its kind are present but wrong. */
export interface Authenticator {
  /** Methods that need no I/O answer synchronously (no promise, no turn of the microtask queue). */
  authenticate(req: AuthRequest): UserInfo | undefined | Promise<UserInfo | undefined>;
}
