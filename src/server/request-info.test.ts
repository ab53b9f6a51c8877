import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RBAC_GROUP } from '../api/naming.js';
import { isStatusError } from '../errors/index.js';
import { parseRequestInfo, parseRequestUrl, type RequestInfo } from './request-info.js';

type Want = Partial<RequestInfo>;
interface Case {
  spec: '4.1' | '5.7';
  method: string;
  url: string;
  want: Want;
}

/** Fields not named in a case must keep their empty defaults, so every shape is pinned completely. */
const EMPTY: Omit<RequestInfo, 'path' | 'verb'> = {
  isResourceRequest: false,
  apiPrefix: '',
  apiGroup: '',
  apiVersion: '',
  namespace: '',
  resource: '',
  subresource: '',
  name: '',
  parts: [],
};
const core = { isResourceRequest: true, apiPrefix: 'api', apiVersion: 'v1' } as const;
const rbac = { isResourceRequest: true, apiPrefix: 'apis', apiGroup: RBAC_GROUP, apiVersion: 'v1' } as const;
const G = `/apis/${RBAC_GROUP}/v1`;

const cases: Case[] = [
  // Non-resource paths: the lowercased method is the verb.
  { spec: '5.7', method: 'GET', url: '/healthz', want: { verb: 'get' } },
  { spec: '5.7', method: 'GET', url: '/version', want: { verb: 'get' } },
  { spec: '5.7', method: 'GET', url: '/openapi/v2', want: { verb: 'get' } },
  { spec: '5.7', method: 'GET', url: '/livez/etcd?verbose', want: { verb: 'get' } },
  { spec: '5.7', method: 'HEAD', url: '/readyz', want: { verb: 'head' } },
  { spec: '5.7', method: 'POST', url: '/metrics', want: { verb: 'post' } },
  { spec: '5.7', method: 'GET', url: '/', want: { verb: 'get' } },
  { spec: '5.7', method: 'GET', url: '/apifoo/v1/pods', want: { verb: 'get' } },
  // Discovery documents are non-resource requests too.
  { spec: '5.7', method: 'GET', url: '/api', want: { verb: 'get', apiPrefix: 'api' } },
  { spec: '5.7', method: 'GET', url: '/api/', want: { verb: 'get', apiPrefix: 'api' } },
  { spec: '5.7', method: 'GET', url: '/api/v1', want: { verb: 'get', apiPrefix: 'api', apiVersion: 'v1' } },
  { spec: '5.7', method: 'GET', url: '/apis', want: { verb: 'get', apiPrefix: 'apis' } },
  { spec: '5.7', method: 'GET', url: `/apis/${RBAC_GROUP}`, want: { verb: 'get', apiPrefix: 'apis', apiGroup: RBAC_GROUP } },
  { spec: '5.7', method: 'GET', url: G, want: { verb: 'get', apiPrefix: 'apis', apiGroup: RBAC_GROUP, apiVersion: 'v1' } },

  // Core group, namespaced.
  { spec: '4.1', method: 'GET', url: '/api/v1/namespaces/ns/pods', want: { ...core, verb: 'list', namespace: 'ns', resource: 'pods', parts: ['pods'] } },
  { spec: '4.1', method: 'HEAD', url: '/api/v1/namespaces/ns/pods', want: { ...core, verb: 'list', namespace: 'ns', resource: 'pods', parts: ['pods'] } },
  { spec: '4.1', method: 'POST', url: '/api/v1/namespaces/ns/pods', want: { ...core, verb: 'create', namespace: 'ns', resource: 'pods', parts: ['pods'] } },
  { spec: '4.1', method: 'DELETE', url: '/api/v1/namespaces/ns/pods', want: { ...core, verb: 'deletecollection', namespace: 'ns', resource: 'pods', parts: ['pods'] } },
  { spec: '4.1', method: 'GET', url: '/api/v1/namespaces/ns/pods/p1', want: { ...core, verb: 'get', namespace: 'ns', resource: 'pods', name: 'p1', parts: ['pods', 'p1'] } },
  { spec: '4.1', method: 'HEAD', url: '/api/v1/namespaces/ns/pods/p1', want: { ...core, verb: 'get', namespace: 'ns', resource: 'pods', name: 'p1', parts: ['pods', 'p1'] } },
  { spec: '4.1', method: 'PUT', url: '/api/v1/namespaces/ns/pods/p1', want: { ...core, verb: 'update', namespace: 'ns', resource: 'pods', name: 'p1', parts: ['pods', 'p1'] } },
  { spec: '4.1', method: 'PATCH', url: '/api/v1/namespaces/ns/pods/p1', want: { ...core, verb: 'patch', namespace: 'ns', resource: 'pods', name: 'p1', parts: ['pods', 'p1'] } },
  { spec: '4.1', method: 'DELETE', url: '/api/v1/namespaces/ns/pods/p1', want: { ...core, verb: 'delete', namespace: 'ns', resource: 'pods', name: 'p1', parts: ['pods', 'p1'] } },
  { spec: '5.7', method: 'OPTIONS', url: '/api/v1/namespaces/ns/pods/p1', want: { ...core, verb: 'options', namespace: 'ns', resource: 'pods', name: 'p1', parts: ['pods', 'p1'] } },
  { spec: '4.1', method: 'GET', url: '/api/v1/namespaces/ns/pods/p1/log', want: { ...core, verb: 'get', namespace: 'ns', resource: 'pods', name: 'p1', subresource: 'log', parts: ['pods', 'p1', 'log'] } },
  { spec: '4.1', method: 'PUT', url: '/api/v1/namespaces/ns/pods/p1/status', want: { ...core, verb: 'update', namespace: 'ns', resource: 'pods', name: 'p1', subresource: 'status', parts: ['pods', 'p1', 'status'] } },
  { spec: '4.1', method: 'POST', url: '/api/v1/namespaces/ns/pods/p1/eviction', want: { ...core, verb: 'create', namespace: 'ns', resource: 'pods', name: 'p1', subresource: 'eviction', parts: ['pods', 'p1', 'eviction'] } },
  { spec: '4.1', method: 'POST', url: '/api/v1/namespaces/ns/serviceaccounts/sa/token', want: { ...core, verb: 'create', namespace: 'ns', resource: 'serviceaccounts', name: 'sa', subresource: 'token', parts: ['serviceaccounts', 'sa', 'token'] } },
  { spec: '4.1', method: 'GET', url: '/api/v1/namespaces/ns/pods/p1/proxy/some/path', want: { ...core, verb: 'get', namespace: 'ns', resource: 'pods', name: 'p1', subresource: 'proxy', parts: ['pods', 'p1', 'proxy', 'some', 'path'] } },

  // Core group, cluster-scoped and all-namespaces lists.
  { spec: '4.1', method: 'GET', url: '/api/v1/pods', want: { ...core, verb: 'list', resource: 'pods', parts: ['pods'] } },
  { spec: '4.1', method: 'GET', url: '/api/v1/nodes/n1', want: { ...core, verb: 'get', resource: 'nodes', name: 'n1', parts: ['nodes', 'n1'] } },
  { spec: '4.1', method: 'PATCH', url: '/api/v1/nodes/n1/status', want: { ...core, verb: 'patch', resource: 'nodes', name: 'n1', subresource: 'status', parts: ['nodes', 'n1', 'status'] } },

  // Namespaces are cluster-scoped; the object's namespace field is its own name.
  { spec: '4.1', method: 'GET', url: '/api/v1/namespaces', want: { ...core, verb: 'list', resource: 'namespaces', parts: ['namespaces'] } },
  { spec: '4.1', method: 'POST', url: '/api/v1/namespaces', want: { ...core, verb: 'create', resource: 'namespaces', parts: ['namespaces'] } },
  { spec: '4.1', method: 'GET', url: '/api/v1/namespaces/ns', want: { ...core, verb: 'get', namespace: 'ns', resource: 'namespaces', name: 'ns', parts: ['namespaces', 'ns'] } },
  { spec: '4.1', method: 'DELETE', url: '/api/v1/namespaces/ns', want: { ...core, verb: 'delete', namespace: 'ns', resource: 'namespaces', name: 'ns', parts: ['namespaces', 'ns'] } },
  { spec: '4.1', method: 'PUT', url: '/api/v1/namespaces/ns/status', want: { ...core, verb: 'update', namespace: 'ns', resource: 'namespaces', name: 'ns', subresource: 'status', parts: ['namespaces', 'ns', 'status'] } },
  { spec: '4.1', method: 'PUT', url: '/api/v1/namespaces/ns/finalize', want: { ...core, verb: 'update', namespace: 'ns', resource: 'namespaces', name: 'ns', subresource: 'finalize', parts: ['namespaces', 'ns', 'finalize'] } },
  { spec: '4.1', method: 'GET', url: '/api/v1/namespaces/ns/namespaces/ns', want: { ...core, verb: 'get', namespace: 'ns', resource: 'namespaces', name: 'ns', parts: ['namespaces', 'ns'] } },

  // Named group.
  { spec: '4.1', method: 'GET', url: `${G}/clusterroles`, want: { ...rbac, verb: 'list', resource: 'clusterroles', parts: ['clusterroles'] } },
  { spec: '4.1', method: 'GET', url: `${G}/clusterroles/admin`, want: { ...rbac, verb: 'get', resource: 'clusterroles', name: 'admin', parts: ['clusterroles', 'admin'] } },
  { spec: '4.1', method: 'DELETE', url: `${G}/clusterroles`, want: { ...rbac, verb: 'deletecollection', resource: 'clusterroles', parts: ['clusterroles'] } },
  { spec: '4.1', method: 'POST', url: `${G}/namespaces/ns/roles`, want: { ...rbac, verb: 'create', namespace: 'ns', resource: 'roles', parts: ['roles'] } },
  { spec: '4.1', method: 'PUT', url: `${G}/namespaces/ns/roles/r`, want: { ...rbac, verb: 'update', namespace: 'ns', resource: 'roles', name: 'r', parts: ['roles', 'r'] } },
  { spec: '4.1', method: 'PATCH', url: `${G}/namespaces/ns/roles/r/status`, want: { ...rbac, verb: 'patch', namespace: 'ns', resource: 'roles', name: 'r', subresource: 'status', parts: ['roles', 'r', 'status'] } },
  { spec: '4.1', method: 'GET', url: `${G}/rolebindings`, want: { ...rbac, verb: 'list', resource: 'rolebindings', parts: ['rolebindings'] } },

  // Watch via the query parameter.
  { spec: '4.1', method: 'GET', url: '/api/v1/namespaces/ns/pods?watch=1', want: { ...core, verb: 'watch', namespace: 'ns', resource: 'pods', parts: ['pods'] } },
  { spec: '4.1', method: 'GET', url: '/api/v1/pods?watch=true', want: { ...core, verb: 'watch', resource: 'pods', parts: ['pods'] } },
  { spec: '4.1', method: 'GET', url: '/api/v1/pods?watch=True', want: { ...core, verb: 'watch', resource: 'pods', parts: ['pods'] } },
  { spec: '4.1', method: 'GET', url: '/api/v1/pods?watch=false', want: { ...core, verb: 'list', resource: 'pods', parts: ['pods'] } },
  { spec: '4.1', method: 'GET', url: '/api/v1/pods?watch=0', want: { ...core, verb: 'list', resource: 'pods', parts: ['pods'] } },
  { spec: '4.1', method: 'GET', url: '/api/v1/pods?watch=', want: { ...core, verb: 'list', resource: 'pods', parts: ['pods'] } },
  { spec: '4.1', method: 'GET', url: '/api/v1/namespaces/ns/pods/p1?watch=1', want: { ...core, verb: 'watch', namespace: 'ns', resource: 'pods', name: 'p1', parts: ['pods', 'p1'] } },
  { spec: '4.1', method: 'GET', url: `${G}/clusterroles?watch=1`, want: { ...rbac, verb: 'watch', resource: 'clusterroles', parts: ['clusterroles'] } },
  { spec: '4.1', method: 'POST', url: '/api/v1/namespaces/ns/pods?watch=1', want: { ...core, verb: 'create', namespace: 'ns', resource: 'pods', parts: ['pods'] } },
  { spec: '4.1', method: 'DELETE', url: '/api/v1/namespaces/ns/pods?watch=1', want: { ...core, verb: 'deletecollection', namespace: 'ns', resource: 'pods', parts: ['pods'] } },

  // Path segments are percent-decoded (only segments with an escape need it).
  { spec: '4.1', method: 'GET', url: `${G}/clusterroles/system%3Acontroller%3Ax`, want: { ...rbac, verb: 'get', resource: 'clusterroles', name: 'system:controller:x', parts: ['clusterroles', 'system:controller:x'] } },

  // Watch via the legacy prefix.
  { spec: '4.1', method: 'GET', url: '/api/v1/watch/pods', want: { ...core, verb: 'watch', resource: 'pods', parts: ['pods'] } },
  { spec: '4.1', method: 'GET', url: '/api/v1/watch/namespaces/ns/pods/p1', want: { ...core, verb: 'watch', namespace: 'ns', resource: 'pods', name: 'p1', parts: ['pods', 'p1'] } },
  { spec: '4.1', method: 'GET', url: '/api/v1/watch/namespaces', want: { ...core, verb: 'watch', resource: 'namespaces', parts: ['namespaces'] } },
  { spec: '4.1', method: 'GET', url: `${G}/watch/namespaces/ns/roles`, want: { ...rbac, verb: 'watch', namespace: 'ns', resource: 'roles', parts: ['roles'] } },

  // fieldSelector pins the name of a list or watch.
  { spec: '5.7', method: 'GET', url: '/api/v1/namespaces/ns/pods?watch=1&fieldSelector=metadata.name%3Dp1', want: { ...core, verb: 'watch', namespace: 'ns', resource: 'pods', name: 'p1', parts: ['pods'] } },
  { spec: '5.7', method: 'GET', url: '/api/v1/namespaces/ns/pods?fieldSelector=metadata.name%3D%3Dp1', want: { ...core, verb: 'list', namespace: 'ns', resource: 'pods', name: 'p1', parts: ['pods'] } },
  { spec: '5.7', method: 'GET', url: '/api/v1/pods?fieldSelector=metadata.name%3Dp1,metadata.namespace%3Dns', want: { ...core, verb: 'list', resource: 'pods', name: 'p1', parts: ['pods'] } },
  { spec: '5.7', method: 'GET', url: '/api/v1/pods?fieldSelector=metadata.name!%3Dp1', want: { ...core, verb: 'list', resource: 'pods', parts: ['pods'] } },
  { spec: '5.7', method: 'GET', url: '/api/v1/pods?fieldSelector=spec.nodeName%3Dn1', want: { ...core, verb: 'list', resource: 'pods', parts: ['pods'] } },
  { spec: '5.7', method: 'GET', url: '/api/v1/pods?watch=1&fieldSelector=metadata.name%3Da%3Db', want: { ...core, verb: 'watch', resource: 'pods', parts: ['pods'] } },
  { spec: '5.7', method: 'GET', url: '/api/v1/pods?fieldSelector=metadata.name%3D..', want: { ...core, verb: 'list', resource: 'pods', parts: ['pods'] } },
  { spec: '5.7', method: 'GET', url: '/api/v1/pods?fieldSelector=metadata.name%3Da%25b', want: { ...core, verb: 'list', resource: 'pods', parts: ['pods'] } },
  { spec: '5.7', method: 'DELETE', url: '/api/v1/pods?fieldSelector=metadata.name%3Dp1', want: { ...core, verb: 'deletecollection', resource: 'pods', parts: ['pods'] } },

  // Empty segments are ignored; each segment is percent-decoded on its own.
  { spec: '4.1', method: 'GET', url: '//api//v1//namespaces/ns//pods/p1/', want: { ...core, verb: 'get', namespace: 'ns', resource: 'pods', name: 'p1', parts: ['pods', 'p1'] } },
  { spec: '4.1', method: 'GET', url: '/api/v1/namespaces/n%73/pods/a%2Fb', want: { ...core, verb: 'get', namespace: 'ns', resource: 'pods', name: 'a/b', parts: ['pods', 'a/b'] } },
];

