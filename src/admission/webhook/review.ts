/**
 * The AdmissionReview a webhook is sent (spec 2.11) and the checks on what it answers. Pure: no I/O.
 */
import { ADMISSION_GROUP, META_GROUP } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { isObject } from '../../api/types.js';
import type { AdmissionRequest, GroupVersionKind, GroupVersionResource } from '../types.js';
import type { ReviewVersion } from './compile.js';

/** What a webhook is called for: the request's resource, or an equivalent one it registered for. */
export interface Invocation {
  readonly kind: GroupVersionKind;
  readonly resource: GroupVersionResource;
  readonly subResource: string;
  /** Set when the webhook registered for another version: the objects in its version, and the way back. */
  readonly converted?: ConvertedObjects;
}

export interface ConvertedObjects {
  readonly object: ApiObject | undefined;
  readonly oldObject: ApiObject | undefined;
  /** An object in the webhook's version (a patched one) in the request's version; a promise when the conversion calls out. */
  toRequestVersion(obj: ApiObject): ApiObject | Promise<ApiObject>;
}

/** The options kinds the reference sends: a patch is admitted with UpdateOptions. */
const OPTIONS_KIND = { CREATE: 'CreateOptions', UPDATE: 'UpdateOptions', DELETE: 'DeleteOptions' } as const;

function optionsOf(req: AdmissionRequest): Record<string, unknown> | null {
  const opts = req.options;
  if (!opts) return null;
  if (typeof opts.kind === 'string' && opts.kind !== '') return { ...opts };
  const kind = req.operation === 'CONNECT' ? undefined : OPTIONS_KIND[req.operation];
  return kind ? { kind, apiVersion: `${META_GROUP}/v1`, ...opts } : { ...opts };
}

function userInfoOf(req: AdmissionRequest): Record<string, unknown> {
  const u: Record<string, unknown> = { username: req.user.username };
  if (req.user.uid) u.uid = req.user.uid;
  if (req.user.groups.length > 0) u.groups = [...req.user.groups];
  if (req.user.extra && Object.keys(req.user.extra).length > 0) u.extra = req.user.extra;
  return u;
}

/** The `request` of the review, also the CEL `request` variable (without the objects). */
export function reviewRequest(req: AdmissionRequest, inv: Invocation): Record<string, unknown> {
  return { uid: req.uid, ...requestFields(req, inv) };
}

function requestFields(req: AdmissionRequest, inv: Invocation): Record<string, unknown> {
  return {
    kind: { ...inv.kind },
    resource: { ...inv.resource },
    ...(inv.subResource ? { subResource: inv.subResource } : {}),
    requestKind: { ...req.requestKind },
    requestResource: { ...req.requestResource },
    ...(req.requestSubResource ? { requestSubResource: req.requestSubResource } : {}),
    name: req.name,
    namespace: req.namespace,
    operation: req.operation,
    userInfo: userInfoOf(req),
    object: (inv.converted ? inv.converted.object : req.object) ?? null,
    oldObject: (inv.converted ? inv.converted.oldObject : req.oldObject) ?? null,
    dryRun: req.dryRun,
    options: optionsOf(req),
  };
}

/**
 * The review's request fields after `uid`, as JSON text without the opening brace. Everything but the uid
 * is the same for every webhook that sees the request as the same resource with the same objects, so
 * validating webhooks (which cannot change the object) share one text per request through `shared`.
 */
export function reviewFieldsText(req: AdmissionRequest, inv: Invocation, shared?: Map<string, string>): string {
  if (!shared || inv.converted) return JSON.stringify(requestFields(req, inv)).slice(1);
  const key = `${inv.resource.group}/${inv.resource.version}/${inv.resource.resource}/${inv.subResource}/${inv.kind.kind}`;
  let text = shared.get(key);
  if (text === undefined) {
    text = JSON.stringify(requestFields(req, inv)).slice(1);
    shared.set(key, text);
  }
  return text;
}

/**
 * The AdmissionReview sent for one call. As in the reference, every call gets a uid of its own (a webhook
 * called twice for one request, or two webhooks, never see the same uid); it comes first, where webhooks
 * that only echo it can find it without decoding the whole review.
 */
export function reviewBody(uid: string, fieldsText: string, version: ReviewVersion): string {
  return `{"kind":"AdmissionReview","apiVersion":"${ADMISSION_GROUP}/${version}","request":{"uid":${JSON.stringify(uid)},${fieldsText}}`;
}

export interface WebhookAnswer {
  allowed: boolean;
  status?: Record<string, unknown>;
  /** The base64 JSON Patch as sent; undefined when the webhook sent none. */
  patch?: string;
  warnings: string[];
  auditAnnotations: [string, string][];
}

