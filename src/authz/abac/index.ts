/** The ABAC authorization mode (reference behaviour): a static policy file, one JSON policy per line. */
export { AbacAuthorizer } from './authorizer.js';
export { parseAbacPolicy, type AbacPolicy } from './policy.js';
