/**
 * Entry of a server bundle built for a naming other than this graph's (naming-bundle.ts): the server, and the
 * spellings that graph's naming.ts chose, so callers and tests can see which naming it speaks.
 */
export { startServer } from './server.js';
export * as naming from '../api/naming.js';
