/** The TracingConfiguration document is parsed in `src/config/tracing.ts`; re-exported for this folder's callers. */
export * from '../config/tracing.js';