/** A webhook answered something that is not a usable AdmissionReview: a call error for failurePolicy. */
export class InvalidAnswer extends Error {}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function stringList(v: unknown, field: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw new InvalidAnswer(`response.${field} must be a list of strings`);
  return v as string[];
}

function stringMap(v: unknown, field: string): [string, string][] {
  if (v === undefined || v === null) return [];
  if (!isObject(v)) throw new InvalidAnswer(`response.${field} must be a map of strings`);
  const out: [string, string][] = [];
  for (const [k, x] of Object.entries(v)) {
    if (typeof x !== 'string') throw new InvalidAnswer(`response.${field}[${k}] must be a string`);
    out.push([k, x]);
  }
  return out;
}

/**
 * Parses and checks an answer (reference rules): v1 answers must be a v1 AdmissionReview echoing the
 * uid; v1beta1 answers are not checked for kind or uid. Only mutating webhooks may patch, and patch and
 * patchType come together. Throws InvalidAnswer.
 */
export function parseAnswer(body: string, uid: string, version: ReviewVersion, mutating: boolean): WebhookAnswer {
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch (e) {
    throw new InvalidAnswer(`the answer is not JSON: ${(e as Error).message}`);
  }
  if (!isObject(doc)) throw new InvalidAnswer('the answer is not a JSON object');
  const r = doc.response;
  if (r === undefined || r === null) throw new InvalidAnswer('webhook response was absent');
  if (!isObject(r)) throw new InvalidAnswer('response must be an object');
  if (version === 'v1') {
    if (r.uid !== uid) throw new InvalidAnswer(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(typeof r.uid === 'string' ? r.uid : '')}`);
    const want = `${ADMISSION_GROUP}/v1, Kind=AdmissionReview`;
    const apiVersion = typeof doc.apiVersion === 'string' ? doc.apiVersion : '';
    const got = `${apiVersion.includes('/') ? apiVersion : `/${apiVersion}`}, Kind=${typeof doc.kind === 'string' ? doc.kind : ''}`;
    if (got !== want) throw new InvalidAnswer(`expected webhook response of ${want}, got ${got}`);
  }
  if (r.allowed !== undefined && typeof r.allowed !== 'boolean') throw new InvalidAnswer('response.allowed must be a boolean');
  if (r.status !== undefined && r.status !== null && !isObject(r.status)) throw new InvalidAnswer('response.status must be an object');
  const patchText = r.patch === undefined || r.patch === null ? '' : r.patch;
  const patchType = r.patchType === undefined || r.patchType === null ? '' : r.patchType;
  if (typeof patchText !== 'string' || (patchText !== '' && (patchText.length % 4 !== 0 || !BASE64.test(patchText)))) {
    throw new InvalidAnswer('response.patch must be base64-encoded bytes');
  }
  if (typeof patchType !== 'string') throw new InvalidAnswer('response.patchType must be a string');
  if (mutating && patchText !== '' && patchType === '') throw new InvalidAnswer('webhook returned response.patch but not response.patchType');
  if (mutating && patchText === '' && patchType !== '') throw new InvalidAnswer('webhook returned response.patchType but not response.patch');
  if (!mutating && patchText !== '') throw new InvalidAnswer('validating webhook may not return response.patch');
  if (!mutating && patchType !== '') throw new InvalidAnswer('validating webhook may not return response.patchType');
  if (patchType !== '' && patchType !== 'JSONPatch') throw new InvalidAnswer(`unsupported patch type ${JSON.stringify(patchType)}`);
  const answer: WebhookAnswer = {
    allowed: r.allowed === true,
    warnings: stringList(r.warnings, 'warnings'),
    auditAnnotations: stringMap(r.auditAnnotations, 'auditAnnotations'),
  };
  if (isObject(r.status)) answer.status = r.status;
  if (patchText !== '') answer.patch = patchText;
  return answer;
}

/** A JSON Patch document; a patch that is not one is a server-side failure in the reference, not a call error. */
export class BadPatch extends Error {}

export function decodePatch(base64: string): Record<string, unknown>[] {
  const text = Buffer.from(base64, 'base64').toString('utf8');
  let ops: unknown;
  try {
    ops = JSON.parse(text);
  } catch (e) {
    throw new BadPatch(`the patch is not JSON: ${(e as Error).message}`);
  }
  if (!Array.isArray(ops) || !ops.every(isObject)) throw new BadPatch('the patch is not a list of JSON Patch operations');
  return ops as Record<string, unknown>[];
}

/** Objects as JSON values are equal: the question "did the webhook change anything". */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => jsonEqual(x, bb[i]));
  }
  const ka = Object.keys(a);
  const rb = b as Record<string, unknown>;
  if (ka.length !== Object.keys(rb).length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(rb, k) && jsonEqual((a as Record<string, unknown>)[k], rb[k]));
}

export type { ApiObject };
