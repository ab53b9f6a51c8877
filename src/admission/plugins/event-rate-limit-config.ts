/** The EventRateLimit `Configuration` is parsed in `src/config/event-rate-limit.ts`; re-exported for this folder's callers. */
export * from '../../config/event-rate-limit.js';
