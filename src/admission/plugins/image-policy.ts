/**
 * ImagePolicyWebhook (reference plugin, off by default): before a pod is stored, an external backend is
 * asked whether its images may run. The plugin sends an ImageReview (spec 2.11) with the images, the pod's
 * image-policy annotations (IMAGE_POLICY_ANNOTATION_MARK) and the namespace; a denial is 403 with the backend's reason.
 * Answers are remembered per review (allowTTL / denyTTL). When the backend cannot answer after one retry,
 * `defaultAllow` decides: let the pod through (recording a failed-open audit annotation) or refuse it.
 */
import { IMAGE_POLICY_ANNOTATION_MARK, IMAGE_POLICY_AUDIT_PREFIX, IMAGE_POLICY_GROUP } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { isObject } from '../../api/types.js';
import type { AdmissionDeps, AdmissionOperation, AdmissionPlugin, AdmissionRequest } from '../types.js';
import { forbiddenFor } from './common.js';
import { BackendFailure, webhookBackend, type WebhookBackend as ImagePolicyBackend } from '../../util/webhook-backend.js';
import { parseImagePolicyConfiguration, type ImagePolicySettings } from './image-policy-config.js';
import type { Clock } from './token-bucket.js';

export const IMAGE_POLICY_WEBHOOK = 'ImagePolicyWebhook';
export const IMAGE_REVIEW_API_VERSION = `${IMAGE_POLICY_GROUP}/v1alpha1`;
/** Audit annotation recorded when a pod was let through because the backend could not answer. */
export const FAILED_OPEN_AUDIT_KEY = `${IMAGE_POLICY_AUDIT_PREFIX}failed-open`;
/** Answers remembered at once, as the reference's cache. */
const CACHE_ENTRIES = 1024;

export interface ImageReviewSpec {
  containers?: { image?: string }[];
  annotations?: Record<string, string>;
  namespace?: string;
}

export interface ImageReviewStatus {
  allowed: boolean;
  reason?: string;
  auditAnnotations?: Record<string, string>;
}

const imagesOf = (list: unknown): { image?: string }[] =>
  Array.isArray(list) ? list.map((c) => (isObject(c) && typeof c.image === 'string' && c.image !== '' ? { image: c.image } : {})) : [];

/**
 * The review of a pod write: on the pod itself its containers then its init containers; on the
 * ephemeralcontainers subresource its ephemeral containers. Empty parts are left out and annotation keys
 * sorted, so equal reviews encode to equal text (the cache key).
 */
export function imageReviewSpec(pod: ApiObject, subResource: string, namespace: string): ImageReviewSpec {
  const spec = isObject(pod.spec) ? pod.spec : {};
  const containers = subResource === '' ? [...imagesOf(spec.containers), ...imagesOf(spec.initContainers)] : imagesOf(spec.ephemeralContainers);
  const out: ImageReviewSpec = {};
  if (containers.length > 0) out.containers = containers;
  const annotations = pod.metadata?.annotations ?? {};
  const kept = Object.keys(annotations).filter((k) => k.includes(IMAGE_POLICY_ANNOTATION_MARK)).sort();
  if (kept.length > 0) out.annotations = Object.fromEntries(kept.map((k) => [k, String(annotations[k])]));
  if (namespace !== '') out.namespace = namespace;
  return out;
}

/** The status of a backend's answer; throws an Error saying what is wrong with a malformed one. */
export function parseImageReviewAnswer(text: string): ImageReviewStatus {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new Error('the backend answered with something that is not JSON');
  }
  if (!isObject(doc)) throw new Error('the backend answered with something that is not an ImageReview object');
  if (doc.kind !== undefined && doc.kind !== 'ImageReview') throw new Error(`the backend answered with kind ${JSON.stringify(doc.kind)}, not ImageReview`);
  if (doc.apiVersion !== undefined && doc.apiVersion !== IMAGE_REVIEW_API_VERSION) {
    throw new Error(`the backend answered in ${JSON.stringify(doc.apiVersion)}, not ${IMAGE_REVIEW_API_VERSION}`);
  }
  const s = doc.status ?? {};
  if (!isObject(s)) throw new Error('the backend answered with a status that is not an object');
  if (s.allowed !== undefined && typeof s.allowed !== 'boolean') throw new Error('the backend answered with a status.allowed that is not a boolean');
  if (s.reason !== undefined && typeof s.reason !== 'string') throw new Error('the backend answered with a status.reason that is not a string');
  const out: ImageReviewStatus = { allowed: s.allowed === true };
  if (typeof s.reason === 'string' && s.reason !== '') out.reason = s.reason;
  if (s.auditAnnotations !== undefined && s.auditAnnotations !== null) {
    const a = s.auditAnnotations;
    if (!isObject(a) || Object.values(a).some((v) => typeof v !== 'string')) throw new Error('the backend answered with status.auditAnnotations that are not a map of strings');
    out.auditAnnotations = a as Record<string, string>;
  }
  return out;
}

