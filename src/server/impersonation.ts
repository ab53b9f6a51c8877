/**
 * Impersonation (spec 5.7 item 4, special verb `impersonate`): `Impersonate-*` headers make a request act
 * as another user. Every requested attribute is authorized on its own, with the caller's identity, before
 * the identity is swapped; the first denial ends the request with the reference's 403 message.
 */
import { AUTHENTICATION_GROUP } from '../api/naming.js';
import { ANONYMOUS_USER, AUTHENTICATED_GROUP, UNAUTHENTICATED_GROUP, type UserInfo } from '../authn/types.js';
import { forbiddenMessage, type Attributes, type Authorizer } from '../authz/index.js';
import { badRequest, forbidden } from '../errors/index.js';
import { isDNS1123Label, isDNS1123Subdomain } from '../registry/validation/names.js';

export const IMPERSONATE_USER_HEADER = 'Impersonate-User';
export const IMPERSONATE_UID_HEADER = 'Impersonate-Uid';
export const IMPERSONATE_GROUP_HEADER = 'Impersonate-Group';
export const IMPERSONATE_EXTRA_PREFIX = 'Impersonate-Extra-';

const SA_PREFIX = 'system:serviceaccount:';
const SA_GROUP = 'system:serviceaccounts';

type Headers = Record<string, string | string[] | undefined>;

/** One thing the caller asks to act as; each becomes one `impersonate` check. */
interface Request {
  resource: 'users' | 'serviceaccounts' | 'groups' | 'userextras' | 'uids';
  apiGroup: string;
  subresource: string;
  namespace: string;
  name: string;
}

/**
 * The user a request acts as. Pass `req.headersDistinct` where possible: node joins repeated headers
 * with ", " in `req.headers`, so each `Impersonate-Group` line only stays a separate value in an array.
 */
export async function impersonate(headers: Headers, user: UserInfo, authorizer: Authorizer): Promise<UserInfo> {
  if (!namesImpersonation(headers)) return user;
  const wanted = readHeaders(headers);
  const requests = toRequests(wanted);
  if (requests.length === 0) return user;
  if (!wanted.user) {
    // The reference refuses to guess a username for groups, extras or a uid on their own.
    throw badRequest(`requested ${describe(requests)} without impersonating a user`);
  }
  for (const r of requests) {
    const attrs: Attributes = {
      user,
      verb: 'impersonate',
      isResourceRequest: true,
      path: '',
      apiGroup: r.apiGroup,
      apiVersion: r.apiGroup ? 'v1' : '',
      resource: r.resource,
      subresource: r.subresource,
      namespace: r.namespace,
      name: r.name,
    };
    const d = await authorizer.authorize(attrs);
    if (d.decision !== 'allow') {
      throw forbidden(forbiddenMessage(attrs, d.reason), { group: r.apiGroup, kind: r.resource, name: r.name });
    }
  }
  return impersonatedUser(wanted);
}

/** True when the headers ask for any impersonation (cheap pre-check for callers). */
export function wantsImpersonation(headers: Headers): boolean {
  return toRequests(readHeaders(headers)).length > 0;
}

interface Wanted {
  user: string;
  uid: string;
  /** `undefined` = no Impersonate-Group header at all (matters for service-account defaults). */
  groups: string[] | undefined;
  extra: Map<string, string[]>;
  serviceAccount?: { namespace: string; name: string };
}

const userKey = IMPERSONATE_USER_HEADER.toLowerCase();
const uidKey = IMPERSONATE_UID_HEADER.toLowerCase();
const groupKey = IMPERSONATE_GROUP_HEADER.toLowerCase();
const extraPrefix = IMPERSONATE_EXTRA_PREFIX.toLowerCase();

/** Whether any header is one of the impersonation headers (names compared case-insensitively). */
export function namesImpersonation(headers: Headers): boolean {
  for (const rawName in headers) {
    const name = rawName.toLowerCase();
    if (name === userKey || name === uidKey || name === groupKey || name.startsWith(extraPrefix)) return true;
  }
  return false;
}

