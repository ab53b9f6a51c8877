/** The AdmissionConfiguration document is parsed in `src/config/admission.ts`; re-exported for this folder's callers. */
export * from '../config/admission.js';
