import { GROUP_SUFFIX } from '../api/naming.js';
import { badRequest, gone } from '../errors/index.js';

/**
 * The opaque continue token of a chunked list (spec 4.6): the snapshot revision and the next key to read.
 * Encoded as base64url JSON; clients must treat it as opaque.
 */
export interface ContinueToken {
  rv: number;
  start: string;
}

export function encodeContinue(t: ContinueToken): string {
  return Buffer.from(JSON.stringify({ v: 1, rv: t.rv, start: t.start })).toString('base64url');
}

/**
 * A token we issue holds a storage key (namespace and name, each bounded) and a revision: well under this.
 * Anything longer is not ours, and is refused before it is decoded.
 */
export const MAX_CONTINUE_CHARS = 4096;

export function decodeContinue(token: string, prefix: string): ContinueToken {
  if (token.length > MAX_CONTINUE_CHARS) throw badRequest(`continue key is not valid: longer than ${MAX_CONTINUE_CHARS} characters`);
  let parsed: { v?: unknown; rv?: unknown; start?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw badRequest('continue key is not valid: it could not be decoded');
  }
  const rv = parsed.rv;
  if (parsed.v !== 1 || typeof rv !== 'number' || !Number.isSafeInteger(rv) || typeof parsed.start !== 'string' || rv <= 0) {
    throw badRequest(`continue key is not valid: incorrect encoded start resourceVersion (version meta.${GROUP_SUFFIX}/v1)`);
  }
  if (!parsed.start.startsWith(prefix)) throw badRequest('continue key is not valid: it belongs to another collection');
  return { rv, start: parsed.start };
}

export const continueExpired = () =>
  gone(
    'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
  );
