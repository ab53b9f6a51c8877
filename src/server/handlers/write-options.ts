import { PROTOBUF_MEDIA_TYPE } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import {
  findDuplicateFieldsJson,
  findDuplicateFieldsYaml,
  findUnknownFields,
  looksLikeJson,
  mediaTypeOf,
  pruneUnknownFields,
  strictDecodingMessage,
  warningFor,
  YAML_MEDIA,
} from '../../encoding/index.js';
import { badRequest } from '../../errors/index.js';
import type { ResourceType } from '../../registry/index.js';

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

export function fieldValidationOf(q: URLSearchParams): FieldValidation {
  const v = q.get('fieldValidation');
  if (v === null || v === '') return 'Warn';
  if (v === 'Ignore' || v === 'Warn' || v === 'Strict') return v;
  throw badRequest(`fieldValidation: Unsupported value: "${v}": supported values: "Ignore", "Warn", "Strict"`);
}

/**
 * The field manager of a write: `?fieldManager=`, else the program name of the User-Agent (the text before
 * the first `/`), as the reference infers it (spec 4.2). Apply requires it explicitly.
 */
export function fieldManagerOf(q: URLSearchParams, userAgent: string | undefined): string {
  const explicit = q.get('fieldManager');
  if (explicit !== null) {
    if (explicit.length === 0 || explicit.length > 128 || /[^\x20-\x7e]/.test(explicit)) {
      throw badRequest(`fieldManager: Invalid value: "${explicit}": must be between 1 and 128 printable characters`);
    }
    return explicit;
  }
  const program = (userAgent ?? '').split('/')[0]?.trim() ?? '';
  return program.length > 0 ? program.slice(0, 128) : 'unknown';
}

/**
 * Unknown and duplicate fields (spec 4.2, 7): Strict rejects the request naming all of them; Warn accepts it
 * with one `Warning` per field; Ignore drops them silently. Duplicates come from the raw body text; unknown
 * fields from the type's schema, checked on the object the write will store (after patching). `parsed` is
 * the body as the decoder read it (it saves parsing the text again).
 */
export function fieldChecker(mode: FieldValidation, type: ResourceType, body: Buffer, contentType: string | undefined, warnings: string[], parsed?: unknown) {
  let duplicates: string[] = [];
  if (mode !== 'Ignore' && body.length > 0) {
    const media = mediaTypeOf(contentType ?? 'application/json');
    if (media === YAML_MEDIA || media.endsWith('+yaml')) {
      const text = body.toString('utf8');
      duplicates = looksLikeJson(text) ? findDuplicateFieldsJson(text) : findDuplicateFieldsYaml(text);
    } else if (media !== PROTOBUF_MEDIA_TYPE) {
      // JSON: checked on the bytes, decoded to text only if a duplicate is possible. (A protobuf body
      // cannot repeat a field name: its fields are numbered.)
      duplicates = findDuplicateFieldsJson(body, parsed);
    }
  }
  let checkedDuplicates = false;
  return (obj: ApiObject): ApiObject => {
    const unknown = findUnknownFields(obj, type.schema);
    const dups = checkedDuplicates ? [] : duplicates;
    checkedDuplicates = true; // a retried write checks the same body once
    if (mode === 'Strict' && (unknown.length > 0 || dups.length > 0)) throw badRequest(strictDecodingMessage(unknown, dups));
    if (mode === 'Warn') {
      for (const f of unknown) warnings.push(warningFor(f, 'unknown'));
      for (const f of dups) warnings.push(warningFor(f, 'duplicate'));
    }
    return unknown.length > 0 ? pruneUnknownFields(obj, type.schema) : obj;
  };
}
