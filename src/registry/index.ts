export type { ResourceType, Strategy, Schema, TableColumn, NameRule } from './types.js';
export { GenericStore, type WriteOptions, type DeleteOptions, type NamespaceState } from './store.js';
export { Registry } from './registry.js';
export { listObjects, listObject, watchObjects, makeFilter, listReadMode, type ListParams, type ListResult } from './list-watch.js';
export { collectionPrefix, itemKey } from './keys.js';
export { NamespaceLifecycle } from './namespace-lifecycle.js';
