/** Component configuration documents (spec 2.12): parse, default, validate. */
export * from './proxy.js';
export * from './scheduler.js';
export * from './controller-manager.js';
export * from './controller-names.js';