/** Remembers answers until they expire; the least recently used go first past the bound. */
export class AnswerCache {
  private readonly entries = new Map<string, { status: ImageReviewStatus; until: number }>();

  constructor(private readonly max = CACHE_ENTRIES) {}

  get(key: string, now: number): ImageReviewStatus | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    this.entries.delete(key);
    if (e.until <= now) return undefined;
    this.entries.set(key, e);
    return e.status;
  }

  add(key: string, status: ImageReviewStatus, ttlMs: number, now: number): void {
    if (ttlMs <= 0) return;
    this.entries.delete(key);
    this.entries.set(key, { status, until: now + ttlMs });
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as string);
  }
}

const isPodWrite = (req: AdmissionRequest) =>
  req.resource.group === '' && req.resource.resource === 'pods' && (req.subResource === '' || req.subResource === 'ephemeralcontainers');

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class ImagePolicyWebhookPlugin implements AdmissionPlugin {
  readonly name = IMAGE_POLICY_WEBHOOK;
  private readonly cache = new AnswerCache();

  constructor(
    private readonly settings: Omit<ImagePolicySettings, 'backend'>,
    private readonly backend: ImagePolicyBackend,
    private readonly clock: Clock = () => performance.now(),
  ) {}

  handles(op: AdmissionOperation): boolean {
    return op === 'CREATE' || op === 'UPDATE';
  }

  validate(req: AdmissionRequest): Promise<void> | void {
    if (!isPodWrite(req) || !req.object) return;
    const spec = imageReviewSpec(req.object, req.subResource, req.namespace);
    const key = JSON.stringify(spec);
    // An update that leaves the images and policy annotations as they were asks nothing new.
    if (req.operation === 'UPDATE' && req.oldObject && JSON.stringify(imageReviewSpec(req.oldObject, req.subResource, req.namespace)) === key) return;
    const cached = this.cache.get(key, this.clock());
    if (cached) return this.decide(req, cached);
    return this.ask(req, spec, key);
  }

  private async ask(req: AdmissionRequest, spec: ImageReviewSpec, key: string): Promise<void> {
    const body = JSON.stringify({ apiVersion: IMAGE_REVIEW_API_VERSION, kind: 'ImageReview', metadata: { creationTimestamp: null }, spec, status: { allowed: false } });
    let status: ImageReviewStatus;
    try {
      status = parseImageReviewAnswer(await this.call(body));
    } catch (e) {
      if (this.settings.defaultAllow) {
        req.annotate(FAILED_OPEN_AUDIT_KEY, 'true');
        return;
      }
      throw forbiddenFor(req, (e as Error).message);
    }
    this.cache.add(key, status, status.allowed ? this.settings.allowTtlMs : this.settings.denyTtlMs, this.clock());
    this.decide(req, status);
  }

  /** One call, and one more after the backoff when the failure may pass. */
  private async call(body: string): Promise<string> {
    try {
      return await this.backend.post(body);
    } catch (e) {
      if (!(e instanceof BackendFailure) || !e.retryable) throw e;
      await sleep(this.settings.retryBackoffMs);
      return this.backend.post(body);
    }
  }

  private decide(req: AdmissionRequest, status: ImageReviewStatus): void {
    for (const [k, v] of Object.entries(status.auditAnnotations ?? {})) req.annotate(IMAGE_POLICY_AUDIT_PREFIX + k, v);
    if (status.allowed) return;
    throw forbiddenFor(req, status.reason ? `image policy webhook backend denied one or more images: ${status.reason}` : 'one or more images rejected by webhook backend');
  }
}

export function imagePolicyWebhookPlugin(_deps: AdmissionDeps, configuration: unknown): AdmissionPlugin {
  const settings = parseImagePolicyConfiguration(configuration);
  return new ImagePolicyWebhookPlugin(settings, webhookBackend(settings.backend));
}
