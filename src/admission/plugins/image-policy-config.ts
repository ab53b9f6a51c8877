/** The ImagePolicyWebhook configuration is parsed in `src/config/image-policy.ts`; re-exported for this folder's callers. */
export * from '../../config/image-policy.js';
