import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMISSION_GROUP, ADMISSIONREGISTRATION_GROUP, META_GROUP } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { StatusError } from '../../errors/index.js';
import { allow, patchOf, startWebhookServer, type Review, type WebhookServer } from '../../../test/helpers/webhook-server.js';
import type { AdmissionDeps, AdmissionPlugin, AdmissionRequest } from '../types.js';
import { closeWebhookConnections, mutatingWebhookPlugin, validatingWebhookPlugin } from './index.js';

after(() => closeWebhookConnections());

/** An object reader over a fixed set of objects, keyed `group/resource/namespace/name`. */
function depsWith(objects: Record<string, ApiObject[]>): AdmissionDeps & { logs: string[] } {
  const logs: string[] = [];
  const all = (group: string, resource: string) => objects[`${group}/${resource}`] ?? [];
  return {
    logs,
    objects: {
      get: async (g, r, ns, name) => all(g, r).find((o) => o.metadata?.name === name && (ns === undefined || (o.metadata?.namespace ?? '') === ns)),
      list: async (g, r) => all(g, r),
    },
    equivalentResources: (r) => (r.group === 'apps' && r.resource === 'deployments' ? [r, { group: 'apps', version: 'v1beta1', resource: 'deployments' }] : [r]),
    kindOf: (r) => ({ group: r.group, version: r.version, kind: r.resource === 'deployments' ? 'Deployment' : 'Pod' }),
    // A stand-in conversion that only relabels the version, so a test can see which version was sent.
    convertObject: (o, _from, to) => ({ ...structuredClone(o), apiVersion: `${to.group}/${to.version}` }),
    log: (m) => logs.push(m),
  };
}

let seq = 0;
function request(extra: Partial<AdmissionRequest> = {}): AdmissionRequest & { warnings: string[]; annotations: Record<string, string> } {
  const warnings: string[] = [];
  const annotations: Record<string, string> = {};
  const pods = { group: '', version: 'v1', resource: 'pods' };
  const podKind = { group: '', version: 'v1', kind: 'Pod' };
  return {
    uid: `uid-${++seq}`,
    operation: 'CREATE',
    kind: podKind,
    resource: pods,
    subResource: '',
    requestKind: podKind,
    requestResource: pods,
    requestSubResource: '',
    namespace: 'team',
    name: 'p1',
    object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p1', namespace: 'team', labels: { app: 'web' } }, spec: { containers: [] } },
    oldObject: undefined,
    options: { fieldManager: 'test' },
    dryRun: false,
    user: { username: 'alice', uid: 'u-1', groups: ['devs'], extra: { scopes: ['a'] } },
    warnings,
    annotations,
    warn: (m) => warnings.push(m),
    annotate: (k, v) => {
      annotations[k] = v;
    },
    ...extra,
  };
}

function configuration(kind: 'Mutating' | 'Validating', name: string, hooks: Record<string, unknown>[]): ApiObject {
  return { kind: `${kind}WebhookConfiguration`, metadata: { name, uid: name, resourceVersion: '1' }, webhooks: hooks };
}

