/**
 * Conversion of custom resources through a CRD's conversion webhook (`conversion.strategy: Webhook`): the
 * ConversionReview sent, the answer checked as the reference checks it, and the AsyncConversion a custom
 * ResourceType carries. How the review reaches the webhook (URL or service, CA bundle, egress) is a seam
 * (`post`), wired by the server (server/crd/conversion.ts), so this file stays pure and testable.
 */
import { randomUUID } from 'node:crypto';
import { APIEXTENSIONS_GROUP } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { isObject } from '../../api/types.js';
import { StatusError } from '../../errors/index.js';
import type { AsyncConversion } from '../types.js';
import { validateAnnotations, validateLabels } from '../validation/metadata.js';

/** ConversionReview versions this server sends, in the order it prefers them. */
export const SENDABLE_REVIEW_VERSIONS = ['v1', 'v1beta1'] as const;
export type ConversionReviewVersion = (typeof SENDABLE_REVIEW_VERSIONS)[number];

/** The reference's deadline for one conversion call. */
export const CONVERSION_TIMEOUT_MS = 30_000;

/** The first version in the CRD's `conversionReviewVersions` this server can send (undefined: none). */
export function reviewVersionFor(listed: readonly string[] | undefined): ConversionReviewVersion | undefined {
  return (listed ?? []).find((v): v is ConversionReviewVersion => (SENDABLE_REVIEW_VERSIONS as readonly string[]).includes(v));
}

/** The request body: a ConversionReview of `objects` to `desiredAPIVersion`. */
export function conversionReviewBody(version: ConversionReviewVersion, uid: string, desiredAPIVersion: string, objects: readonly ApiObject[]): string {
  return JSON.stringify({ apiVersion: `${APIEXTENSIONS_GROUP}/${version}`, kind: 'ConversionReview', request: { uid, desiredAPIVersion, objects } });
}

/** Why an answer cannot be used (reported inside the 500 that names the webhook). */
export class BadConversionAnswer extends Error {}

const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** The metadata a webhook may change: only labels and annotations. These must stay as they were. */
const FIXED_IDENTITY = ['name', 'namespace', 'uid'] as const;

/**
 * The converted objects of an answer, checked: the review kind and version sent, the same uid, a Success
 * result, one object per object sent in the same order, each in `desired` with the same kind and identity.
 * Metadata is taken from the original except labels and annotations (valid ones), as the reference does.
 */
export function convertedObjectsOf(
  text: string,
  version: ConversionReviewVersion,
  uid: string,
  desired: string,
  originals: readonly ApiObject[],
): ApiObject[] {
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch (e) {
    throw new BadConversionAnswer(`the answer is not JSON: ${(e as Error).message}`);
  }
  if (!isObject(answer)) throw new BadConversionAnswer('the answer is not a JSON object');
  const expected = `${APIEXTENSIONS_GROUP}/${version}`;
  if (answer.apiVersion !== expected || answer.kind !== 'ConversionReview') {
    throw new BadConversionAnswer(`expected a ConversionReview of ${expected}, got kind ${JSON.stringify(answer.kind)} of ${JSON.stringify(answer.apiVersion)}`);
  }
  const response = answer.response;
  if (!isObject(response)) throw new BadConversionAnswer('the ConversionReview has no response');
  if (response.uid !== uid) throw new BadConversionAnswer(`the response uid ${JSON.stringify(response.uid ?? '')} is not the request uid ${JSON.stringify(uid)}`);
  const result = isObject(response.result) ? response.result : {};
  if (result.status !== 'Success') {
    const message = str(result.message);
    throw new BadConversionAnswer(message !== '' ? message : `the result status is ${JSON.stringify(result.status ?? '')}, not "Success"`);
  }
  const converted = Array.isArray(response.convertedObjects) ? response.convertedObjects : [];
  if (converted.length !== originals.length) {
    throw new BadConversionAnswer(`${converted.length} converted objects were returned for ${originals.length} sent`);
  }
  return converted.map((c, i) => restoredObject(c, originals[i] as ApiObject, desired, i));
}

function restoredObject(c: unknown, original: ApiObject, desired: string, i: number): ApiObject {
  const at = `converted object ${i}`;
  if (!isObject(c)) throw new BadConversionAnswer(`${at} is not an object`);
  if (c.apiVersion !== desired) throw new BadConversionAnswer(`${at} has apiVersion ${JSON.stringify(c.apiVersion ?? '')}, expected ${JSON.stringify(desired)}`);
  if (c.kind !== original.kind) throw new BadConversionAnswer(`${at} has kind ${JSON.stringify(c.kind ?? '')}, expected ${JSON.stringify(original.kind ?? '')}`);
  const meta = isObject(c.metadata) ? c.metadata : {};
  const was = original.metadata ?? {};
  for (const field of FIXED_IDENTITY) {
    if (str(meta[field]) !== str(was[field])) {
      throw new BadConversionAnswer(`${at} changed metadata.${field} from ${JSON.stringify(str(was[field]))} to ${JSON.stringify(str(meta[field]))}; only labels and annotations may change`);
    }
  }
  const problems = [...validateLabels(meta.labels, 'metadata.labels'), ...validateAnnotations(meta.annotations, 'metadata.annotations')];
  if (problems.length > 0) throw new BadConversionAnswer(`${at} has invalid metadata: ${problems.map((p) => `${p.field}: ${p.message}`).join('; ')}`);
  const restored: Record<string, unknown> = { ...was };
  for (const key of ['labels', 'annotations'] as const) {
    if (isObject(meta[key]) && Object.keys(meta[key]).length > 0) restored[key] = meta[key];
    else delete restored[key];
  }
  return { ...c, metadata: restored } as ApiObject;
}

export interface WebhookConversionOptions {
  group: string;
  kind: string;
  /** The version objects are written in (`<group>/<version>`). */
  storageApiVersion: string;
  reviewVersion: ConversionReviewVersion;
  /** Sends a review body and answers the response body; throws an Error whose message says what failed. */
  post(body: string): Promise<string>;
  /** Request uids (tests pass a fixed one). */
  uid?: () => string;
}

/**
 * The AsyncConversion of a webhook CRD. Objects already in the wanted version are never sent; the others
 * go in one review, their answers put back in place. Every failure is a 500 naming the resource.
 */
export function webhookConversion(o: WebhookConversionOptions): AsyncConversion {
  // As the reference words it (kubectl shows it as is): a 500 without the generic internal-error prefix.
  const fail = (why: string) => new StatusError(500, 'InternalError', `conversion webhook for ${o.group}/${o.kind} failed: ${why}`);
  return {
    storageApiVersion: o.storageApiVersion,
    async convert(objects, apiVersion) {
      const at: number[] = [];
      objects.forEach((x, i) => x.apiVersion !== apiVersion && at.push(i));
      if (at.length === 0) return objects;
      const sent = at.map((i) => objects[i] as ApiObject);
      const uid = (o.uid ?? randomUUID)();
      let text: string;
      try {
        text = await o.post(conversionReviewBody(o.reviewVersion, uid, apiVersion, sent));
      } catch (e) {
        throw fail((e as Error).message);
      }
      let converted: ApiObject[];
      try {
        converted = convertedObjectsOf(text, o.reviewVersion, uid, apiVersion, sent);
      } catch (e) {
        throw fail((e as Error).message);
      }
      const out = [...objects];
      at.forEach((i, j) => (out[i] = converted[j] as ApiObject));
      return out;
    },
  };
}