describe('request info', () => {
  for (const c of cases) {
    it(`spec ${c.spec}: ${c.method} ${c.url}`, () => {
      // Split by hand: the raw, still-encoded path is what the server hands over.
      const [rawPath = '', rawQuery = ''] = c.url.split('?');
      const got = parseRequestInfo(c.method, rawPath, new URLSearchParams(rawQuery));
      assert.deepEqual(got, { ...EMPTY, path: rawPath, ...c.want });
      // Again: a write's answer is remembered, and must not change.
      assert.deepEqual(parseRequestInfo(c.method, rawPath, new URLSearchParams(rawQuery)), { ...EMPTY, path: rawPath, ...c.want });
    });
  }

  it('spec 5.7: remembered answers for writes are kept per method and cannot be changed', () => {
    const path = '/api/v1/namespaces/ns/configmaps';
    const q = new URLSearchParams();
    assert.equal(parseRequestInfo('POST', path, q).verb, 'create');
    assert.equal(parseRequestInfo('DELETE', path, q).verb, 'deletecollection');
    assert.equal(parseRequestInfo('POST', path, q).verb, 'create');
    const info = parseRequestInfo('POST', path, q);
    assert.ok(Object.isFrozen(info) && Object.isFrozen(info.parts));
    // GETs depend on the query, so they are never shared.
    assert.equal(parseRequestInfo('GET', path, q).verb, 'list');
    assert.equal(parseRequestInfo('GET', path, new URLSearchParams('watch=1')).verb, 'watch');
    // Past the size of the table the answers stay right.
    for (let i = 0; i < 600; i++) assert.equal(parseRequestInfo('PUT', `/api/v1/namespaces/ns/configmaps/c${i}`, q).name, `c${i}`);
    assert.equal(parseRequestInfo('PUT', '/api/v1/namespaces/ns/configmaps/c5', q).name, 'c5');
  });

  for (const url of ['/api/v1/watch', `${G}/watch/`]) {
    it(`spec 4.1: legacy watch prefix without a resource is a 400 (${url})`, () => {
      assert.throws(
        () => parseRequestInfo('GET', url, new URLSearchParams()),
        (e: unknown) => isStatusError(e) && e.code === 400 && /unable to determine kind and namespace/.test(e.message),
      );
    });
  }

  it('spec 4.1: a malformed percent escape is a 400', () => {
    assert.throws(
      () => parseRequestInfo('GET', '/api/v1/namespaces/%zz/pods', new URLSearchParams()),
      (e: unknown) => isStatusError(e) && e.code === 400,
    );
  });
});

describe('request targets (spec 4.1): path and query as URL parsing of origin + target gives them', () => {
  const targets = [
    '/',
    '/api/v1/namespaces/default/pods',
    '/api/v1/namespaces/default/configmaps/kube-root-ca.crt?resourceVersion=0',
    '/apis/rbac.authorization.orch.io/v1/clusterroles/system:controller:x',
    '/api/v1/pods?watch=1&labelSelector=a%3Db%2Cc+in+(x,y)&fieldSelector=spec.nodeName%3Dn1',
    '/api/v1/namespaces/default/../kube-system/secrets',
    '/api/v1/./pods',
    '/api/v1/namespaces/a%2Fb/pods',
    '/api/v1/namespaces/x y/pods',
    '/api/v1/pods?a=1&a=2&b',
    '/api/v1/pods#frag',
    '/api/v1/pods/name?',
    '//api/v1/pods',
    '/api/v1/namespaces/ü/pods',
  ];
  for (const t of targets) {
    it(`${JSON.stringify(t)}`, () => {
      const u = new URL(`https://orch.invalid${t}`);
      const got = parseRequestUrl(t);
      assert.equal(got.pathname, u.pathname);
      assert.deepEqual([...got.searchParams], [...u.searchParams]);
    });
  }
});
