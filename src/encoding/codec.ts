import { Lexer, parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { badRequest, clip, tooLarge, unsupportedMediaType } from '../errors/index.js';
import { PROTOBUF_MEDIA_TYPE } from '../api/naming.js';
import { inspectTree, jsonNestingExceeds, MAX_NESTING_DEPTH, MAX_REQUEST_BYTES } from './limits.js';
import { JSON_MEDIA, mediaTypeOf, YAML_MEDIA } from './media-type.js';
import { decodeProtobuf, encodeProtobuf } from './protobuf/index.js';

/**
 * Most YAML nodes (scalars, collections, aliases) in one body. The YAML library holds about a kilobyte per
 * node while it parses, so a 3 MiB body of tiny nodes would take over a gigabyte; this keeps the peak near
 * 50 MB. Large objects come as JSON (as clients send them), which has no such cost.
 */
export const MAX_YAML_NODES = 50_000;

/** Media types a request body may have for create and update (protobuf must be declared, spec 4.4). */
export const BODY_MEDIA_TYPES = [JSON_MEDIA, YAML_MEDIA, PROTOBUF_MEDIA_TYPE] as const;

/** Decodes a request body; the media type must be one of `allowed` (415 otherwise), the bytes must parse (400). */
export function decodeBody(contentType: string | undefined, body: Buffer, allowed: readonly string[] = BODY_MEDIA_TYPES): unknown {
  const media = mediaTypeOf(contentType || JSON_MEDIA);
  if (!allowed.includes(media)) {
    throw unsupportedMediaType(`the body of the request was in an unknown format - accepted media types include: ${allowed.join(', ')}`);
  }
  if (media === PROTOBUF_MEDIA_TYPE) return checkDecodedTree(decodeProtobuf(body), 'protobuf');
  const text = body.toString('utf8');
  if (media === YAML_MEDIA || media.endsWith('+yaml')) {
    // JSON is valid YAML and far cheaper to parse: most apply bodies from clients are JSON.
    if (looksLikeJson(text)) {
      if (jsonNestingExceeds(body, MAX_NESTING_DEPTH)) throw tooDeep('YAML');
      try {
        return JSON.parse(text);
      } catch {
        /* not JSON after all: parse as YAML */
      }
    }
    return parseYamlText(text);
  }
  // Checked on the bytes first: the parser itself copes with any depth, but later walks recurse.
  if (jsonNestingExceeds(body, MAX_NESTING_DEPTH)) throw tooDeep('JSON');
  try {
    return JSON.parse(text);
  } catch (e) {
    throw badRequest(`the body of the request could not be decoded as JSON: ${clip((e as Error).message)}`);
  }
}

/**
 * YAML 1.1 text as a plain JSON value. Bounded before and after parsing: the node count (the parser's
 * memory), aliases (the library's count), the expanded size (aliases repeat what they name), nesting depth
 * and cycles (an alias inside the node it names). Aliased nodes are copied, so the result is a tree that
 * callers may change in place, as if the client had written it out.
 */
export function parseYamlText(text: string): unknown {
  if (yamlNodesExceed(text, MAX_YAML_NODES)) {
    throw tooLarge(`the YAML body is too large: it has more than ${MAX_YAML_NODES} nodes; send large objects as JSON`);
  }
  let value: unknown;
  try {
    value = parseYaml(text, { version: '1.1', uniqueKeys: false, maxAliasCount: 100 });
  } catch (e) {
    // The library reports its own stack overflow on deep input as an error like any other: a 400 too.
    throw badRequest(`the body of the request could not be decoded as YAML: ${clip((e as Error).message)}`);
  }
  return checkDecodedTree(value, 'YAML');
}

/** The decoded value if within the limits, copied when aliases made parts of it shared. */
function checkDecodedTree(value: unknown, format: 'YAML' | 'protobuf'): unknown {
  const report = inspectTree(value, { maxDepth: MAX_NESTING_DEPTH, maxBytes: MAX_REQUEST_BYTES, graph: format === 'YAML' });
  // A JSON round trip writes the aliases out (bounded above) and keeps leaves such as a YAML timestamp.
  if (report.ok) return report.shared ? (JSON.parse(JSON.stringify(value)) as unknown) : value;
  if (report.problem === 'depth') throw tooDeep(format);
  if (report.problem === 'cycle') {
    throw badRequest('the body of the request could not be decoded as YAML: an alias refers to a node that contains it (a cycle)');
  }
  throw tooLarge(`the ${format} body is too large: with its aliases expanded it is over the limit of ${MAX_REQUEST_BYTES} bytes`);
}

const tooDeep = (format: string) =>
  badRequest(`the body of the request could not be decoded as ${format}: it nests objects and arrays deeper than the limit of ${MAX_NESTING_DEPTH} levels`);

/** Tokens that start a node: a scalar (plain, quoted, block), a collection, an entry indicator, an alias. */
const NODE_START = new Set(['\x1f', '"', "'", '[', '{', '-', '?', ':', '*']);

/**
 * True when a YAML text has more than `max` nodes (counted from a superset of node-starting tokens), found
 * with the library's streaming lexer, which holds one token at a time and stops at the limit.
 */
export function yamlNodesExceed(text: string, max: number): boolean {
  // Every counted token takes at least one character: shorter texts cannot exceed the limit.
  if (text.length <= max) return false;
  let n = 0;
  for (const token of new Lexer().lex(text)) {
    if (NODE_START.has(token.charAt(0)) && ++n > max) return true;
  }
  return false;
}

export function encode(value: unknown, mediaType: string): Buffer {
  if (mediaType === PROTOBUF_MEDIA_TYPE) return encodeProtobuf(value as Parameters<typeof encodeProtobuf>[0]);
  if (mediaType === YAML_MEDIA) return Buffer.from(yamlText(value));
  return Buffer.from(JSON.stringify(value));
}

/** YAML of a value; one too deep for the YAML library's recursion is written as JSON, which is YAML too. */
function yamlText(value: unknown): string {
  try {
    return stringifyYaml(value, { version: '1.1', aliasDuplicateObjects: false });
  } catch (e) {
    if (e instanceof RangeError) return `${JSON.stringify(value)}\n`;
    throw e;
  }
}

/** True when a body starts like a JSON object (so YAML parsing can be skipped). */
export function looksLikeJson(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    return c === 0x7b; // {
  }
  return false;
}
