/** `Authorization: Bearer <token>` (spec 5.3). */
import { unauthorized } from '../errors/index.js';
import { authorizationHeader } from './credentials.js';
import type { AuthRequest } from './types.js';

const NO_SPACE = /^\S+$/;

/**
 * The bearer token, or undefined when there is no Authorization header or it uses another scheme (Basic,
 * ...), which other authenticators may understand. A header that says Bearer but does not hold exactly one
 * token after a single space is a 401: guessing which part was meant could authenticate the wrong string.
 */
export function bearerToken(headers: AuthRequest['headers']): string | undefined {
  // Every token authenticator of the union asks for the same request's token: the answer is kept per
  // headers object, so each gets the same string, whose hash V8 computes once for all their table lookups
  // (a fresh slice per call meant hashing a long OIDC token once per authenticator).
  const known = tokenOf.get(headers);
  if (known !== undefined) return known === NONE ? undefined : known;
  const token = parseBearer(headers);
  tokenOf.set(headers, token ?? NONE);
  return token;
}

const NONE = '';
const tokenOf = new WeakMap<object, string>();

function parseBearer(headers: AuthRequest['headers']): string | undefined {
  const value = authorizationHeader(headers);
  if (value === undefined) return undefined;
  if (value.startsWith('Bearer ')) {
    // The usual spelling, without building a match (every request): the same rule as below.
    const token = value.slice(7);
    if (!NO_SPACE.test(token)) throw unauthorized();
    return token;
  }
  const scheme = /^\S+/.exec(value)?.[0] ?? '';
  if (scheme.toLowerCase() !== 'bearer') return undefined;
  const rest = value.slice(scheme.length);
  if (!/^ \S+$/.test(rest)) throw unauthorized();
  return rest.slice(1);
}
