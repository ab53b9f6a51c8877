/**
 * ValidatingAdmissionPolicy and the version it matched (issues 15, 18): a policy whose matchConstraints
 * name another served version of the resource (matchPolicy Equivalent, the default) evaluates the object
 * converted to that version, as the reference does; `request.kind`/`request.resource` are the matched
 * version's and `request.requestKind`/`requestResource` the request's. Checked with a built-in type
 * served in two versions (HorizontalPodAutoscaler autoscaling/v1 and v2) and with custom resources whose
 * CRDs convert with strategy None and through a conversion webhook (a real HTTPS server started here).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ADMISSIONREGISTRATION_GROUP, APIEXTENSIONS_GROUP } from '../src/api/naming.js';
import { startServer, type RunningServer } from '../src/index.js';
import { client, type Response } from './helpers/client.js';
import { twoVersionWidgetCrd, waitFor, webhookConversion } from './helpers/crd.js';
import { startWebhookServer, type Review, type WebhookServer } from './helpers/webhook-server.js';

const POLICIES = `/apis/${ADMISSIONREGISTRATION_GROUP}/v1/validatingadmissionpolicies`;
const BINDINGS = `/apis/${ADMISSIONREGISTRATION_GROUP}/v1/validatingadmissionpolicybindings`;
const HPAS = (v: string) => `/apis/autoscaling/${v}/namespaces/default/horizontalpodautoscalers`;
const NONE = 'vapnone.example.com';
const HOOKED = 'vaphook.example.com';
const WIDGETS = (g: string, v: string) => `/apis/${g}/${v}/namespaces/default/widgets`;

/** What each policy's message says about the request it judged: the versions it saw. */
const SEEN = "' seen as ' + object.apiVersion + '; kind ' + request.kind.version + ', resource ' + request.resource.version + '; requestKind ' + request.requestKind.version + ', requestResource ' + request.requestResource.version";

function policy(name: string, group: string, resource: string, version: string, expression: string, message: string, matchPolicy?: 'Exact') {
  const rule = { operations: ['CREATE'], apiGroups: [group], apiVersions: [version], resources: [resource] };
  return {
    metadata: { name },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: { resourceRules: [rule], ...(matchPolicy ? { matchPolicy } : {}) },
      validations: [{ expression, messageExpression: `${message} + ${SEEN}` }],
    },
  };
}

/** Each binding applies to objects labelled with its own name only, so the cases do not see each other. */
const binding = (name: string) => ({ metadata: { name }, spec: { policyName: name, validationActions: ['Deny'], matchResources: { objectSelector: { matchLabels: { 'vap-test': name } } } } });

const hpa = (name: string, testCase: string, cpu: number) => ({
  apiVersion: 'autoscaling/v1',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name, labels: { 'vap-test': testCase } },
  spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: cpu },
});


const widget = (g: string, name: string, testCase: string, replicas: number) => ({ apiVersion: `${g}/v1`, kind: 'Widget', metadata: { name, labels: { 'vap-test': testCase } }, spec: { replicas } });

