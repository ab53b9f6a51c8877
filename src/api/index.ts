export * from './types.js';
export * as naming from './naming.js';
export type { Schema } from './schema.js';
export type * from './generated-types.js';
