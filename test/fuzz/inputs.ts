/**
 * One fuzz input: a request (method, path with query, headers, body) made from the run's seed and the
 * input's number alone, aimed at the served resources. Pure: `makeInput(seed, index, ...)` always returns
 * the same request, so a failure is reproduced by its seed and number.
 */
import { gzipSync } from 'node:zlib';
import { META_GROUP, PROTOBUF_MEDIA_TYPE, REFERENCE_META_GROUP_ALIAS } from '../../src/api/naming.js';
import { IMPERSONATE_EXTRA_PREFIX, IMPERSONATE_GROUP_HEADER, IMPERSONATE_UID_HEADER, IMPERSONATE_USER_HEADER } from '../../src/server/impersonation.js';
import { deleteOptions, encodeObject, maybeMutated, objectOf, patchBody, type Body, type KindRef } from './bodies.js';
import { BAD_NAMES, collectionPath, FUZZ_NAMESPACE, OBJECT_NAMES, PROTECTED_NAMESPACE, SENTINEL_PREFIX, type Target } from './catalogue.js';
import { Rng } from './prng.js';

export interface FuzzInput {
  index: number;
  method: string;
  /** Path and query, as sent. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** How the input was made (shape, body kind, mutations), for reports. */
  note: string;
  /** The request may open a watch stream (its answer is cut off after the first bytes). */
  mayStream: boolean;
}

export interface InputContext {
  targets: readonly Target[];
  /** The fuzzer's own bearer token (never an admin's). */
  token: string;
}

const METHODS_BY_VERB: Record<string, string> = { get: 'GET', list: 'GET', watch: 'GET', create: 'POST', update: 'PUT', patch: 'PATCH', delete: 'DELETE', deletecollection: 'DELETE' };

export function makeInput(seed: number, index: number, ctx: InputContext): FuzzInput {
  const rng = Rng.forInput(seed, index);
  const t = rng.pick(ctx.targets);
  const namespace = t.namespaced ? namespaceFor(rng) : undefined;
  const name = rng.chance(0.85) ? rng.pick(OBJECT_NAMES) : badName(rng);
  const shape = rng.weighted([
    [5, 'item'],
    [4, 'collection'],
    [2, 'subresource'],
    [1, 'watch-prefix'],
    [1, 'all-namespaces'],
    [1, 'odd-path'],
  ] as const);
  const subs = [...t.subresources.keys()];
  const sub = shape === 'subresource' && subs.length > 0 ? rng.pick(subs) : undefined;
  let path = pathFor(rng, t, shape, namespace, name, sub);
  const method = methodFor(rng, t, shape);
  const notes = [`${method} ${shape}${sub ? `/${sub}` : ''}`];
  if (rng.chance(0.15)) {
    const mangled = manglePath(rng, path);
    path = mangled.path;
    notes.push(mangled.note);
  }
  const query = queryFor(rng, method);
  const headers = headersFor(rng, ctx.token);
  let body: Body | undefined;
  const bodyKind: KindRef = sub && t.subresources.get(sub)?.definition ? (t.subresources.get(sub) as KindRef) : t;
  const obj = objectOf(rng, bodyKind, name, namespace);
  if (method === 'POST' || method === 'PUT') {
    const m = maybeMutated(rng, obj, 0.5);
    body = encodeObject(rng, m.value);
    body.note = `${body.note}:${m.note}`;
  } else if (method === 'PATCH') body = patchBody(rng, obj);
  else if (method === 'DELETE' && rng.chance(0.3)) body = deleteOptions(rng);
  else if (rng.chance(0.03)) body = { contentType: 'application/json', bytes: Buffer.from('{"unexpected":"body"}'), note: 'stray-body' };
  if (body) {
    notes.push(body.note);
    if (body.contentType !== undefined) headers['content-type'] = body.contentType;
    if (rng.chance(0.03)) {
      const gz = rng.chance(0.5);
      headers['content-encoding'] = rng.pick(['gzip', 'br', 'x-bogus']);
      if (gz && headers['content-encoding'] === 'gzip') body.bytes = gzipSync(body.bytes);
      notes.push(`content-encoding ${headers['content-encoding']}${gz ? '' : ' (plain bytes)'}`);
    }
  }
  const full = avoidSentinels(query ? `${path}?${query}` : path);
  // Any mention of watch, percent-encoded too (the server decodes `%77atch` to the watch prefix).
  const mayStream = method === 'GET' && /watch|%77/i.test(full);
  return { index, method, path: full, headers, ...(body ? { body: body.bytes } : {}), note: notes.join('; '), mayStream };
}

