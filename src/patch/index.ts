/** Patch formats of spec 4.3. Strategic merge and apply live elsewhere; these are the format-only pieces. */
export { applyMergePatch } from './merge-patch.js';
export { applyJsonPatch, parsePointer } from './json-patch.js';
export { applyStrategicMergePatch } from './strategic-merge.js';
export { cloneJson, jsonEqual, setOwn } from './json.js';
export { JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH_YAML, APPLY_PATCH_CBOR } from './mediaTypes.js';
