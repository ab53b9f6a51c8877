export type { Backend, HistoryOptions, KeyValue, ListOptions, ListResult, WatchEvent, ProgressNotify } from './backend.js';
export { DEFAULT_HISTORY_WINDOW_MS } from './backend.js';
export { StorageError, isStorageError, type StorageErrorCode } from './errors.js';
export { MemoryBackend } from './memory/memory-backend.js';
export { openBackend, type BackendSpec } from './open.js';
export { InstrumentedBackend, type StorageCallHook, type StorageOperation } from './instrumented-backend.js';
