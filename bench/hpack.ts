/** HPACK for the benchmarks' HTTP/2 client: the server's own (src/util/h2/hpack.ts), re-exported. */
export * from '../src/util/h2/hpack.js';
