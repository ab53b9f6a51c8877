/**
 * One webhook call: where to send it, the review, the answer checked, its warnings and audit annotations
 * recorded, a denial turned into the client's Status, a patch applied. Failures of the call itself
 * (unreachable, TLS, timeout, garbage, wrong uid) are CallError, which the dispatchers settle by
 * failurePolicy; everything else is the request's own failure.
 */
import { randomUUID } from 'node:crypto';
import jsonpatch from 'fast-json-patch';
import type { ApiObject } from '../../api/types.js';
import { isObject } from '../../api/types.js';
import { badRequest, internalError, StatusError, type StatusDetails, type StatusReason } from '../../errors/index.js';
import type { Dialer } from '../../util/dialer.js';
import type { AdmissionDeps, AdmissionRequest } from '../types.js';
import { CallFailed, postReview, type Target } from './client.js';
import type { CompiledWebhook } from './compile.js';
import { targetForService, targetForURL, ResolveFailed } from './resolve.js';
import { decodePatch, InvalidAnswer, jsonEqual, parseAnswer, reviewBody, reviewFieldsText, type ConvertedObjects, type Invocation, type WebhookAnswer } from './review.js';

/** The reference's ErrCallingWebhook: the webhook could not give a usable answer. */
export class CallError extends Error {
  constructor(
    readonly webhook: string,
    reason: string,
  ) {
    super(`failed calling webhook ${JSON.stringify(webhook)}: ${reason}`);
  }
}

/** Warnings kept per answer, and characters per warning; the Warning header applies the reference's cut. */
export const MAX_WARNINGS = 100;
export const MAX_WARNING_CHARS = 4096;
/** JSON Patch bounds: operations per patch, and bytes all its `copy` operations may add. */
export const MAX_PATCH_OPERATIONS = 10_000;
export const MAX_PATCH_COPY_BYTES = 3 * 1024 * 1024;

/** The dry-run rule (spec 7): a webhook that may have side effects is never called for a dry run. */
export function checkDryRun(hook: CompiledWebhook, req: AdmissionRequest): void {
  if (req.dryRun && !hook.sideEffectsSafeOnDryRun) throw badRequest(`admission webhook ${JSON.stringify(hook.name)} does not support dry run`);
}

/** URL targets depend only on the compiled webhook (one per configuration generation): built once. */
const urlTargets = new WeakMap<CompiledWebhook, Target>();

function targetOf(hook: CompiledWebhook, deps: AdmissionDeps): Target | Promise<Target> {
  // As the reference: a URL webhook is reached through the control-plane egress, a service through the
  // cluster egress.
  if (hook.client.url !== undefined) {
    let t = urlTargets.get(hook);
    if (t === undefined) {
      t = viaEgress(targetForURL(hook.client.url, hook.client, timeoutParam(hook)), deps.egress?.controlplane);
      urlTargets.set(hook, t);
    }
    return t;
  }
  if (hook.client.service) return targetForService(deps.objects, hook.client.service, hook.client, timeoutParam(hook)).then((t) => viaEgress(t, deps.egress?.cluster));
  throw new ResolveFailed('no url or service to call');
}

const timeoutParam = (hook: CompiledWebhook) => `timeout=${hook.timeoutMs / 1000}s`;

function viaEgress(t: Target, dialer: Dialer | undefined): Target {
  return dialer ? { ...t, dialer, poolKey: `${t.poolKey}\0${dialer.id}` } : t;
}

/** Sends the review and returns the checked answer; warnings and audit annotations are recorded at once. */
export async function callWebhook(hook: CompiledWebhook, req: AdmissionRequest, inv: Invocation, deps: AdmissionDeps, mutating: boolean, shared?: Map<string, string>): Promise<WebhookAnswer> {
  if (hook.brokenReason !== undefined) throw new CallError(hook.name, `the webhook configuration cannot be used: ${hook.brokenReason}`);
  const started = deps.observeWebhook ? performance.now() : 0;
  let answer: WebhookAnswer;
  try {
    const resolved = targetOf(hook, deps);
    const target = resolved instanceof Promise ? await resolved : resolved;
    const uid = randomUUID();
    const text = await postReview(target, reviewBody(uid, reviewFieldsText(req, inv, shared), hook.reviewVersion), hook.timeoutMs);
    answer = parseAnswer(text, uid, hook.reviewVersion, mutating);
  } catch (e) {
    deps.observeWebhook?.(hook.name, mutating, req.operation, true, (performance.now() - started) / 1000);
    if (e instanceof InvalidAnswer) throw new CallError(hook.name, `received invalid webhook response: ${e.message}`);
    if (e instanceof CallFailed || e instanceof ResolveFailed) throw new CallError(hook.name, `failed to call webhook: ${e.message}`);
    if (e instanceof StatusError) throw e;
    throw new CallError(hook.name, `failed to call webhook: ${(e as Error).message}`);
  }
  deps.observeWebhook?.(hook.name, mutating, req.operation, !answer.allowed, (performance.now() - started) / 1000);
  for (const [k, v] of answer.auditAnnotations) req.annotate(`${hook.name}/${k}`, v);
  for (const w of answer.warnings.slice(0, MAX_WARNINGS)) req.warn(w.length > MAX_WARNING_CHARS ? w.slice(0, MAX_WARNING_CHARS) : w);
  return answer;
}

