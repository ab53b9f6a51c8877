/**
 * The SubjectAccessReview a webhook authorizer sends (spec 2.8, 5.7): the request attributes as a review
 * spec, in `v1` or `v1beta1` (which spells the groups field `group`), and the answer read back.
 */
import { AUTHORIZATION_GROUP } from '../../api/naming.js';
import { isObject } from '../../api/types.js';
import type { Attributes } from '../index.js';

import { SUBJECT_ACCESS_REVIEW_VERSIONS, type SubjectAccessReviewVersion } from '../../config/authorization.js';

export type SarVersion = SubjectAccessReviewVersion;
export const SAR_VERSIONS: readonly SarVersion[] = SUBJECT_ACCESS_REVIEW_VERSIONS;

export interface ResourceAttributes {
  namespace?: string;
  verb?: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
}

/** The v1 review spec; empty values are left out, as the reference's encoder leaves them out. */
export interface SarSpec {
  resourceAttributes?: ResourceAttributes;
  nonResourceAttributes?: { path?: string; verb?: string };
  user?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
  uid?: string;
}

export interface SarStatus {
  allowed: boolean;
  denied: boolean;
  reason: string;
  evaluationError: string;
}

function put<T extends object>(o: T, key: keyof T, v: string | undefined): void {
  if (v) (o as Record<string, unknown>)[key as string] = v;
}

export function sarSpec(a: Attributes): SarSpec {
  const spec: SarSpec = {};
  if (a.isResourceRequest) {
    const r: ResourceAttributes = {};
    put(r, 'namespace', a.namespace);
    put(r, 'verb', a.verb);
    put(r, 'group', a.apiGroup);
    put(r, 'version', a.apiVersion);
    put(r, 'resource', a.resource);
    put(r, 'subresource', a.subresource);
    put(r, 'name', a.name);
    spec.resourceAttributes = r;
  } else {
    const n: { path?: string; verb?: string } = {};
    put(n, 'path', a.path);
    put(n, 'verb', a.verb);
    spec.nonResourceAttributes = n;
  }
  put(spec, 'user', a.user.username);
  if (a.user.groups.length > 0) spec.groups = a.user.groups;
  if (a.user.extra && Object.keys(a.user.extra).length > 0) spec.extra = a.user.extra;
  put(spec, 'uid', a.user.uid);
  return spec;
}

/** The request body: a SubjectAccessReview in `version` of the authorization group. */
export function sarBody(spec: SarSpec, version: SarVersion): string {
  let wire: Record<string, unknown> = spec as Record<string, unknown>;
  if (version === 'v1beta1' && spec.groups) {
    const { groups, ...rest } = spec;
    wire = { ...rest, group: groups };
  }
  return JSON.stringify({ apiVersion: `${AUTHORIZATION_GROUP}/${version}`, kind: 'SubjectAccessReview', spec: wire, status: { allowed: false } });
}

/**
 * The answer's status. Throws an Error saying what is wrong when the answer is not a SubjectAccessReview
 * of the authorization group, or its status fields have the wrong types (the failure policy then applies).
 */
export function parseSarAnswer(text: string): SarStatus {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new Error('the webhook answer is not JSON');
  }
  if (!isObject(doc)) throw new Error('the webhook answer is not a JSON object');
  if (doc.apiVersion !== undefined && !SAR_VERSIONS.some((v) => doc.apiVersion === `${AUTHORIZATION_GROUP}/${v}`)) {
    throw new Error(`the webhook answer has apiVersion ${JSON.stringify(doc.apiVersion)}, expected ${AUTHORIZATION_GROUP}/v1 or v1beta1`);
  }
  if (doc.kind !== undefined && doc.kind !== 'SubjectAccessReview') {
    throw new Error(`the webhook answer has kind ${JSON.stringify(doc.kind)}, expected SubjectAccessReview`);
  }
  const status = doc.status ?? {};
  if (!isObject(status)) throw new Error('the webhook answer status is not an object');
  const field = <T>(name: string, type: 'boolean' | 'string', zero: T): T => {
    const v = status[name];
    if (v === undefined || v === null) return zero;
    if (typeof v !== type) throw new Error(`the webhook answer status.${name} is not a ${type}`);
    return v as T;
  };
  return {
    allowed: field('allowed', 'boolean', false),
    denied: field('denied', 'boolean', false),
    reason: field('reason', 'string', ''),
    evaluationError: field('evaluationError', 'string', ''),
  };
}
