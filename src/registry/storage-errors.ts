import { gone, internalError, StatusError, timeout } from '../errors/index.js';
import { isStorageError } from '../storage/index.js';

/** Maps a storage failure that the store did not handle itself to the Status clients expect. */
export function fromStorageError(e: unknown): never {
  if (isStorageError(e)) {
    switch (e.code) {
      case 'Compacted':
        throw gone(`The resourceVersion for the provided request is too old: ${e.message}`);
      case 'FutureRevision':
        throw timeout(`Too large resource version: ${e.message}`, 1);
      case 'Timeout':
        throw timeout(`storage timed out: ${e.message}`, 1);
      case 'Unavailable':
        throw new StatusError(503, 'ServiceUnavailable', `storage is unavailable: ${e.message}`, { retryAfterSeconds: 1 }, { 'Retry-After': '1' });
      default:
        throw internalError(e.message);
    }
  }
  throw e;
}

/**
 * A resourceVersion the server has not observed yet (spec 4.5): 504 with Retry-After, as the reference.
 * `requested` may be the client's text: a value past 2^53 has no exact number.
 */
export function tooLargeRV(requested: number | string, current: number) {
  return timeout(`Too large resource version: ${requested}, current: ${current}`, 1);
}
