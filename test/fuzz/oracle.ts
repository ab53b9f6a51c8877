/**
 * Whether one answer is acceptable (pure). An answer fails when it is a 5xx that is not documented below,
 * an error without a `Status` body in the encoding it was sent in, a Status whose code differs from the
 * HTTP status, a dropped connection, or no answer within the hang limit.
 */
import { gunzipSync } from 'node:zlib';
import { parse as parseYaml } from 'yaml';
import { PROTOBUF_MEDIA_TYPE } from '../../src/api/naming.js';
import { decodeProtobuf } from '../../src/encoding/index.js';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** No headers, or no end of a non-streaming body, within the hang limit. */
  hung?: boolean;
  /** A transport error before an answer (reset, refused). */
  error?: string;
  /** The fuzzer stopped reading an open stream on purpose. */
  cut?: boolean;
  /** Node refused to send the request (a path or header character HTTP does not allow): not judged. */
  unsendable?: string;
}

/**
 * The 5xx answers a request may get, each with why: anything else is a bug.
 * - 504 for a resourceVersion newer than the store's (spec 7: "wait then 504", message names it too large).
 * - 503 when the store or the server is not able to serve (overload, shutdown, a store that is down).
 * - 500 "range is full": no free cluster IP or node port left for a Service (the reference answers 500).
 */
export const DOCUMENTED_5XX: readonly { code: number; message: RegExp; why: string }[] = [
  { code: 504, message: /Too large resource version/i, why: 'resourceVersion newer than the store (spec 7)' },
  { code: 503, message: /unavailable|shutting down|not ready|overload|too many/i, why: 'store or server unavailable' },
  { code: 500, message: /range is full/i, why: 'no free cluster IP or node port (reference behaviour)' },
];

/** Why `answer` to a `method` request is a failure, or undefined. (429 from overload is a 4xx Status, judged as any.) */
export function judge(method: string, answer: Answer): string | undefined {
  if (answer.unsendable !== undefined) return undefined;
  if (answer.error) return `transport error: ${answer.error}`;
  if (answer.hung) return `no answer within the hang limit (status ${answer.status || 'none'})`;
  if (answer.status < 400 || method === 'HEAD') {
    return answer.status >= 500 ? `HEAD answered ${answer.status}` : undefined;
  }
  const decoded = decodeStatus(answer);
  if (typeof decoded === 'string') return `error ${answer.status} without a Status body: ${decoded}`;
  if (decoded.code !== answer.status) return `Status code ${String(decoded.code)} differs from HTTP status ${answer.status}`;
  if (answer.status >= 500) {
    const message = typeof decoded.message === 'string' ? decoded.message : '';
    if (!DOCUMENTED_5XX.some((d) => d.code === answer.status && d.message.test(message))) return `undocumented ${answer.status}: ${message.slice(0, 500)}`;
  }
  return undefined;
}

/** The Status in an error body, decoded by its content type (JSON, YAML or protobuf), or why it is not one. */
export function decodeStatus(answer: Pick<Answer, 'headers' | 'body'>): Record<string, unknown> | string {
  let body = answer.body;
  const encoding = String(answer.headers['content-encoding'] ?? '');
  if (encoding === 'gzip') {
    try {
      body = gunzipSync(body);
    } catch (e) {
      return `content-encoding gzip but the body does not gunzip (${(e as Error).message})`;
    }
  } else if (encoding !== '') return `unexpected content-encoding ${encoding}`;
  const type = String(answer.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  let obj: unknown;
  try {
    if (type === 'application/json') obj = JSON.parse(body.toString('utf8'));
    else if (type === 'application/yaml') obj = parseYaml(body.toString('utf8'));
    else if (type === PROTOBUF_MEDIA_TYPE) obj = decodeProtobuf(body);
    else return `content-type "${type}" (${body.length} bytes: ${JSON.stringify(body.subarray(0, 120).toString('utf8'))})`;
  } catch (e) {
    return `a ${type} body that does not decode (${(e as Error).message}): ${JSON.stringify(body.subarray(0, 120).toString('utf8'))}`;
  }
  if (!obj || typeof obj !== 'object' || (obj as { kind?: unknown }).kind !== 'Status') return `a ${type} body of kind ${JSON.stringify((obj as { kind?: unknown } | null)?.kind)}`;
  return obj as Record<string, unknown>;
}

/** Whether a protobuf-only Accept header was answered with an error in another encoding (reported apart). */
export function protobufAskedJsonGiven(accept: string | undefined, answer: Pick<Answer, 'status' | 'headers' | 'body'>): boolean {
  // A request line node's HTTP/1.1 parser refuses is answered before any header (Accept included) is read.
  const unparsed = answer.status === 400 && answer.body.includes('the request is not valid HTTP/1.1');
  return accept === PROTOBUF_MEDIA_TYPE && answer.status >= 400 && answer.status !== 406 && !unparsed && !String(answer.headers['content-type'] ?? '').startsWith(PROTOBUF_MEDIA_TYPE);
}
