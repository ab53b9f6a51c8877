/** The one error type storage throws. The API layer maps each code to an HTTP status. */
export type StorageErrorCode =
  | 'KeyExists'
  | 'NotFound'
  | 'Conflict'
  | 'Compacted'
  | 'FutureRevision'
  | 'Unavailable'
  | 'Timeout'
  /** The stored bytes of one key cannot be turned back into a value (e.g. encrypted with a removed key). */
  | 'Unreadable';

export class StorageError extends Error {
  override readonly name = 'StorageError';
  constructor(
    readonly code: StorageErrorCode,
    message: string,
    readonly details: {
      key?: string;
      /** For Compacted: the oldest revision still available. For FutureRevision: the current revision. */
      revision?: number;
      /** For Conflict: the modRevision actually stored. */
      actualRevision?: number;
      cause?: unknown;
    } = {},
  ) {
    super(message);
  }
}

export const keyExists = (key: string) => new StorageError('KeyExists', `key ${key} already exists`, { key });
export const keyNotFound = (key: string) => new StorageError('NotFound', `key ${key} not found`, { key });
export const conflict = (key: string, expected: number, actual: number) =>
  new StorageError('Conflict', `key ${key}: expected modRevision ${expected}, found ${actual}`, {
    key,
    actualRevision: actual,
  });
export const compacted = (requested: number, compactRevision: number) =>
  new StorageError(
    'Compacted',
    `revision ${requested} has been compacted; the oldest available revision is ${compactRevision}`,
    { revision: compactRevision },
  );
export const futureRevision = (requested: number, current: number) =>
  new StorageError('FutureRevision', `revision ${requested} is newer than the current revision ${current}`, {
    revision: current,
  });

export function isStorageError(e: unknown, code?: StorageErrorCode): e is StorageError {
  return e instanceof StorageError && (code === undefined || e.code === code);
}

/** Wraps anything a driver throws; StorageErrors pass through unchanged. */
export function asStorageError(e: unknown, what: string): StorageError {
  if (e instanceof StorageError) return e;
  const msg = e instanceof Error ? e.message : String(e);
  return new StorageError('Unavailable', `${what}: ${msg}`, { cause: e });
}
