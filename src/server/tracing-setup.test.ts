import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { requestSpanName } from './tracing-setup.js';

describe('request span names', () => {
  const info = (over: Record<string, unknown>) => ({ isResourceRequest: true, path: '', verb: 'get', apiPrefix: 'api', apiGroup: '', apiVersion: 'v1', namespace: '', resource: 'pods', subresource: '', name: '', parts: [], ...over }) as Parameters<typeof requestSpanName>[1];
  const names: [string, Parameters<typeof requestSpanName>[1], string][] = [
    ['GET', info({ namespace: 'ns', name: 'p' }), 'GET /api/v1/namespaces/{:namespace}/pods/{:name}'],
    ['POST', info({ namespace: 'ns' }), 'POST /api/v1/namespaces/{:namespace}/pods'],
    ['GET', info({ apiPrefix: 'apis', apiGroup: 'apps', resource: 'deployments', namespace: 'ns', name: 'd', subresource: 'scale' }), 'GET /apis/apps/v1/namespaces/{:namespace}/deployments/{:name}/scale'],
    ['GET', info({ resource: 'nodes' }), 'GET /api/v1/nodes'],
    ['GET', info({ isResourceRequest: false }), 'GET'],
    ['GET', undefined, 'GET'],
  ];
  for (const [method, i, want] of names) {
    it(`reference behaviour: ${want}`, () => assert.equal(requestSpanName(method, i), want));
  }
});
