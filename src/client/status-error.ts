/** Rebuilds the server's error Status as the StatusError it was on the server side (src/errors/). */
import { StatusError, type StatusDetails, type StatusReason } from '../errors/index.js';

/** The reason a bare HTTP code stands for when the body is no Status (a proxy's page, an empty body). */
const REASON_BY_CODE: Record<number, StatusReason> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Gone',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

interface StatusBody {
  kind?: string;
  code?: number;
  reason?: string;
  message?: string;
  details?: StatusDetails;
}

/** Turns a Status object (from a response body or a watch ERROR event) into a StatusError. */
export function statusErrorFromStatus(status: StatusBody, httpCode = status.code ?? 500): StatusError {
  const code = typeof status.code === 'number' && status.code > 0 ? status.code : httpCode;
  const reason = (status.reason || REASON_BY_CODE[code] || 'InternalError') as StatusReason;
  return new StatusError(code, reason, status.message ?? `the server answered ${code}`, status.details);
}

export function statusErrorFrom(httpCode: number, body: Buffer): StatusError {
  const text = body.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (parsed && typeof parsed === 'object' && (parsed as StatusBody).kind === 'Status') return statusErrorFromStatus(parsed as StatusBody, httpCode);
  const reason = REASON_BY_CODE[httpCode] ?? (httpCode >= 500 ? 'InternalError' : 'BadRequest');
  return new StatusError(httpCode, reason, text.trim() || `the server answered ${httpCode}`);
}

/** Reference helpers: which failures a caller usually branches on. */
export const isNotFound = (e: unknown) => e instanceof StatusError && e.code === 404;
export const isConflict = (e: unknown) => e instanceof StatusError && e.code === 409 && e.reason === 'Conflict';
export const isAlreadyExists = (e: unknown) => e instanceof StatusError && e.reason === 'AlreadyExists';
/** 410 answers: `Expired` (too old a resourceVersion) or `Gone`. */
export const isGone = (e: unknown) => e instanceof StatusError && (e.code === 410 || e.reason === 'Expired' || e.reason === 'Gone');