function readHeaders(headers: Headers): Wanted {
  const w: Wanted = { user: '', uid: '', groups: undefined, extra: new Map() };
  const userValues: string[] = [];
  const uidValues: string[] = [];
  // Header names are case-insensitive; node lowercases them but other callers may not.
  for (const [rawName, raw] of Object.entries(headers)) {
    const values = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
    if (values.length === 0) continue;
    const name = rawName.toLowerCase();
    if (name === userKey) userValues.push(...values);
    else if (name === uidKey) uidValues.push(...values);
    else if (name === groupKey) (w.groups ??= []).push(...values);
    else if (name.startsWith(extraPrefix)) {
      const key = unescapeExtraKey(name.slice(extraPrefix.length));
      w.extra.set(key, [...(w.extra.get(key) ?? []), ...values]);
    }
  }
  // Like Go's Header.Get: the first value counts, and an empty one means "not requested".
  w.user = userValues[0] ?? '';
  w.uid = uidValues[0] ?? '';
  const sa = splitServiceAccount(w.user);
  if (sa) w.serviceAccount = sa;
  return w;
}

function toRequests(w: Wanted): Request[] {
  const core = { apiGroup: '', subresource: '', namespace: '' };
  const out: Request[] = [];
  if (w.serviceAccount) out.push({ ...core, resource: 'serviceaccounts', namespace: w.serviceAccount.namespace, name: w.serviceAccount.name });
  else if (w.user) out.push({ ...core, resource: 'users', name: w.user });
  for (const g of w.groups ?? []) out.push({ ...core, resource: 'groups', name: g });
  for (const [key, values] of w.extra) {
    for (const v of values) out.push({ apiGroup: AUTHENTICATION_GROUP, resource: 'userextras', subresource: key, namespace: '', name: v });
  }
  // The reference checks uids in the authentication group (RBAC rules name `authentication.../uids`).
  if (w.uid) out.push({ apiGroup: AUTHENTICATION_GROUP, resource: 'uids', subresource: '', namespace: '', name: w.uid });
  return out;
}

function impersonatedUser(w: Wanted): UserInfo {
  let groups = [...(w.groups ?? [])];
  // A service account's groups follow from its name, but only when the caller did not choose groups.
  if (w.serviceAccount && w.groups === undefined) groups = [SA_GROUP, `${SA_GROUP}:${w.serviceAccount.namespace}`];
  if (w.user === ANONYMOUS_USER) {
    if (!groups.includes(UNAUTHENTICATED_GROUP)) groups.push(UNAUTHENTICATED_GROUP);
  } else if (!groups.includes(AUTHENTICATED_GROUP) && !groups.includes(UNAUTHENTICATED_GROUP)) {
    // An explicit system:unauthenticated is respected: the caller was allowed to ask for it.
    groups.push(AUTHENTICATED_GROUP);
  }
  const out: UserInfo = { username: w.user, groups };
  if (w.uid) out.uid = w.uid;
  if (w.extra.size > 0) out.extra = Object.fromEntries(w.extra);
  return out;
}

/** `system:serviceaccount:<ns>:<name>` with a valid namespace and name; anything else is a plain user. */
function splitServiceAccount(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(SA_PREFIX)) return undefined;
  const parts = username.slice(SA_PREFIX.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace = '', name = ''] = parts;
  if (isDNS1123Label(namespace).length > 0 || isDNS1123Subdomain(name).length > 0) return undefined;
  return { namespace, name };
}

/** Extra keys travel percent-encoded because header names cannot carry every character a key may hold. */
function unescapeExtraKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key; // The reference keeps a malformed escape as written.
  }
}

function describe(requests: Request[]): string {
  return `[${requests.map((r) => `${r.resource}${r.subresource ? `/${r.subresource}` : ''} ${JSON.stringify(r.name)}`).join(', ')}]`;
}
