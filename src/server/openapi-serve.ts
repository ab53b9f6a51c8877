/**
 * Serving the OpenAPI documents as the reference does: `/openapi/v2` and `/openapi/v3/<group-version>` as
 * JSON or as gnostic protobuf by the Accept header (406 for anything else), validators for caching (an
 * ETag that is the SHA-512 of the JSON form, whatever form is sent, and Last-Modified), and the v3
 * documents answering a stale `hash` with a redirect and a current one with an immutable response.
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { parseAccept, type MediaRange } from '../encoding/media-type.js';
import { internalError, notAcceptable } from '../errors/index.js';
import { acceptsGzip } from './compression.js';
import type { Req, Res } from './http.js';
import type { OpenAPIV3 } from './openapi.js';
import { encodeOpenAPIV2 } from './openapi-v2-protobuf.js';
import { encodeOpenAPIV3 } from './openapi-v3-protobuf.js';

export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
/** The older spelling kubectl still asks for; answered with the current one as Content-Type. */
export const OPENAPI_V2_PROTOBUF_DEPRECATED = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
export const OPENAPI_V3_PROTOBUF = 'application/com.github.proto-openapi.spec.v3.v1.0+protobuf';
/** The older v3 spelling, still accepted and answered with the current one as Content-Type. */
export const OPENAPI_V3_PROTOBUF_DEPRECATED = 'application/com.github.proto-openapi.spec.v3@v1.0+protobuf';
const JSON_TYPE = 'application/json';

/** A media type a document is offered in, and the Content-Type it is sent with. */
interface Offer {
  mediaType: string;
  served: string;
}

const V2_OFFERS: readonly Offer[] = [
  { mediaType: JSON_TYPE, served: JSON_TYPE },
  { mediaType: OPENAPI_V2_PROTOBUF_DEPRECATED, served: OPENAPI_V2_PROTOBUF },
  { mediaType: OPENAPI_V2_PROTOBUF, served: OPENAPI_V2_PROTOBUF },
];
// In the reference's order of preference, which decides what a wildcard gets (JSON).
const V3_OFFERS: readonly Offer[] = [
  { mediaType: JSON_TYPE, served: JSON_TYPE },
  { mediaType: OPENAPI_V3_PROTOBUF, served: OPENAPI_V3_PROTOBUF },
  { mediaType: OPENAPI_V3_PROTOBUF_DEPRECATED, served: OPENAPI_V3_PROTOBUF },
];

const wildcards = (r: MediaRange) => (r.type === '*' ? 2 : 0) + (r.subtype === '*' ? 1 : 0);

/**
 * The offer to serve for an Accept header: the ranges by quality, then the more specific first (as the
 * reference orders them), each trying the offers in order; undefined when nothing matches. An empty or
 * absent header accepts anything.
 */
export function chooseOffer<T extends Offer>(accept: string | undefined, offers: readonly T[]): T | undefined {
  const ranges = [...parseAccept(accept)].map((r, i) => ({ r, i }));
  ranges.sort((a, b) => b.r.q - a.r.q || wildcards(a.r) - wildcards(b.r) || a.i - b.i);
  for (const { r } of ranges) {
    for (const o of offers) {
      const slash = o.mediaType.indexOf('/');
      if ((r.type === '*' || r.type === o.mediaType.slice(0, slash)) && (r.subtype === '*' || r.subtype === o.mediaType.slice(slash + 1))) return o;
    }
  }
  return undefined;
}

const sha512Hex = (b: Buffer) => createHash('sha512').update(b).digest('hex').toUpperCase();

type ProtobufEncoder = (doc: Record<string, unknown>) => Buffer;

/**
 * One version of a document, with its validators; the protobuf form is encoded on first request only, so
 * it lives exactly as long as this version of the JSON (a new set of served types builds new objects).
 */
