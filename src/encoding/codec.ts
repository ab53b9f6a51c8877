import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { badRequest, unsupportedMediaType } from '../errors/index.js';
import { PROTOBUF_MEDIA_TYPE } from '../api/naming.js';
import { JSON_MEDIA, mediaTypeOf, YAML_MEDIA } from './media-type.js';
import { decodeProtobuf, encodeProtobuf } from './protobuf/index.js';

/** Media types a request body may have for create and update (protobuf must be declared, spec 4.4). */
export const BODY_MEDIA_TYPES = [JSON_MEDIA, YAML_MEDIA, PROTOBUF_MEDIA_TYPE] as const;

/** Decodes a request body; the media type must be one of `allowed` (415 otherwise), the bytes must parse (400). */
export function decodeBody(contentType: string | undefined, body: Buffer, allowed: readonly string[] = BODY_MEDIA_TYPES): unknown {
  const media = mediaTypeOf(contentType || JSON_MEDIA);
  if (!allowed.includes(media)) {
    throw unsupportedMediaType(`the body of the request was in an unknown format - accepted media types include: ${allowed.join(', ')}`);
  }
  if (media === PROTOBUF_MEDIA_TYPE) return decodeProtobuf(body);
  const text = body.toString('utf8');
  if (media === YAML_MEDIA || media.endsWith('+yaml')) {
    // JSON is valid YAML and far cheaper to parse: most apply bodies from clients are JSON.
    if (looksLikeJson(text)) {
      try {
        return JSON.parse(text);
      } catch {
        /* not JSON after all: parse as YAML */
      }
    }
    return parseYamlText(text);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw badRequest(`the body of the request could not be decoded as JSON: ${(e as Error).message}`);
  }
}

export function parseYamlText(text: string): unknown {
  try {
    return parseYaml(text, { version: '1.1', uniqueKeys: false, maxAliasCount: 100 });
  } catch (e) {
    throw badRequest(`the body of the request could not be decoded as YAML: ${(e as Error).message}`);
  }
}

export function encode(value: unknown, mediaType: string): Buffer {
  if (mediaType === PROTOBUF_MEDIA_TYPE) return encodeProtobuf(value as Parameters<typeof encodeProtobuf>[0]);
  if (mediaType === YAML_MEDIA) return Buffer.from(stringifyYaml(value, { version: '1.1', aliasDuplicateObjects: false }));
  return Buffer.from(JSON.stringify(value));
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
