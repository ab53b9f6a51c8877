export type { ResourceType, Strategy, Schema, TableColumn, NameRule, AsyncConversion } from './types.js';
export { GenericStore, type WriteOptions, type DeleteOptions, type StoreAdmission } from './store.js';
export { Registry } from './registry.js';
export { listObjects, makeFilter, listReadMode, type ListParams, type ListResult } from './list-watch.js';
export { collectionPrefix, itemKey } from './keys.js';
export { ResourceReader, type ListBody } from './reader.js';
export { watchFromCache, checkWatchRequest, type WatchRequest, type WatchView } from './watch-stream.js';
export { objectJson, decodeFromStorage, decodeConverted } from './codec.js';
export type { RegistryOptions } from './registry.js';