export class ServedOpenAPIDocument {
  readonly etag: string;
  private pb: { bytes: Buffer } | { error: string } | undefined;
  private readonly gzipped: { json?: Buffer; protobuf?: Buffer } = {};

  constructor(
    readonly json: Buffer,
    readonly lastModified: Date,
    private readonly encode: ProtobufEncoder,
    private readonly what: string,
  ) {
    this.etag = sha512Hex(json);
  }

  /** Encoded once: a document it cannot carry fails every request the same way, without retrying. */
  protobuf(): Buffer {
    if (!this.pb) {
      try {
        // From the serialized form: the object tree is not kept alive for a client that may never ask.
        this.pb = { bytes: this.encode(JSON.parse(this.json.toString('utf8')) as Record<string, unknown>) };
      } catch (e) {
        this.pb = { error: e instanceof Error ? e.message : String(e) };
      }
    }
    if ('error' in this.pb) throw internalError(`the ${this.what} has no protobuf form: ${this.pb.error}`);
    return this.pb.bytes;
  }

  /** A form's bytes gzipped, also once (the reference always offers gzip for this document). */
  gzip(form: 'json' | 'protobuf'): Buffer {
    return (this.gzipped[form] ??= gzipSync(form === 'json' ? this.json : this.protobuf()));
  }
}

export type ServedOpenAPIV2 = ServedOpenAPIDocument;

/** A JSON document with its validators. */
export interface ServedJson {
  json: Buffer;
  etag: string;
  lastModified: Date;
}

function servedJson(value: unknown, lastModified: Date): ServedJson {
  const json = Buffer.from(JSON.stringify(value));
  return { json, etag: sha512Hex(json), lastModified };
}

/** The v2 document, serialized once per version of it. */
export function servedOpenAPIV2(doc: Record<string, unknown>, lastModified = new Date()): ServedOpenAPIV2 {
  return new ServedOpenAPIDocument(Buffer.from(JSON.stringify(doc)), lastModified, encodeOpenAPIV2, 'OpenAPI v2 document');
}

export interface ServedOpenAPIV3 {
  index: ServedJson;
  documents: Map<string, ServedOpenAPIDocument>;
}

/** The v3 index and documents, serialized once; each document's ETag is the hash its index URL carries. */
export function servedOpenAPIV3(v3: OpenAPIV3, lastModified = new Date()): ServedOpenAPIV3 {
  const documents = new Map<string, ServedOpenAPIDocument>();
  for (const [k, d] of v3.documents) {
    documents.set(k, new ServedOpenAPIDocument(Buffer.from(JSON.stringify(d)), lastModified, encodeOpenAPIV3, `OpenAPI v3 document ${k}`));
  }
  return { index: servedJson(v3.index, lastModified), documents };
}

export function serveOpenAPIV2(req: Req, res: Res, doc: ServedOpenAPIV2): void {
  res.setHeader('Vary', 'Accept');
  const offer = chooseOffer(req.headers.accept, V2_OFFERS);
  if (!offer) throw notAcceptable(`only the following media types are accepted: ${V2_OFFERS.map((o) => o.mediaType).join(', ')}`);
  const form = offer.served === JSON_TYPE ? 'json' : 'protobuf';
  res.setHeader('Cache-Control', 'no-cache, private');
  if (acceptsGzip(req)) {
    res.setHeader('Vary', 'Accept, Accept-Encoding');
    return serveContent(req, res, offer.served, doc.gzip(form), doc.etag, doc.lastModified, 'gzip');
  }
  serveContent(req, res, offer.served, form === 'json' ? doc.json : doc.protobuf(), doc.etag, doc.lastModified);
}

/** `/openapi/v3`: the index, JSON whatever is asked (as the reference), with its own ETag. */
export function serveOpenAPIV3Index(req: Req, res: Res, index: ServedJson): void {
  res.setHeader('Cache-Control', 'no-cache, private');
  serveContent(req, res, JSON_TYPE, index.json, index.etag, index.lastModified);
}