function hook(server: WebhookServer, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'check.example.com',
    clientConfig: { url: `${server.url}/check`, caBundle: server.caBundle },
    rules: [{ operations: ['CREATE', 'UPDATE', 'DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: '*' }],
    sideEffects: 'None',
    failurePolicy: 'Fail',
    matchPolicy: 'Equivalent',
    timeoutSeconds: 10,
    admissionReviewVersions: ['v1'],
    namespaceSelector: {},
    objectSelector: {},
    ...extra,
  };
}

const NS = { '/namespaces': [{ metadata: { name: 'team', labels: { env: 'prod' } } }] };

function plugins(mutating: ApiObject[], validating: ApiObject[], extra: Record<string, ApiObject[]> = {}) {
  const deps = depsWith({
    ...NS,
    ...extra,
    [`${ADMISSIONREGISTRATION_GROUP}/mutatingwebhookconfigurations`]: mutating,
    [`${ADMISSIONREGISTRATION_GROUP}/validatingwebhookconfigurations`]: validating,
  });
  return { deps, mutating: mutatingWebhookPlugin(deps, undefined), validating: validatingWebhookPlugin(deps, undefined) };
}

async function rejection(p: Promise<void> | void | undefined): Promise<StatusError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof StatusError, `expected a StatusError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected the request to be rejected');
}

test('spec 2.11: the AdmissionReview carries every request field, with options kind and userInfo', async () => {
  const server = await startWebhookServer((r) => allow(r));
  try {
    const { validating } = plugins([], [configuration('Validating', 'c', [hook(server)])]);
    const req = request();
    await validating.validate!(req);
    assert.equal(server.reviews.length, 1);
    const review = server.reviews[0] as Review;
    assert.equal(review.apiVersion, `${ADMISSION_GROUP}/v1`);
    assert.equal(review.kind, 'AdmissionReview');
    const uid = (review.request as { uid: string }).uid;
    assert.match(uid, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'a fresh UUID');
    assert.deepEqual(review.request, {
      uid,
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      requestKind: { group: '', version: 'v1', kind: 'Pod' },
      requestResource: { group: '', version: 'v1', resource: 'pods' },
      name: 'p1',
      namespace: 'team',
      operation: 'CREATE',
      userInfo: { username: 'alice', uid: 'u-1', groups: ['devs'], extra: { scopes: ['a'] } },
      object: req.object,
      oldObject: null,
      dryRun: false,
      options: { kind: 'CreateOptions', apiVersion: `${META_GROUP}/v1`, fieldManager: 'test' },
    });
    assert.equal(server.paths[0], '/check?timeout=10s', 'the timeout is passed as the reference passes it');
  } finally {
    await server.close();
  }
});

test('spec 2.11: a JSONPatch answer is applied, warnings and prefixed audit annotations are recorded', async () => {
  const server = await startWebhookServer((r) =>
    allow(r, { patchType: 'JSONPatch', patch: patchOf([{ op: 'add', path: '/metadata/labels/seen', value: 'yes' }]), warnings: ['look out'], auditAnnotations: { k: 'v' } }),
  );
  try {
    const { mutating } = plugins([configuration('Mutating', 'c', [hook(server)])], []);
    const req = request();
    await mutating.admit!(req);
    assert.deepEqual(req.object?.metadata?.labels, { app: 'web', seen: 'yes' });
    assert.deepEqual(req.warnings, ['look out']);
    assert.equal(req.annotations['check.example.com/k'], 'v');
  } finally {
    await server.close();
  }
});

test('reference behaviour: a denial returns the webhook code and message, 403 by default', async () => {
  let status: Record<string, unknown> | undefined = { code: 409, message: 'no thanks', reason: 'Conflict' };
  const server = await startWebhookServer((r) => ({ response: { uid: r.request.uid, allowed: false, ...(status ? { status } : {}) } }));
  try {
    const { validating } = plugins([], [configuration('Validating', 'c', [hook(server)])]);
    let e = await rejection(validating.validate!(request()));
    assert.equal(e.code, 409);
    assert.equal(e.message, 'admission webhook "check.example.com" denied the request: no thanks');
    status = undefined;
    e = await rejection(validating.validate!(request()));
    assert.equal(e.code, 403);
    assert.equal(e.message, 'admission webhook "check.example.com" denied the request without explanation');
  } finally {
    await server.close();
  }
});

test('reference behaviour: hostile webhooks are call errors settled by failurePolicy, naming the webhook', async () => {
  const modes: Record<string, (r: Review) => unknown> = {
    garbage: () => ({ raw: 'not json' }),
    wronguid: () => ({ response: { uid: 'other', allowed: true } }),
    status500: () => ({ raw: '{}', status: 500 }),
    huge: () => ({ raw: `{"x":"${'a'.repeat(4 * 1024 * 1024)}"}` }),
    patchtype: (r) => ({ response: { uid: r.request.uid, allowed: true, patchType: 'MergePatch', patch: patchOf([]) } }),
    hang: () => ({ hang: true }),
  };
  let mode = 'garbage';
  const server = await startWebhookServer((r) => (modes[mode] as (r: Review) => any)(r));
  const wrongCA = await startWebhookServer((r) => allow(r));
  try {
    for (const m of Object.keys(modes)) {
      mode = m;
      const timeout = m === 'hang' ? { timeoutSeconds: 1 } : {};
      const failing = plugins([configuration('Mutating', 'c', [hook(server, timeout)])], []);
      const e = await rejection(failing.mutating.admit!(request()));
      assert.equal(e.code, 500, m);
      assert.match(e.message, /^Internal error occurred: failed calling webhook "check\.example\.com": /, m);
      const ignoring = plugins([configuration('Mutating', 'c', [hook(server, { ...timeout, failurePolicy: 'Ignore' })])], []);
      const req = request();
      const before = structuredClone(req.object);
      await ignoring.mutating.admit!(req);
      assert.deepEqual(req.object, before, `${m}: nothing changed`);
      assert.ok(Object.values(req.annotations).includes('check.example.com'), `${m}: failed-open annotation`);
    }
    const tls = plugins([], [configuration('Validating', 'c', [hook(wrongCA, { clientConfig: { url: `${wrongCA.url}/x`, caBundle: server.caBundle } })])]);
    const e = await rejection(tls.validating.validate!(request()));
    assert.equal(e.code, 500);
    assert.match(e.message, /failed calling webhook "check\.example\.com": failed to call webhook: Post "https:\/\/127\.0\.0\.1:\d+\/x\?timeout=10s"/);
  } finally {
    await server.close();
    await wrongCA.close();
  }
});

test('reference behaviour: rules, selectors, matchPolicy and match conditions decide which webhooks are called', async () => {
  const server = await startWebhookServer((r) => allow(r));
  try {
    const cases: [string, Record<string, unknown>, Partial<AdmissionRequest>, boolean][] = [
      ['rules match', {}, {}, true],
      ['other operation', { rules: [{ operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] }, {}, false],
      ['namespace selector matches', { namespaceSelector: { matchLabels: { env: 'prod' } } }, {}, true],
      ['namespace selector excludes', { namespaceSelector: { matchLabels: { env: 'dev' } } }, {}, false],
      ['object selector matches', { objectSelector: { matchLabels: { app: 'web' } } }, {}, true],
      ['object selector excludes', { objectSelector: { matchLabels: { app: 'db' } } }, {}, false],
      ['condition true', { matchConditions: [{ name: 'a', expression: 'object.metadata.name == "p1"' }] }, {}, true],
      ['condition false', { matchConditions: [{ name: 'a', expression: 'request.userInfo.username == "bob"' }] }, {}, false],
    ];
    for (const [name, extra, reqExtra, called] of cases) {
      server.reviews.length = 0;
      const { validating } = plugins([], [configuration('Validating', 'c', [hook(server, extra)])]);
      await validating.validate!(request(reqExtra));
      assert.equal(server.reviews.length, called ? 1 : 0, name);
    }
  } finally {
    await server.close();
  }
});

test('reference behaviour: matchPolicy Equivalent calls a webhook registered for another version with that version in kind/resource', async () => {
  const server = await startWebhookServer((r) => allow(r));
  try {
    const rules = [{ operations: ['CREATE'], apiGroups: ['apps'], apiVersions: ['v1beta1'], resources: ['deployments'] }];
    const deployments = { group: 'apps', version: 'v1', resource: 'deployments' };
    const kind = { group: 'apps', version: 'v1', kind: 'Deployment' };
    const req = () => request({ resource: deployments, requestResource: deployments, kind, requestKind: kind });
    const exact = plugins([], [configuration('Validating', 'c', [hook(server, { rules, matchPolicy: 'Exact' })])]);
    await exact.validating.validate!(req());
    assert.equal(server.reviews.length, 0, 'Exact does not call it');
    const equivalent = plugins([], [configuration('Validating', 'c', [hook(server, { rules })])]);
    await equivalent.validating.validate!(req());
    assert.equal(server.reviews.length, 1);
    const r = (server.reviews[0] as Review).request;
    assert.deepEqual(r.resource, { group: 'apps', version: 'v1beta1', resource: 'deployments' });
    assert.deepEqual(r.kind, { group: 'apps', version: 'v1beta1', kind: 'Deployment' });
    assert.deepEqual(r.requestResource, deployments);
    assert.equal(r.object.apiVersion, 'apps/v1beta1', 'the object is sent in the webhook\'s version');
  } finally {
    await server.close();
  }
});

test('reference behaviour: matchPolicy Equivalent without a conversion between the versions fails the request instead of sending another version', async () => {
  const server = await startWebhookServer((r) => allow(r));
  try {
    const rules = [{ operations: ['CREATE'], apiGroups: ['apps'], apiVersions: ['v1beta1'], resources: ['deployments'] }];
    const deployments = { group: 'apps', version: 'v1', resource: 'deployments' };
    const kind = { group: 'apps', version: 'v1', kind: 'Deployment' };
    const p = plugins([], [configuration('Validating', 'c', [hook(server, { rules })])]);
    delete p.deps.convertObject;
    const e = await rejection(p.validating.validate!(request({ resource: deployments, requestResource: deployments, kind, requestKind: kind })));
    assert.equal(e.code, 500);
    assert.match(e.message, /unable to convert Deployment from apps\/v1 to apps\/v1beta1: no conversion between these versions/);
    assert.equal(server.reviews.length, 0);
  } finally {
    await server.close();
  }
});

test('spec 7: a dry run never calls a webhook with side effects; NoneOnDryRun is called with dryRun true', async () => {
  const server = await startWebhookServer((r) => allow(r));
  try {
    const unsafe = plugins([], [configuration('Validating', 'c', [hook(server, { sideEffects: 'Some' })])]);
    const e = await rejection(unsafe.validating.validate!(request({ dryRun: true })));
    assert.equal(e.code, 400);
    assert.equal(e.message, 'admission webhook "check.example.com" does not support dry run');
    assert.equal(server.reviews.length, 0);
    const safe = plugins([], [configuration('Validating', 'c', [hook(server, { sideEffects: 'NoneOnDryRun' })])]);
    await safe.validating.validate!(request({ dryRun: true }));
    assert.equal((server.reviews[0] as Review).request.dryRun, true);
  } finally {
    await server.close();
  }
});

test('reference behaviour: a webhook behind a Service is reached at its endpoint and verified by the service DNS name', async () => {
  const server = await startWebhookServer((r) => allow(r), ['hooks.system.svc']);
  try {
    const service = { metadata: { name: 'hooks', namespace: 'system' }, spec: { type: 'ClusterIP', clusterIP: '10.0.0.9', ports: [{ name: 'https', port: 443 }] } };
    const endpoints = { metadata: { name: 'hooks', namespace: 'system' }, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: server.port }] }] };
    const cc = { service: { namespace: 'system', name: 'hooks', path: '/validate', port: 443 }, caBundle: server.caBundle };
    const { validating } = plugins([], [configuration('Validating', 'c', [hook(server, { clientConfig: cc })])], { '/services': [service], '/endpoints': [endpoints] });
    await validating.validate!(request());
    assert.equal(server.paths[0], '/validate?timeout=10s');
    const missing = plugins([], [configuration('Validating', 'c', [hook(server, { clientConfig: { ...cc, service: { ...cc.service, name: 'gone' } } })])]);
    const e = await rejection(missing.validating.validate!(request()));
    assert.match(e.message, /failed calling webhook "check\.example\.com": failed to call webhook: .*service "gone" not found/);
  } finally {
    await server.close();
  }
});

/** The chain's reinvocation step, as the seam describes it: one more mutating pass when a plugin asks. */
async function mutatingStage(plugins: AdmissionPlugin[], req: AdmissionRequest): Promise<void> {
  for (const p of plugins) await p.admit?.(req);
  if (plugins.some((p) => p.wantsReinvocation?.(req))) for (const p of plugins) await p.admit?.(req);
}

test('reference behaviour: reinvocationPolicy IfNeeded calls a webhook again once when a later one changed the object', async () => {
  const first = await startWebhookServer((r) => allow(r));
  const second = await startWebhookServer((r) =>
    r.request.object.metadata.labels.second ? allow(r) : allow(r, { patchType: 'JSONPatch', patch: patchOf([{ op: 'add', path: '/metadata/labels/second', value: '1' }]) }),
  );
  try {
    const hooks = (policy: string) => [
      hook(first, { name: 'a.example.com', reinvocationPolicy: policy }),
      hook(second, { name: 'b.example.com', reinvocationPolicy: 'Never' }),
    ];
    const never = plugins([configuration('Mutating', 'c', hooks('Never'))], []);
    await mutatingStage([never.mutating], request());
    assert.deepEqual([first.reviews.length, second.reviews.length], [1, 1]);
    first.reviews.length = 0;
    second.reviews.length = 0;
    const ifNeeded = plugins([configuration('Mutating', 'c', hooks('IfNeeded'))], []);
    const req = request();
    await mutatingStage([ifNeeded.mutating], req);
    assert.deepEqual([first.reviews.length, second.reviews.length], [2, 1], 'only the IfNeeded webhook runs again');
    assert.equal((first.reviews[1] as Review).request.object.metadata.labels.second, '1', 'it sees the later change');
  } finally {
    await first.close();
    await second.close();
  }
});

test('reference behaviour: every webhook call carries a uid of its own; validating webhooks are sent the same review otherwise', async () => {
  const server = await startWebhookServer((r) => allow(r));
  try {
    const second = { ...hook(server), name: 'second.example.com' };
    const { mutating, validating } = plugins([configuration('Mutating', 'm', [hook(server)])], [configuration('Validating', 'v', [hook(server), second])]);
    const req = request();
    await mutating.admit!(req);
    await validating.validate!(req);
    assert.equal(server.reviews.length, 3);
    const uids = server.reviews.map((r) => r.request.uid as string);
    assert.equal(new Set(uids).size, 3, 'three calls, three uids');
    assert.ok(!uids.includes(req.uid), 'not the request uid');
    const withoutUid = server.reviews.map((r) => ({ ...r, request: { ...r.request, uid: undefined } }));
    assert.deepEqual(withoutUid[1], withoutUid[2]);
    assert.deepEqual(withoutUid[0], withoutUid[1], 'the mutating webhook saw the same object (it did not patch)');
  } finally {
    await server.close();
  }
});
