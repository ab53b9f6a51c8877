/** The webhook authorizer (spec 5.7): SubjectAccessReview over a kubeconfig-configured backend, cached. */
export { WebhookAuthorizer, cacheKey, CACHE_ENTRIES, type FailurePolicy, type WebhookSettings, type WebhookAuthorizerDeps } from './authorizer.js';
export { compileMatchCondition, MAX_MATCH_CONDITIONS, type RequestVars } from './conditions.js';
export { sarSpec, sarBody, parseSarAnswer, SAR_VERSIONS, type SarSpec, type SarStatus, type SarVersion } from './sar.js';
export { ExpiringCache } from './cache.js';
