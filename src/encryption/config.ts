/** The EncryptionConfiguration document is parsed in `src/config/encryption.ts`; re-exported for this folder's callers. */
export * from '../config/encryption.js';