/** A bad name, its bytes outside ASCII percent-encoded as clients send them (raw sometimes). */
function badName(rng: Rng): string {
  const name = rng.pick(BAD_NAMES);
  return rng.chance(0.8) ? name.replace(/[^\x21-\x7e]/g, (c) => encodeURIComponent(c)) : name;
}

function namespaceFor(rng: Rng): string {
  return rng.weighted([
    [14, FUZZ_NAMESPACE],
    [3, PROTECTED_NAMESPACE],
    [1, 'default'],
    [1, 'fz-missing'],
    [1, badName(rng)],
  ] as const);
}

function pathFor(rng: Rng, t: Target, shape: string, namespace: string | undefined, name: string, sub: string | undefined): string {
  const coll = collectionPath(t, namespace);
  switch (shape) {
    case 'collection':
      return coll;
    case 'subresource':
      return sub ? `${coll}/${name}/${sub}` : `${coll}/${name}/${rng.pick(['status', 'scale', 'bogus', 'status/extra'])}`;
    case 'watch-prefix': {
      const root = t.group === '' ? `/api/${t.version}` : `/apis/${t.group}/${t.version}`;
      return `${root}/watch${coll.slice(root.length)}${rng.chance(0.5) ? `/${name}` : ''}`;
    }
    case 'all-namespaces':
      return collectionPath(t);
    case 'odd-path':
      return rng.pick([
        '/',
        '/api',
        '/apis',
        '/api/v1',
        `/apis/${t.group || 'core'}`,
        `/apis/${t.group}/v999/${t.plural}`,
        '/openapi/v2',
        '/openapi/v3',
        '/version',
        '/livez',
        '/readyz?verbose',
        '/healthz/etcd',
        '/metrics',
        '/logs/x',
        `/apis/${t.group}/${t.version}/namespaces`,
        `${coll}/${name}/status/x/y/z`,
        `/api/v1/namespaces/${FUZZ_NAMESPACE}/finalize`,
        `/api/v1/namespaces/${FUZZ_NAMESPACE}/status`,
        '/.well-known/openid-configuration',
        '/openid/v1/jwks',
        `${coll}/`.repeat(3),
      ]);
    default:
      return `${coll}/${name}`;
  }
}

function methodFor(rng: Rng, t: Target, shape: string): string {
  if (rng.chance(0.08)) return rng.pick(['HEAD', 'OPTIONS', 'PUT', 'POST', 'DELETE', 'PATCH', 'GET']);
  const verbs = t.verbs.filter((v) => (shape === 'collection' || shape === 'all-namespaces' ? ['list', 'watch', 'create', 'deletecollection'] : ['get', 'update', 'patch', 'delete']).includes(v));
  const verb = verbs.length > 0 ? rng.pick(verbs) : rng.pick(Object.keys(METHODS_BY_VERB));
  if (shape === 'item' && rng.chance(0.15)) return 'POST'; // create at an item path: 405 or 400
  return METHODS_BY_VERB[verb] ?? 'GET';
}

/** The path with one segment percent-encoded, a dot segment, a doubled slash, a very long segment, ... */
export function manglePath(rng: Rng, path: string): { path: string; note: string } {
  const segs = path.split('/');
  const i = rng.int(1, Math.max(1, segs.length - 1));
  const how = rng.pick(['encode', 'dot', 'dotdot', 'double-slash', 'long', 'upper', 'trailing', 'encoded-slash', 'unicode', 'bad-escape']);
  const seg = segs[i] ?? '';
  switch (how) {
    case 'encode':
      segs[i] = [...seg].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
      break;
    case 'dot':
      segs.splice(i, 0, '.');
      break;
    case 'dotdot':
      segs.splice(i, 0, 'x', '..');
      break;
    case 'double-slash':
      segs.splice(i, 0, '');
      break;
    case 'long':
      segs[i] = 'a'.repeat(rng.pick([300, 4000, 7000]));
      break;
    case 'upper':
      segs[i] = seg.toUpperCase();
      break;
    case 'trailing':
      segs.push('');
      break;
    case 'encoded-slash':
      segs[i] = `${seg}%2F..%2F${seg}`;
      break;
    case 'unicode':
      segs[i] = encodeURIComponent(`${seg}é名`);
      break;
    case 'bad-escape':
      segs[i] = `${seg}%zz%`;
      break;
  }
  return { path: segs.join('/'), note: `path-${how}` };
}

