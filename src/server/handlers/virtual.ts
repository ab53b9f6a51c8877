import { AUTHENTICATION_GROUP, AUTHORIZATION_GROUP, REFERENCE_AUTHENTICATION_GROUP_ALIAS } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { isObject } from '../../api/types.js';
import type { Authenticator, ServiceAccountTokenIssuer, UserInfo } from '../../authn/index.js';
import type { Authorizer } from '../../authz/index.js';
import { resolveRulesForUser, type RbacIndex } from '../../authz/rbac/index.js';
import { decodeBody } from '../../encoding/index.js';
import { badRequest, conflict, fieldError, invalid, methodNotAllowed, notFound, notFoundMessage } from '../../errors/index.js';
import type { Registry } from '../../registry/index.js';
import { header, readBody, type Req, type Res } from '../http.js';
import type { RequestInfo } from '../request-info.js';
import type { AdmissionChain } from '../../admission/index.js';
import type { AuditRecord } from '../../audit/record.js';
import { admitSubresourceObject } from '../admission-setup.js';
import {
  localSubjectAccessReview,
  rulesFromRbac,
  selfSubjectAccessReview,
  selfSubjectReview,
  selfSubjectRulesReview,
  subjectAccessReview,
  tokenReview,
} from './reviews.js';

export interface VirtualContext {
  req: Req;
  info: RequestInfo;
  user: UserInfo;
  registry: Registry;
  authenticator: Authenticator;
  authorizer: Authorizer;
  rbac: RbacIndex | undefined;
  issuer: ServiceAccountTokenIssuer;
  apiAudiences: string[];
  /** TokenRequests pass admission (NodeRestriction limits which tokens a node may ask for). */
  admission?: AdmissionChain;
  /** This request's audit record: the review or TokenRequest body is its requestObject (at level Request and above). */
  audit?: AuditRecord | undefined;
  respond(code: number, obj: unknown): void;
}

/**
 * Virtual resources (spec 1.8): the review APIs (spec 2.8, 4.8) and the TokenRequest subresource of service
 * accounts. They are operations, not stored objects.
 */
export function isVirtual(info: RequestInfo): boolean {
  return reviewHandler(info.apiGroup, info.resource) !== undefined || isTokenRequest(info);
}

const isTokenRequest = (info: RequestInfo) => info.apiGroup === '' && info.resource === 'serviceaccounts' && info.subresource === 'token';

/** Serves a request for which `isVirtual` holds. */
export async function serveVirtual(ctx: VirtualContext): Promise<void> {
  const { info } = ctx;
  const review = reviewHandler(info.apiGroup, info.resource);
  if (!review && !isTokenRequest(info)) throw new Error(`not a virtual resource: ${info.path}`);
  if (info.verb !== 'create') throw methodNotAllowed(ctx.req.method ?? '', `${info.resource}${info.subresource ? `/${info.subresource}` : ''}`);
  const body = decodeBody(header(ctx.req, 'content-type'), await readBody(ctx.req));
  ctx.audit?.requestObject(body);
  if (review) ctx.respond(201, await review(ctx, body));
  else ctx.respond(201, await issueToken(ctx, body));
}

type Handler = (ctx: VirtualContext, body: unknown) => Promise<ApiObject> | ApiObject;

function reviewHandler(group: string, resource: string): Handler | undefined {
  if (group === AUTHENTICATION_GROUP) {
    if (resource === 'selfsubjectreviews') return (c, b) => selfSubjectReview(b, c.user);
    if (resource === 'tokenreviews') return (c, b) => tokenReview(b, c.authenticator, c.apiAudiences);
  }
  if (group === AUTHORIZATION_GROUP) {
    if (resource === 'subjectaccessreviews') return (c, b) => subjectAccessReview(b, c.authorizer);
    if (resource === 'localsubjectaccessreviews') {
      return (c, b) => {
        if (!c.info.namespace) throw notFoundMessage('the server could not find the requested resource');
        return localSubjectAccessReview(b, c.info.namespace, c.authorizer);
      };
    }
    if (resource === 'selfsubjectaccessreviews') return (c, b) => selfSubjectAccessReview(b, c.user, c.authorizer);
    if (resource === 'selfsubjectrulesreviews') {
      return (c, b) =>
        selfSubjectRulesReview(b, c.user, (user, ns) =>
          c.rbac ? rulesFromRbac(resolveRulesForUser(c.rbac, user, ns)) : { resourceRules: [], nonResourceRules: [], incomplete: true },
        );
    }
  }
  return undefined;
}

