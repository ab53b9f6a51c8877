/**
 * Review objects (spec 2.8, 4.8): virtual kinds that are only ever created. Each function takes the decoded
 * request body and returns the response object with `status` filled; nothing is stored. Checks and
 * messages follow the reference's registry code, including which mistakes are 400s and which are 422s.
 */
import { AUTHENTICATION_GROUP, AUTHORIZATION_GROUP } from '../../api/naming.js';
import { isObject, type ApiObject } from '../../api/types.js';
import type { Authenticator, UserInfo } from '../../authn/types.js';
import type { Attributes, Authorizer } from '../../authz/index.js';
import { aggregateErrors, type Rule } from '../../authz/rbac/index.js';
import { badRequest, fieldError, invalid, isStatusError, type FieldError } from '../../errors/index.js';
import { nowTimestamp } from '../../registry/object-meta.js';

const AUTHN_V1 = `${AUTHENTICATION_GROUP}/v1`;
const AUTHZ_V1 = `${AUTHORIZATION_GROUP}/v1`;

type Obj = Record<string, unknown>;

const s = (v: unknown): string => (typeof v === 'string' ? v : '');
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const extraOf = (v: unknown): Record<string, string[]> | undefined => {
  if (!isObject(v)) return undefined;
  const out = Object.fromEntries(Object.entries(v).map(([k, vals]) => [k, strings(vals)]));
  return Object.keys(out).length ? out : undefined;
};

/** The body as an object of the expected kind; an absent kind is accepted (the route already names it). */
function bodyOf(body: unknown, kind: string): Obj {
  if (body === undefined || body === null || body === '') return {};
  if (!isObject(body) || (body.kind !== undefined && body.kind !== '' && body.kind !== kind)) {
    const got = isObject(body) ? s(body.kind) || typeof body.kind : Array.isArray(body) ? 'array' : typeof body;
    throw badRequest(`not a ${kind}: ${got}`);
  }
  return body;
}

const metaOf = (o: Obj): Obj => (isObject(o.metadata) ? o.metadata : {});
const specOf = (o: Obj): Obj => (isObject(o.spec) ? o.spec : {});

/** Echo of the request with the canonical type and the zero creation timestamp the reference encodes as null. */
function respond(apiVersion: string, kind: string, o: Obj, status: Obj, spec: Obj = specOf(o), meta: Obj = metaOf(o)): ApiObject {
  // The cast admits the null that typed ObjectMeta does not model.
  const metadata = { ...meta, creationTimestamp: meta.creationTimestamp ?? null } as ApiObject['metadata'];
  return { apiVersion, kind, metadata, spec, status };
}

/** UserInfo as the reference encodes it: every field is omitempty. */
function userInfoJson(u: UserInfo): Obj {
  const out: Obj = {};
  if (u.username) out.username = u.username;
  if (u.uid) out.uid = u.uid;
  if (u.groups.length) out.groups = [...u.groups];
  if (u.extra && Object.keys(u.extra).length) out.extra = structuredClone(u.extra);
  return out;
}

// ---- authentication.orch.io ----

/** POST selfsubjectreviews: who the caller is, after authentication and impersonation. */
export function selfSubjectReview(body: unknown, user: UserInfo, now: string = nowTimestamp()): ApiObject {
  bodyOf(body, 'SelfSubjectReview');
  // The reference builds a fresh object stamped with the time, so nothing from the request is echoed.
  return { apiVersion: AUTHN_V1, kind: 'SelfSubjectReview', metadata: { creationTimestamp: now }, status: { userInfo: userInfoJson(user) } };
}

/**
 * POST tokenreviews: runs the authenticator on a request that carries only the token. Authenticators here
 * are audience-agnostic, so (like the reference's wrapper for such authenticators) a token is good for the
 * requested audiences that the server itself serves, and for none when there is no overlap.
 */
export async function tokenReview(body: unknown, authenticator: Authenticator, apiAudiences: readonly string[] = []): Promise<ApiObject> {
  const o = bodyOf(body, 'TokenReview');
  const spec = specOf(o);
  const token = s(spec.token);
  // A 400, not a 422: the reference rejects it in the handler before any validation.
  if (!token) throw badRequest('token is required for TokenReview in authentication');
  const requested = strings(spec.audiences);
  const targets = requested.length ? requested : [...apiAudiences];
  const audiences = targets.length ? apiAudiences.filter((a) => targets.includes(a)) : undefined;
  let user: UserInfo | undefined;
  let error = '';
  if (!audiences || audiences.length) {
    try {
      user = await authenticator.authenticate({ headers: { authorization: `Bearer ${token}` } });
    } catch (e) {
      if (!isStatusError(e) || e.code !== 401) throw e;
      error = e.message;
    }
  }
  const status: Obj = { authenticated: user !== undefined, user: user ? userInfoJson(user) : {} };
  if (user && audiences) status.audiences = audiences;
  if (error) status.error = error;
  return respond(AUTHN_V1, 'TokenReview', o, status);
}

