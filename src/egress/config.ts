/** The EgressSelectorConfiguration document is parsed in `src/config/egress-selector.ts`; re-exported for this folder's callers. */
export * from '../config/egress-selector.js';