/** The reference's default lifetime of a requested token: one hour. */
const DEFAULT_TOKEN_SECONDS = 3600;

/** TokenRequest (spec 5.4): a signed token for the service account, optionally bound to a Pod or Secret. */
async function issueToken(ctx: VirtualContext, body: unknown): Promise<ApiObject> {
  const ns = ctx.info.namespace;
  const name = ctx.info.name;
  if (!isObject(body)) throw badRequest('the body must be a TokenRequest');
  if (body.kind !== undefined && body.kind !== 'TokenRequest') throw badRequest(`expected kind TokenRequest, got ${String(body.kind)}`);
  const spec = isObject(body.spec) ? body.spec : {};
  const sa = await getLive(ctx.registry, 'serviceaccounts', ns, name);
  if (!sa) throw notFound({ kind: 'serviceaccounts', resource: 'serviceaccounts', name });
  const audiences = Array.isArray(spec.audiences) && spec.audiences.length > 0 ? (spec.audiences as string[]) : ctx.apiAudiences;
  // Clients built on the reference's types send unset fields as null (`kubectl create token` does).
  const expirationSeconds = spec.expirationSeconds === undefined || spec.expirationSeconds === null ? DEFAULT_TOKEN_SECONDS : Number(spec.expirationSeconds);
  if (typeof spec.expirationSeconds === 'string' || typeof spec.expirationSeconds === 'boolean' || !Number.isInteger(expirationSeconds)) {
    throw invalid({ kind: 'TokenRequest', name }, [fieldError.invalid('spec.expirationSeconds', spec.expirationSeconds, 'must be an integer')]);
  }
  let boundObject: { kind: 'Pod' | 'Secret'; name: string; uid: string } | undefined;
  if (isObject(spec.boundObjectRef)) {
    const ref = spec.boundObjectRef as { kind?: string; name?: string; uid?: string };
    if (ref.kind !== 'Pod' && ref.kind !== 'Secret') {
      throw invalid({ kind: 'TokenRequest', name }, [fieldError.notSupported('spec.boundObjectRef.kind', ref.kind, ['Pod', 'Secret'])]);
    }
    const live = await getLive(ctx.registry, ref.kind === 'Pod' ? 'pods' : 'secrets', ns, ref.name ?? '');
    if (!live) throw notFound({ kind: ref.kind === 'Pod' ? 'pods' : 'secrets', resource: ref.kind === 'Pod' ? 'pods' : 'secrets', name: ref.name ?? '' });
    if (ref.uid && ref.uid !== live.uid) {
      throw conflict({ kind: ref.kind, name: ref.name ?? '' }, `the UID in the bound object reference (${ref.uid}) does not match the UID in record (${live.uid})`);
    }
    boundObject = { kind: ref.kind, name: ref.name ?? '', uid: live.uid };
  }
  if (ctx.admission) {
    await admitSubresourceObject(ctx.admission, {
      operation: 'CREATE',
      kind: { group: AUTHENTICATION_GROUP, version: 'v1', kind: 'TokenRequest' },
      resource: { group: '', version: 'v1', resource: 'serviceaccounts' },
      subresource: 'token',
      namespace: ns,
      name,
      object: body as ApiObject,
      user: ctx.user,
      dryRun: false,
    });
  }
  const { token, expirationTimestamp } = await ctx.issuer.issue({
    namespace: ns,
    serviceAccountName: name,
    serviceAccountUid: sa.uid,
    audiences,
    expirationSeconds,
    ...(boundObject ? { boundObject } : {}),
  });
  const group = body.apiVersion === `${REFERENCE_AUTHENTICATION_GROUP_ALIAS}/v1` ? REFERENCE_AUTHENTICATION_GROUP_ALIAS : AUTHENTICATION_GROUP;
  return {
    apiVersion: `${group}/v1`,
    kind: 'TokenRequest',
    metadata: { name, namespace: ns, creationTimestamp: null as unknown as string },
    spec: { audiences, expirationSeconds, boundObjectRef: spec.boundObjectRef ?? null },
    status: { token, expirationTimestamp },
  };
}

async function getLive(registry: Registry, plural: string, ns: string, name: string): Promise<{ uid: string } | undefined> {
  const store = registry.store('', 'v1', plural);
  if (!store) return undefined;
  try {
    const obj = await store.get(ns, name);
    return { uid: obj.metadata?.uid ?? '' };
  } catch (e) {
    if ((e as { code?: number }).code === 404) return undefined;
    throw e;
  }
}

export type { Res };
