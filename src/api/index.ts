export * from './types.js';
export * as naming from './naming.js';
