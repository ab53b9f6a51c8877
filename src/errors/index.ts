/**
 * Every failure the API returns is a StatusError, rendered as a `Status` object with its HTTP code
 * (architecture rule 6). Factories name the reason the way clients expect it.
 */
export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Invalid'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'TooManyRequests'
  | 'InternalError'
  | 'Timeout'
  | 'ServerTimeout'
  | 'ServiceUnavailable'
  | 'Expired';

/** One bad field: `field` is a path like `metadata.labels[app]` or `spec.containers[0].image`. */
export interface FieldError {
  /** The reference's cause types: FieldValueRequired, FieldValueInvalid, FieldValueNotSupported, ... */
  type: string;
  field: string;
  message: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: { reason: string; message: string; field?: string }[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure' | 'Success';
  message: string;
  reason: StatusReason | '';
  details?: StatusDetails;
  code: number;
}

/** A value quoted in a message shows at most this many characters (the rest is summarised). */
export const MAX_QUOTED_CHARS = 256;
/** Backstop for a whole message: a Status never carries more than this of it. */
export const MAX_MESSAGE_CHARS = 16 * 1024;

/** `text` itself when short; else its first `max` characters and how many were left out. */
export function clip(text: string, max = MAX_QUOTED_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}...(${text.length - max} more characters)`;
}

/**
 * A value as JSON for a message, cut to a few hundred characters: a client's multi-megabyte value is
 * never echoed back whole. A long string is cut before it is encoded, so it is never copied whole either.
 */
export function quote(value: unknown): string {
  if (typeof value === 'string') {
    return value.length <= MAX_QUOTED_CHARS
      ? JSON.stringify(value)
      : `${JSON.stringify(value.slice(0, MAX_QUOTED_CHARS))}...(${value.length - MAX_QUOTED_CHARS} more characters)`;
  }
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    // Circular or too deep to encode: say so rather than fail while reporting another failure.
    return '<value omitted>';
  }
  return clip(text ?? 'undefined');
}

export class StatusError extends Error {
  override readonly name = 'StatusError';
  constructor(
    readonly code: number,
    readonly reason: StatusReason,
    message: string,
    readonly details?: StatusDetails,
    /** Extra response headers, e.g. Retry-After. */
    readonly headers?: Record<string, string>,
  ) {
    super(clip(message, MAX_MESSAGE_CHARS));
  }

  toStatus(): Status {
    const s: Status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      code: this.code,
    };
    if (this.details && Object.keys(this.details).length > 0) s.details = this.details;
    return s;
  }
}

export interface Target {
  group?: string;
  kind?: string;
  /** The plural resource name, used in messages as `<resource>.<group>`. */
  resource?: string;
  name?: string;
}

const qualified = (t: Target) => (t.group ? `${t.resource ?? t.kind}.${t.group}` : `${t.resource ?? t.kind}`);
const detailsOf = (t: Target): StatusDetails => {
  const d: StatusDetails = {};
  if (t.name !== undefined) d.name = t.name;
  if (t.group !== undefined) d.group = t.group;
  if (t.resource ?? t.kind) d.kind = (t.resource ?? t.kind) as string;
  return d;
};

export const badRequest = (message: string, causes?: FieldError[]) =>
  new StatusError(400, 'BadRequest', message, causes ? { causes: causes.map(toCause) } : undefined);
export const unauthorized = (message = 'Unauthorized') => new StatusError(401, 'Unauthorized', message);
export const forbidden = (message: string, t: Target = {}) => new StatusError(403, 'Forbidden', message, detailsOf(t));
export const notFound = (t: Target) =>
  new StatusError(404, 'NotFound', `${qualified(t)} "${t.name ?? ''}" not found`, detailsOf(t));
export const notFoundMessage = (message: string) => new StatusError(404, 'NotFound', message);
export const methodNotAllowed = (method: string, what: string) =>
  new StatusError(405, 'MethodNotAllowed', `the server does not allow method ${method} on ${what}`);
export const notAcceptable = (message: string) => new StatusError(406, 'NotAcceptable', message);
export const alreadyExists = (t: Target) =>
  new StatusError(409, 'AlreadyExists', `${qualified(t)} "${t.name ?? ''}" already exists`, detailsOf(t));
export const conflict = (t: Target, why: string) =>
  new StatusError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualified(t)} "${t.name ?? ''}": ${why}`,
    detailsOf(t),
  );
export const gone = (message: string) => new StatusError(410, 'Expired', message);
export const tooLarge = (message: string) => new StatusError(413, 'RequestEntityTooLarge', message);
export const unsupportedMediaType = (message: string) => new StatusError(415, 'UnsupportedMediaType', message);
export const tooManyRequests = (message: string, retryAfterSeconds = 1) =>
  new StatusError(429, 'TooManyRequests', message, { retryAfterSeconds }, { 'Retry-After': String(retryAfterSeconds) });
export const internalError = (message: string) =>
  new StatusError(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ reason: 'UnexpectedServerError', message }] });
export const timeout = (message: string, retryAfterSeconds = 1) =>
  new StatusError(504, 'Timeout', message, { retryAfterSeconds }, { 'Retry-After': String(retryAfterSeconds) });

/** 422 naming every bad field, in the reference's message form: `<Kind> "<name>" is invalid: [a, b]`. */
export function invalid(t: Target, errors: FieldError[]): StatusError {
  const parts = errors.map((e) => `${e.field}: ${e.message}`);
  const summary = parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`;
  return new StatusError(422, 'Invalid', `${t.kind ?? qualified(t)} "${t.name ?? ''}" is invalid: ${summary}`, {
    ...detailsOf({ ...t, resource: undefined }),
    causes: errors.map(toCause),
  });
}

function toCause(e: FieldError) {
  return { reason: e.type, message: clip(e.message, MAX_MESSAGE_CHARS), field: clip(e.field, MAX_MESSAGE_CHARS) };
}

/** Field error constructors with the reference's cause types and wording; quoted values are cut short. */
export const fieldError = {
  required: (field: string, detail = 'Required value'): FieldError => ({ type: 'FieldValueRequired', field, message: detail }),
  invalid: (field: string, value: unknown, detail: string): FieldError => ({
    type: 'FieldValueInvalid',
    field,
    message: `Invalid value: ${quote(value)}: ${detail}`,
  }),
  notSupported: (field: string, value: unknown, allowed: readonly string[]): FieldError => ({
    type: 'FieldValueNotSupported',
    field,
    message: `Unsupported value: ${quote(value)}: supported values: ${allowed.map((a) => `"${a}"`).join(', ')}`,
  }),
  forbidden: (field: string, detail: string): FieldError => ({ type: 'FieldValueForbidden', field, message: `Forbidden: ${detail}` }),
  duplicate: (field: string, value: unknown): FieldError => ({
    type: 'FieldValueDuplicate',
    field,
    message: `Duplicate value: ${quote(value)}`,
  }),
  tooLong: (field: string, max: number): FieldError => ({
    type: 'FieldValueTooLong',
    field,
    message: `Too long: may not be more than ${max} bytes`,
  }),
  typeInvalid: (field: string, value: unknown, detail: string): FieldError => ({
    type: 'FieldValueTypeInvalid',
    field,
    message: `Invalid value: ${quote(value)}: ${detail}`,
  }),
};

export function isStatusError(e: unknown): e is StatusError {
  return e instanceof StatusError;
}
