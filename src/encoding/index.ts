export * from './media-type.js';
export * from './codec.js';
export * from './table.js';
export * from './unknown-fields.js';
export * from './duplicate-fields.js';
export { decodeProtobuf, encodeProtobuf, encodeWatchEventProtobuf, supportsProtobuf } from './protobuf/index.js';
export { jsonStringEnd } from './limits.js';
export { jsonContainerEnd, jsonMemberSpan } from './json-members.js';