const REASONS = new Set<string>([
  'BadRequest', 'Unauthorized', 'Forbidden', 'NotFound', 'MethodNotAllowed', 'NotAcceptable', 'AlreadyExists', 'Conflict', 'Gone',
  'Invalid', 'RequestEntityTooLarge', 'UnsupportedMediaType', 'TooManyRequests', 'InternalError', 'Timeout', 'ServerTimeout',
  'ServiceUnavailable', 'Expired',
]);

/**
 * A denial as the client sees it (reference rules): the webhook's code when it is an error code, else
 * 403; its message (or reason) after `admission webhook "<name>" denied the request`.
 */
export function denial(hook: string, status: Record<string, unknown> | undefined): StatusError {
  const deniedBy = `admission webhook ${JSON.stringify(hook)} denied the request`;
  const s = status ?? {};
  const code = typeof s.code === 'number' && Number.isInteger(s.code) && s.code >= 400 && s.code <= 599 ? s.code : 403;
  const message = typeof s.message === 'string' ? s.message : '';
  const reason = typeof s.reason === 'string' ? s.reason : '';
  const text = message !== '' ? `${deniedBy}: ${message}` : reason !== '' ? `${deniedBy}: ${reason}` : `${deniedBy} without explanation`;
  const details = isObject(s.details) ? sanitizeDetails(s.details) : undefined;
  return new StatusError(code, (REASONS.has(reason) ? reason : '') as StatusReason, text, details);
}

function sanitizeDetails(d: Record<string, unknown>): StatusDetails | undefined {
  const out: StatusDetails = {};
  for (const k of ['name', 'group', 'kind', 'uid'] as const) if (typeof d[k] === 'string') out[k] = d[k] as string;
  if (typeof d.retryAfterSeconds === 'number') out.retryAfterSeconds = d.retryAfterSeconds;
  if (Array.isArray(d.causes)) {
    out.causes = d.causes.filter(isObject).slice(0, 100).map((c) => ({
      reason: typeof c.reason === 'string' ? c.reason : '',
      message: typeof c.message === 'string' ? c.message : '',
      ...(typeof c.field === 'string' ? { field: c.field } : {}),
    }));
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * Applies a webhook's JSON Patch to the request's object; true when it changed anything. A patch that is
 * not JSON Patch or does not apply fails the request with 500 whatever the failurePolicy (as in the
 * reference: the webhook answered, the answer is wrong).
 */
export function applyWebhookPatch(hook: string, req: AdmissionRequest, base64: string, converted?: ConvertedObjects): boolean | Promise<boolean> {
  const fail = (why: string) => internalError(`admission webhook ${JSON.stringify(hook)} returned a patch that cannot be applied: ${why}`);
  let ops: Record<string, unknown>[];
  try {
    ops = decodePatch(base64);
  } catch (e) {
    throw fail((e as Error).message);
  }
  if (ops.length === 0) return false;
  if (ops.length > MAX_PATCH_OPERATIONS) throw fail(`more than ${MAX_PATCH_OPERATIONS} operations`);
  if (req.object === undefined) {
    throw internalError(`admission webhook ${JSON.stringify(hook)} attempted to modify the object, which is not supported for this operation`);
  }
  // A webhook of another version patched the object as it was shown in that version.
  let doc: unknown = structuredClone(converted ? converted.object : req.object);
  let copied = 0;
  try {
    ops.forEach((op, i) => {
      if (op.op === 'copy' && typeof op.from === 'string') {
        const source = jsonpatch.getValueByPointer(doc, op.from) as unknown;
        copied += source === undefined ? 0 : JSON.stringify(source).length;
        if (copied > MAX_PATCH_COPY_BYTES) throw new Error(`copy operations add more than ${MAX_PATCH_COPY_BYTES} bytes`);
      }
      doc = jsonpatch.applyOperation(doc, op as unknown as jsonpatch.Operation, true, true, true, i).newDocument;
    });
  } catch (e) {
    throw fail((e as Error).message.split('\n', 1)[0] ?? 'invalid patch');
  }
  if (!isObject(doc)) throw fail('the patched object is not a JSON object');
  const patched = converted ? converted.toRequestVersion(doc as ApiObject) : (doc as ApiObject);
  return patched instanceof Promise ? patched.then((p) => replaceObject(req, p)) : replaceObject(req, patched);
}

/** Sets the patched object; true when it differs from the one before. */
function replaceObject(req: AdmissionRequest, patched: ApiObject): boolean {
  const changed = !jsonEqual(req.object, patched);
  req.object = patched;
  return changed;
}
