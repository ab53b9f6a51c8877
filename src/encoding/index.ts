export * from './media-type.js';
export * from './codec.js';
