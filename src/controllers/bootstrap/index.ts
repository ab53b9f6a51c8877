/** The bootstrap token controllers (spec 2.9, 3.5): both run only when named in the controller list. */
export { bootstrapSignerController } from './signer.js';
export { tokenCleanerController } from './cleaner.js';
export { detachedJws, signedClusterInfoData, signingToken, expirationOf, parseRfc3339, CLUSTER_INFO_NAME, CLUSTER_INFO_NAMESPACE, JWS_KEY_PREFIX } from './token.js';