describe('ValidatingAdmissionPolicy on another version of the resource', () => {
  let dir: string;
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  let hook: WebhookServer;
  let conversion: 'ok' | 'fail' = 'ok';

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-vap-versions-'));
    server = await startServer({ port: 0, dataDir: join(dir, 'data'), storage: { type: 'sqlite', path: join(dir, 'orch.db') } });
    call = client(server);
    hook = await startWebhookServer((r: Review) => {
      const { uid, desiredAPIVersion, objects } = r.request as { uid: string; desiredAPIVersion: string; objects: any[] };
      const convert = (o: any) => ({ ...o, apiVersion: desiredAPIVersion, spec: desiredAPIVersion.endsWith('/v2') ? { size: o.spec.replicas } : { replicas: o.spec.size } });
      const response = conversion === 'fail'
        ? { uid, convertedObjects: [], result: { status: 'Failure', message: 'no conversions on this day' } }
        : { uid, convertedObjects: objects.map(convert), result: { status: 'Success' } };
      return { raw: JSON.stringify({ apiVersion: r.apiVersion, kind: 'ConversionReview', response }) };
    });
    const crds = `/apis/${APIEXTENSIONS_GROUP}/v1/customresourcedefinitions`;
    assert.equal((await call('POST', crds, { body: twoVersionWidgetCrd(NONE, { strategy: 'None' }, 'replicas') })).status, 201);
    const webhook = webhookConversion(`${hook.url}/convert`, hook.caBundle);
    assert.equal((await call('POST', crds, { body: twoVersionWidgetCrd(HOOKED, webhook, 'size') })).status, 201);
    await waitFor('served', async () => (await call('GET', WIDGETS(NONE, 'v2'))).status === 200 && (await call('GET', WIDGETS(HOOKED, 'v2'))).status === 200);
  });
  after(async () => {
    await hook?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Creates a policy and its binding, then retries `attempt` with fresh names until the policy acts. */
  async function withPolicy(p: { metadata: { name: string } }, attempt: (name: string) => Promise<Response>, acted: (r: Response) => boolean): Promise<Response> {
    assert.equal((await call('POST', POLICIES, { body: p })).status, 201);
    assert.equal((await call('POST', BINDINGS, { body: binding(p.metadata.name) })).status, 201);
    let n = 0;
    let last!: Response;
    await waitFor(`policy ${p.metadata.name} in effect`, async () => acted((last = await attempt(`${p.metadata.name}-${n++}`))));
    return last;
  }

  it('reference behaviour: a policy for autoscaling/v2 judges a v1 HorizontalPodAutoscaler by its v2 form; the request keeps its own version', async () => {
    const metricsOk = "!has(object.spec.metrics) || object.spec.metrics.all(m, m.type != 'Resource' || m.resource.target.averageUtilization <= 80)";
    const message = "'cpu target ' + string(object.spec.metrics[0].resource.target.averageUtilization) + ' over 80'";
    const r = await withPolicy(policy('hpa-v2', 'autoscaling', 'horizontalpodautoscalers', 'v2', metricsOk, message), (name) => call('POST', HPAS('v1'), { body: hpa(name, 'hpa-v2', 90) }), (x) => x.status === 422);
    assert.equal(r.status, 422, r.text);
    assert.match(r.json.message, /denied request: cpu target 90 over 80 seen as autoscaling\/v2; kind v2, resource v2; requestKind v1, requestResource v1$/);
    assert.match(r.json.message, /^horizontalpodautoscalers\.autoscaling "hpa-v2-\d+" is forbidden: /, 'the denial names the resource as requested');
    const allowed = await call('POST', HPAS('v1'), { body: hpa('hpa-v2-fine', 'hpa-v2', 50) });
    assert.equal(allowed.status, 201, allowed.text);
    assert.equal(allowed.json.apiVersion, 'autoscaling/v1');
  });

  it('reference behaviour: matchPolicy Exact for autoscaling/v2 does not see a v1 request, and a v2 request is judged as it came', async () => {
    const p = policy('hpa-exact', 'autoscaling', 'horizontalpodautoscalers', 'v2', 'false', "'refused'", 'Exact');
    const v2 = (name: string) => ({ ...hpa(name, 'hpa-exact', 90), apiVersion: 'autoscaling/v2', spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 5 } });
    const r = await withPolicy(p, (name) => call('POST', HPAS('v2'), { body: v2(name) }), (x) => x.status === 422);
    assert.match(r.json.message, /denied request: refused seen as autoscaling\/v2; kind v2, resource v2; requestKind v2, requestResource v2$/);
    const v1 = await call('POST', HPAS('v1'), { body: hpa('hpa-exact-v1', 'hpa-exact', 90) });
    assert.equal(v1.status, 201, v1.text);
  });

  it('reference behaviour: a policy for v2 of a custom resource with conversion None sees a v1 object with apiVersion v2', async () => {
    const message = "'replicas ' + string(object.spec.replicas) + ' over 5'";
    const r = await withPolicy(policy('none-v2', NONE, 'widgets', 'v2', 'object.spec.replicas <= 5', message), (name) => call('POST', WIDGETS(NONE, 'v1'), { body: widget(NONE, name, 'none-v2', 9) }), (x) => x.status === 422);
    assert.match(r.json.message, new RegExp(`denied request: replicas 9 over 5 seen as ${NONE.replace(/\./g, '\\.')}/v2; kind v2, resource v2; requestKind v1, requestResource v1$`));
    assert.equal((await call('POST', WIDGETS(NONE, 'v1'), { body: widget(NONE, 'none-small', 'none-v2', 2) })).status, 201);
  });

  it('reference behaviour: a policy for v2 of a custom resource converted by its webhook reads the v2 field; a failed conversion is a 500 and stores nothing', async () => {
    const message = "'size ' + string(object.spec.size) + ' over 5'";
    const r = await withPolicy(policy('hook-v2', HOOKED, 'widgets', 'v2', 'object.spec.size <= 5', message), (name) => call('POST', WIDGETS(HOOKED, 'v1'), { body: widget(HOOKED, name, 'hook-v2', 9) }), (x) => x.status === 422);
    assert.match(r.json.message, new RegExp(`denied request: size 9 over 5 seen as ${HOOKED.replace(/\./g, '\\.')}/v2; kind v2, resource v2; requestKind v1, requestResource v1$`));
    assert.equal((await call('POST', WIDGETS(HOOKED, 'v1'), { body: widget(HOOKED, 'hook-small', 'hook-v2', 2) })).status, 201);
    conversion = 'fail';
    try {
      const failed = await call('POST', WIDGETS(HOOKED, 'v1'), { body: widget(HOOKED, 'hook-stranded', 'hook-v2', 2) });
      assert.equal(failed.status, 500, failed.text);
      assert.equal(failed.json.reason, 'InternalError');
      assert.match(failed.json.message, new RegExp(`^Internal error occurred: conversion webhook for ${HOOKED.replace(/\./g, '\\.')}/Widget failed: .*no conversions on this day`));
      assert.equal((await call('GET', `${WIDGETS(HOOKED, 'v1')}/hook-stranded`)).status, 404, 'nothing stored');
      const unbound = await call('POST', WIDGETS(HOOKED, 'v1'), { body: widget(HOOKED, 'hook-unbound', 'other', 2) });
      assert.equal(unbound.status, 201, `a v1 create no binding selects needs no conversion: ${unbound.text}`);
    } finally {
      conversion = 'ok';
    }
  });
});
