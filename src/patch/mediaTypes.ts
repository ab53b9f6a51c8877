/** PATCH `Content-Type` values (spec 4.3). */
export const JSON_PATCH = 'application/json-patch+json';
export const MERGE_PATCH = 'application/merge-patch+json';
export const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';
export const APPLY_PATCH_YAML = 'application/apply-patch+yaml';
export const APPLY_PATCH_CBOR = 'application/apply-patch+cbor';