/**
 * `/openapi/v3/<key>`. The index links each document with `?hash=<its ETag>`: that exact URL may be cached
 * for good; an outdated hash is redirected to the current URL (301), so clients never keep stale content.
 */
export function serveOpenAPIV3Document(
  req: Req,
  res: Res,
  url: { searchParams: URLSearchParams },
  key: string,
  doc: ServedOpenAPIDocument,
): void {
  res.setHeader('Vary', 'Accept');
  const offer = chooseOffer(req.headers.accept, V3_OFFERS);
  if (!offer) throw notAcceptable(`only the following media types are accepted: ${V3_OFFERS.map((o) => o.mediaType).join(', ')}`);
  const hash = url.searchParams.get('hash');
  if (hash) {
    if (hash !== doc.etag) {
      res.statusCode = 301;
      res.setHeader('Location', openAPIV3URL(key, doc.etag));
      res.end();
      return;
    }
    res.setHeader('Cache-Control', 'public, immutable');
    res.setHeader('Expires', new Date(Date.now() + 365 * 24 * 3600 * 1000).toUTCString());
  } else res.setHeader('Cache-Control', 'no-cache, private');
  // The protobuf form is built (and may fail) only once the validators say a body is to be sent.
  serveContent(req, res, offer.served, () => (offer.served === JSON_TYPE ? doc.json : doc.protobuf()), doc.etag, doc.lastModified);
}

export const openAPIV3URL = (key: string, etag: string) => `/openapi/v3/${key}?hash=${etag}`;

/** Whether an If-None-Match / If-Match value names this entity tag (weak comparison, `*` matches). */
function matchesETag(header: string, quoted: string): boolean {
  return header.split(',').some((t) => {
    const tag = t.trim();
    return tag === '*' || tag.replace(/^W\//, '') === quoted;
  });
}

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

/**
 * What the request's validators make of the current entity, in HTTP's order of precedence: If-Match (or
 * else If-Unmodified-Since) failing is 412; If-None-Match (or else If-Modified-Since) matching is 304 for
 * reads and 412 for anything else; otherwise the full 200.
 */
export function conditionalStatus(h: Req['headers'], method: string, etag: string, lastModified: Date): 200 | 304 | 412 {
  const quoted = `"${etag}"`;
  const ius = h['if-unmodified-since'] ? Date.parse(h['if-unmodified-since']) / 1000 : NaN;
  if (h['if-match'] !== undefined ? !matchesETag(h['if-match'], quoted) : seconds(lastModified) > ius) return 412;
  const read = method === 'GET' || method === 'HEAD';
  const ims = h['if-modified-since'] ? Date.parse(h['if-modified-since']) / 1000 : NaN;
  if (h['if-none-match'] !== undefined ? matchesETag(h['if-none-match'], quoted) : read && seconds(lastModified) <= ims) return read ? 304 : 412;
  return 200;
}

/**
 * The body (given, or built on demand so that a 304 costs no encoding), or an empty 304/412 by the
 * request's validators. Byte ranges are not offered.
 */
function serveContent(req: Req, res: Res, contentType: string, content: Buffer | (() => Buffer), etag: string, lastModified: Date, encoding?: string): void {
  res.setHeader('ETag', `"${etag}"`);
  const method = req.method ?? 'GET';
  const status = conditionalStatus(req.headers, method, etag, lastModified);
  if (status !== 200) {
    res.statusCode = status;
    res.end();
    return;
  }
  const body = typeof content === 'function' ? content() : content;
  res.statusCode = 200;
  res.setHeader('Content-Type', contentType);
  if (encoding) res.setHeader('Content-Encoding', encoding);
  res.setHeader('Last-Modified', lastModified.toUTCString());
  res.setHeader('Content-Length', body.length);
  res.end(method === 'HEAD' ? undefined : body);
}
