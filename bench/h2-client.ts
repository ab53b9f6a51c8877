/**
 * The benchmarks' HTTP/2 client is the server's own lean client (src/util/h2/client.ts): one implementation
 * of the frames and HPACK, measured by the benchmarks and used by admission webhooks.
 */
export { H2Client, type H2ConnectOptions, type H2Response } from '../src/util/h2/client.js';
