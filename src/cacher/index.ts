export { Cacher, type CacherOptions } from './cacher.js';
export { EventWindow } from './event-window.js';
export type { CacheEvent, CacheEventType, CachedItem } from './types.js';