const QUERY_VALUES: Record<string, readonly string[]> = {
  labelSelector: ['app=fuzz', 'app in (fuzz,x)', '!app', 'app,tier!=x', '=', 'app in (', 'a'.repeat(400), Array.from({ length: 300 }, (_, i) => `k${i}=v`).join(','), 'app==x', 'é=1', 'a/b/c=d'],
  fieldSelector: ['metadata.name=fz-1', 'metadata.namespace!=x', 'spec.nodeName=n', 'status.phase=Running', 'bogus=1', '==', 'metadata.name', 'type=bootstrap', 'involvedObject.name=x', 'a'.repeat(400)],
  limit: ['1', '2', '0', '-1', '500', 'abc', '99999999999999999999', '1.5', ''],
  continue: ['', 'abc', 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NSwic3RhcnQiOiJmei0xXHUwMDAwIn0', Buffer.from(`{"v":"${REFERENCE_META_GROUP_ALIAS}/v1","rv":-1,"start":"/"}`).toString('base64'), '%%%', 'A'.repeat(5000)],
  resourceVersion: ['0', '', '1', '999999999', '18446744073709551615', '18446744073709551616', '9'.repeat(400), 'abc', '-1', '1.0', ' 1'],
  resourceVersionMatch: ['NotOlderThan', 'Exact', 'bogus', ''],
  watch: ['true', '1', 'false', '0', 'yes', 'x', ''],
  timeoutSeconds: ['1', '0', '-1', '2', '99999999999', 'x', '1.5'],
  allowWatchBookmarks: ['true', 'false', 'x'],
  sendInitialEvents: ['true', 'false', 'x'],
  dryRun: ['All', 'bogus', '', 'All&dryRun=All'],
  fieldManager: ['fuzz', '', 'a'.repeat(200), 'é', 'kubectl-client-side-apply', 'before-first-apply'],
  fieldValidation: ['Strict', 'Warn', 'Ignore', 'bogus', 'strict'],
  force: ['true', 'false', 'x'],
  propagationPolicy: ['Foreground', 'Background', 'Orphan', 'bogus'],
  gracePeriodSeconds: ['0', '-1', 'x', '30', '99999999999999'],
  orphanDependents: ['true', 'false', 'x'],
  pretty: ['true', '1', 'false', 'x'],
  includeObject: ['Object', 'None', 'Metadata', 'bogus'],
  container: ['c', 'x'],
  follow: ['true'],
  tailLines: ['1', '-1', 'x'],
  export: ['true'],
  bogusParam: ['1'],
};

/** A query string: a few parameters (the right ones for the verb more often), values valid or not. */
export function queryFor(rng: Rng, method: string): string {
  const common = method === 'GET' ? ['labelSelector', 'fieldSelector', 'limit', 'continue', 'resourceVersion', 'resourceVersionMatch', 'watch', 'timeoutSeconds', 'allowWatchBookmarks', 'sendInitialEvents'] : ['dryRun', 'fieldManager', 'fieldValidation', 'force', 'propagationPolicy', 'gracePeriodSeconds'];
  const keys = rng.chance(0.8) ? rng.some(common, 3) : rng.some(Object.keys(QUERY_VALUES), 4);
  if (method === 'PATCH' && rng.chance(0.6)) keys.push('fieldManager');
  if (rng.chance(0.3)) keys.push('pretty');
  const parts = keys.map((k) => `${k}=${encode(rng, rng.pick(QUERY_VALUES[k] ?? ['1']))}`);
  if (rng.chance(0.05)) parts.push(rng.pick(['watch=1&watch=0', '%', '=&=', 'a=%zz', '&&&', ';x=1', '+=+', `x=${'y'.repeat(3000)}`]));
  // An open watch is closed by the fuzzer after its first bytes; a timeout keeps server state short too.
  return parts.join('&');
}

function encode(rng: Rng, v: string): string {
  return rng.chance(0.9) ? encodeURIComponent(v) : v.replace(/[^\x21-\x7e]/g, (c) => encodeURIComponent(c));
}

const ACCEPTS: readonly (readonly [number, string])[] = [
  [20, 'application/json'],
  [4, PROTOBUF_MEDIA_TYPE],
  [3, 'application/yaml'],
  [3, `application/json;as=Table;v=v1;g=${META_GROUP}`],
  [1, `application/json;as=Table;v=v1;g=${REFERENCE_META_GROUP_ALIAS}`],
  [1, `${PROTOBUF_MEDIA_TYPE};as=Table;v=v1;g=${META_GROUP}`],
  [2, `application/json;as=PartialObjectMetadata;v=v1;g=${META_GROUP}`],
  [1, `application/json;as=PartialObjectMetadataList;v=v1;g=${META_GROUP}`],
  [1, `application/json;as=Table;v=v1beta1;g=${META_GROUP}`],
  [1, `${PROTOBUF_MEDIA_TYPE}, application/json`],
  [1, `application/json;q=0.1, ${PROTOBUF_MEDIA_TYPE};q=0.9`],
  [1, `${PROTOBUF_MEDIA_TYPE};stream=watch`],
  [1, 'application/json;stream=watch'],
  [2, '*/*'],
  [1, 'application/*'],
  [1, 'text/html'],
  [1, 'application/json;q=0'],
  [1, ';;;,,,'],
  [1, 'application/json;as=Table'],
  [1, 'application/cbor'],
];

/** Headers: the fuzzer's credential (or a broken one), accept and encoding variants, impersonation. */
export function headersFor(rng: Rng, token: string): Record<string, string> {
  const h: Record<string, string> = {};
  const auth = rng.weighted([
    [30, `Bearer ${token}`],
    [1, ''],
    [1, 'Bearer '],
    [1, `Bearer ${token}x`],
    [1, `bearer ${token}`],
    [1, 'Basic YWRtaW46YWRtaW4='],
    [1, `Bearer ${token} extra`],
    [1, 'Bearer \xe9\xff'],
  ] as const);
  if (auth) h.authorization = auth;
  if (rng.chance(0.85)) h.accept = rng.weighted(ACCEPTS);
  if (rng.chance(0.15)) h['accept-encoding'] = rng.pick(['gzip', 'gzip, deflate, br', '*', 'identity;q=0', 'br', 'bogus', 'gzip;q=0']);
  if (rng.chance(0.08)) {
    h[IMPERSONATE_USER_HEADER.toLowerCase()] = rng.pick(['system:admin', 'orch-admin', '', 'system:serviceaccount:protected:default', '\xe9', 'x'.repeat(500)]);
    if (rng.chance(0.5)) h[IMPERSONATE_GROUP_HEADER.toLowerCase()] = rng.pick(['system:masters', 'system:authenticated', '']);
    if (rng.chance(0.3)) h[IMPERSONATE_UID_HEADER.toLowerCase()] = rng.pick(['1', '']);
    if (rng.chance(0.3)) h[`${IMPERSONATE_EXTRA_PREFIX.toLowerCase()}${rng.pick(['scopes', 'a%20b', '%zz', 'é'.normalize('NFD').replace(/[^\x00-\x7f]/g, '')])}`] = rng.pick(['view', '\xff']);
  } else if (rng.chance(0.02)) h[IMPERSONATE_GROUP_HEADER.toLowerCase()] = 'system:masters'; // a group without a user: 400
  if (rng.chance(0.03)) h['audit-id'] = rng.pick(['x', '\xe9\xe8', 'a'.repeat(300), '\t']);
  if (rng.chance(0.03)) h['user-agent'] = rng.pick(['', 'kubectl/v1.31.0 (linux/amd64)', '\xff'.repeat(50), 'a'.repeat(2000)]);
  if (rng.chance(0.02)) h['x-remote-user'] = 'system:admin';
  if (rng.chance(0.02)) h['if-none-match'] = '*';
  return h;
}

/** Generated paths never name a sentinel object (the run checks those are untouched). */
function avoidSentinels(path: string): string {
  return path.split(SENTINEL_PREFIX).join('sntnl');
}