// ---- authorization.orch.io ----

/** What an access review asks about, before the subject is attached. */
type Question = Omit<Attributes, 'user'>;

function question(spec: Obj): Question {
  const ra = spec.resourceAttributes;
  if (isObject(ra)) {
    // An empty version means "any version" in the reference.
    const [verb, apiGroup, apiVersion, resource, subresource, namespace, name] = [s(ra.verb), s(ra.group), s(ra.version) || '*', s(ra.resource), s(ra.subresource), s(ra.namespace), s(ra.name)];
    return { verb, isResourceRequest: true, path: '', apiGroup, apiVersion, resource, subresource, namespace, name };
  }
  const nra = isObject(spec.nonResourceAttributes) ? spec.nonResourceAttributes : {};
  return { verb: s(nra.verb), isResourceRequest: false, path: s(nra.path), apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '' };
}

/** Exactly one of resourceAttributes / nonResourceAttributes; SAR kinds also need a user or groups. */
function specErrors(spec: Obj, needSubject: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const hasRA = isObject(spec.resourceAttributes);
  const hasNRA = isObject(spec.nonResourceAttributes);
  if (hasRA && hasNRA) {
    errs.push(fieldError.invalid('spec.nonResourceAttributes', spec.nonResourceAttributes, 'cannot be specified in combination with resourceAttributes'));
  }
  if (!hasRA && !hasNRA) {
    errs.push(fieldError.invalid('spec.resourceAttributes', 'null', 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
  }
  if (needSubject && !s(spec.user) && strings(spec.groups).length === 0) {
    errs.push(fieldError.invalid('spec.user', s(spec.user), 'at least one of user or group must be specified'));
  }
  return errs;
}

/** Go's semantic zero value: null, '', 0, false, and empty (or all-zero) lists and maps. */
function isZero(v: unknown): boolean {
  if (v === undefined || v === null || v === '' || v === 0 || v === false) return true;
  if (Array.isArray(v)) return v.length === 0;
  return isObject(v) && Object.values(v).every(isZero);
}

/** Reviews are not stored, so metadata the client sets would be silently lost; the reference rejects it. */
function metadataErrors(meta: Obj, exceptNamespace: boolean): FieldError[] {
  const set = Object.entries(meta).filter(([k, v]) => k !== 'managedFields' && !(exceptNamespace && k === 'namespace') && !isZero(v));
  if (set.length === 0) return [];
  return [fieldError.invalid('metadata', meta, exceptNamespace ? 'must be empty except for namespace' : 'must be empty')];
}

/** The decision as review status: `denied` only for an explicit deny, authorizer failures as evaluationError. */
async function decide(authorizer: Authorizer, attrs: Attributes): Promise<Obj> {
  try {
    const d = await authorizer.authorize(attrs);
    const status: Obj = { allowed: d.decision === 'allow' };
    if (d.decision === 'deny') status.denied = true;
    if (d.reason) status.reason = d.reason;
    return status;
  } catch (e) {
    return { allowed: false, evaluationError: e instanceof Error ? e.message : String(e) };
  }
}

/** The subject named in a (Local)SubjectAccessReview spec, taken as given: no implicit groups are added. */
function subjectOf(spec: Obj): Attributes['user'] {
  const u: Attributes['user'] = { username: s(spec.user), groups: strings(spec.groups) };
  if (s(spec.uid)) u.uid = s(spec.uid);
  const extra = extraOf(spec.extra);
  if (extra) u.extra = extra;
  return u;
}

const authzInvalid = (kind: string, errs: FieldError[]) => invalid({ group: AUTHORIZATION_GROUP, kind }, errs);

/** POST subjectaccessreviews: may the user named in the spec do this? */
export async function subjectAccessReview(body: unknown, authorizer: Authorizer): Promise<ApiObject> {
  const o = bodyOf(body, 'SubjectAccessReview');
  const spec = specOf(o);
  const errs = [...specErrors(spec, true), ...metadataErrors(metaOf(o), false)];
  if (errs.length) throw authzInvalid('SubjectAccessReview', errs);
  const status = await decide(authorizer, { user: subjectOf(spec), ...question(spec) });
  return respond(AUTHZ_V1, 'SubjectAccessReview', o, status);
}

/** POST namespaces/<ns>/localsubjectaccessreviews: a SubjectAccessReview confined to the URL's namespace. */
export async function localSubjectAccessReview(body: unknown, namespace: string, authorizer: Authorizer): Promise<ApiObject> {
  const kind = 'LocalSubjectAccessReview';
  const o = bodyOf(body, kind);
  if (!namespace) throw badRequest('namespace is required on this type: ');
  const meta = metaOf(o);
  if (s(meta.namespace) && meta.namespace !== namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  const spec = specOf(o);
  const errs = [...specErrors(spec, true), ...metadataErrors(meta, true)];
  // An empty attribute namespace is not filled in: it would widen a cluster-wide question into this namespace.
  const ra = spec.resourceAttributes;
  if (isObject(ra) && s(ra.namespace) !== namespace) {
    errs.push(fieldError.invalid('spec.resourceAttributes.namespace', s(ra.namespace), 'must match metadata.namespace'));
  }
  if (isObject(spec.nonResourceAttributes)) {
    errs.push(fieldError.invalid('spec.nonResourceAttributes', spec.nonResourceAttributes, 'disallowed on this kind of request'));
  }
  if (errs.length) throw authzInvalid(kind, errs);
  const status = await decide(authorizer, { user: subjectOf(spec), ...question(spec) });
  return respond(AUTHZ_V1, kind, o, status, spec, { ...meta, namespace });
}

/** POST selfsubjectaccessreviews: may the caller do this? */
export async function selfSubjectAccessReview(body: unknown, user: UserInfo, authorizer: Authorizer): Promise<ApiObject> {
  const o = bodyOf(body, 'SelfSubjectAccessReview');
  const spec = specOf(o);
  const errs = [...specErrors(spec, false), ...metadataErrors(metaOf(o), false)];
  if (errs.length) throw authzInvalid('SelfSubjectAccessReview', errs);
  const status = await decide(authorizer, { user, ...question(spec) });
  return respond(AUTHZ_V1, 'SelfSubjectAccessReview', o, status);
}

/** SelfSubjectRulesReview rule shapes; every list but `verbs` may be left out. */
export type ResourceRule = { verbs: string[]; apiGroups?: string[]; resources?: string[]; resourceNames?: string[] };
export type NonResourceRule = { verbs: string[]; nonResourceURLs?: string[] };
export interface RulesResult {
  resourceRules: ResourceRule[];
  nonResourceRules: NonResourceRule[];
  /** True when some authorizer could not list its rules (the list may then understate access). */
  incomplete: boolean;
  evaluationError?: string;
}
export type RulesFor = (user: UserInfo, namespace: string) => RulesResult | Promise<RulesResult>;

/**
 * RBAC's answer for SelfSubjectRulesReview from `resolveRulesForUser`: like the reference, a rule lands in
 * either list by what it names, and resolution errors are reported without marking the result incomplete.
 */
export function rulesFromRbac(resolved: { rules: readonly Rule[]; errors: readonly string[] }): RulesResult {
  const out: RulesResult = { resourceRules: [], nonResourceRules: [], incomplete: false };
  for (const r of resolved.rules) {
    if (r.resources?.length) {
      out.resourceRules.push({ verbs: r.verbs, apiGroups: r.apiGroups ?? [], resources: r.resources, resourceNames: r.resourceNames ?? [] });
    }
    if (r.nonResourceURLs?.length) out.nonResourceRules.push({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs });
  }
  if (resolved.errors.length) out.evaluationError = aggregateErrors(resolved.errors);
  return out;
}

/** Rule lists are omitempty in the reference except `verbs`. */
function ruleJson(r: ResourceRule | NonResourceRule): Obj {
  const out: Obj = { verbs: [...r.verbs] };
  for (const [k, v] of Object.entries(r)) if (k !== 'verbs' && Array.isArray(v) && v.length) out[k] = [...v];
  return out;
}

/** POST selfsubjectrulesreviews: what the caller may do in `spec.namespace` (plus cluster-wide). */
export async function selfSubjectRulesReview(body: unknown, user: UserInfo, rulesFor: RulesFor): Promise<ApiObject> {
  const o = bodyOf(body, 'SelfSubjectRulesReview');
  const namespace = s(specOf(o).namespace);
  // A 400 in the reference's words; clients such as `can-i --list` always send a namespace.
  if (!namespace) throw badRequest('no namespace on request');
  const r = await rulesFor(user, namespace);
  const status: Obj = { resourceRules: r.resourceRules.map(ruleJson), nonResourceRules: r.nonResourceRules.map(ruleJson), incomplete: r.incomplete };
  if (r.evaluationError) status.evaluationError = r.evaluationError;
  // The reference answers with a fresh object: the request's metadata and spec are not echoed.
  return respond(AUTHZ_V1, 'SelfSubjectRulesReview', {}, status, {}, {});
}
