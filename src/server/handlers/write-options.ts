import { META_GROUP, PROTOBUF_MEDIA_TYPE } from '../../api/naming.js';
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
import { badRequest, fieldError, invalid, StatusError, unsupportedMediaType, type FieldError } from '../../errors/index.js';
import { APPLY_PATCH_YAML, JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH } from '../../patch/index.js';
import type { ResourceType } from '../../registry/index.js';

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

export function fieldValidationOf(q: URLSearchParams): FieldValidation {
  const v = q.get('fieldValidation');
  if (v === null || v === '') return 'Warn';
  if (v === 'Ignore' || v === 'Warn' || v === 'Strict') return v;
  throw badRequest(`fieldValidation: Unsupported value: "${v}": supported values: "Ignore", "Warn", "Strict"`);
}

/** The options object of a write, named by its 422 as the reference names it (`PatchOptions.meta...`). */
export type OptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions';

const FIELD_MANAGER_MAX_BYTES = 128;

/** 422 for bad write options: the reference validates them as an object of kind `<kind>` in the meta group. */
export function invalidOptions(kind: OptionsKind, errors: FieldError[]): StatusError {
  const e = invalid({ kind: `${kind}.${META_GROUP}`, name: '' }, errors);
  return new StatusError(422, 'Invalid', e.message, { ...e.details, group: META_GROUP, kind });
}

/** A given fieldManager: at most 128 bytes, every character printable (as Go's unicode.IsPrint). */
export function fieldManagerErrors(manager: string): FieldError[] {
  const errs: FieldError[] = [];
  if (Buffer.byteLength(manager, 'utf8') > FIELD_MANAGER_MAX_BYTES) errs.push(fieldError.tooLong('fieldManager', FIELD_MANAGER_MAX_BYTES));
  let offset = 0; // the reference reports byte offsets
  for (const ch of manager) {
    if (!/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(ch)) {
      const code = (ch.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0');
      errs.push(fieldError.invalid('fieldManager', manager, `invalid character U+${code} (at position ${offset})`));
    }
    offset += Buffer.byteLength(ch, 'utf8');
  }
  return errs;
}

/**
 * The field manager of a write: `?fieldManager=`, else the program name of the User-Agent (the text before
 * the first `/`), as the reference infers it (spec 4.2). An empty value counts as not given.
 */
export function fieldManagerOf(q: URLSearchParams, userAgent: string | undefined, kind: OptionsKind = 'CreateOptions'): string {
  const explicit = q.get('fieldManager') ?? '';
  if (explicit !== '') {
    const errs = fieldManagerErrors(explicit);
    if (errs.length > 0) throw invalidOptions(kind, errs);
    return explicit;
  }
  const program = (userAgent ?? '').split('/')[0]?.trim() ?? '';
  return program.length > 0 ? program.slice(0, FIELD_MANAGER_MAX_BYTES) : 'unknown';
}

/**
 * PatchOptions (spec 4.2, 4.3): `force` belongs to apply alone (given at all on another patch type, even
 * `false`, it is refused), and apply names its manager explicitly; both are 422 as in the reference.
 */
export function patchOptionsOf(q: URLSearchParams, patchType: string, userAgent: string | undefined): { fieldManager: string; force: boolean } {
  const forceRaw = q.get('force');
  if (forceRaw !== null && forceRaw !== 'true' && forceRaw !== 'false') throw badRequest(`force: Invalid value: "${forceRaw}": must be true or false`);
  const explicit = q.get('fieldManager') ?? '';
  const errs: FieldError[] = [];
  if (patchType !== APPLY_PATCH_YAML) {
    if (forceRaw !== null) errs.push(fieldError.forbidden('force', 'may not be specified for non-apply patch'));
  } else if (explicit === '') {
    errs.push(fieldError.required('fieldManager', 'Required value: is required for apply patch'));
  }
  if (explicit !== '') errs.push(...fieldManagerErrors(explicit));
  if (errs.length > 0) throw invalidOptions('PatchOptions', errs);
  return { fieldManager: fieldManagerOf(q, patchType === APPLY_PATCH_YAML ? undefined : userAgent, 'PatchOptions'), force: forceRaw === 'true' };
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

/** The patch type a PATCH names in its Content-Type (415 for any other). */
export function patchMediaType(contentType: string | undefined, custom = false): string {
  if (!contentType) throw unsupportedMediaType('a PATCH request needs a Content-Type naming the patch type');
  const media = mediaTypeOf(contentType);
  // Custom resources carry no patch strategies, so strategic merge patch is refused (spec 4.3).
  if (custom && media === STRATEGIC_MERGE_PATCH) throw unsupportedMediaType(`the body of the request was in an unknown format - accepted media types include: ${JSON_PATCH}, ${MERGE_PATCH}, ${APPLY_PATCH_YAML}`);
  if (media === JSON_PATCH || media === MERGE_PATCH || media === STRATEGIC_MERGE_PATCH || media === APPLY_PATCH_YAML) return media;
  throw unsupportedMediaType(`the body of the request was in an unknown format - accepted media types include: ${JSON_PATCH}, ${MERGE_PATCH}, ${STRATEGIC_MERGE_PATCH}, ${APPLY_PATCH_YAML}`);
}
