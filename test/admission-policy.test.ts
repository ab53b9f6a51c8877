/**
 * ValidatingAdmissionPolicy through a whole server (issue 15): policies and bindings created through the
 * API like a user would, then ConfigMap writes that they allow, deny or warn about.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMISSIONREGISTRATION_GROUP } from '../src/api/naming.js';
import { startServer, type RunningServer } from '../src/index.js';
import { client, type Response } from './helpers/client.js';

const POLICIES = `/apis/${ADMISSIONREGISTRATION_GROUP}/v1/validatingadmissionpolicies`;
const BINDINGS = `/apis/${ADMISSIONREGISTRATION_GROUP}/v1/validatingadmissionpolicybindings`;
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

const configMap = (name: string, testCase: string, data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { 'policy-test': testCase } }, data });

function policy(name: string, spec: Record<string, unknown>) {
  return {
    metadata: { name },
    spec: {
      matchConstraints: { resourceRules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] },
      ...spec,
    },
  };
}

/** A binding narrowed to ConfigMaps labelled with its own test case, so the cases do not see each other. */
function binding(name: string, policyName: string, actions: string[], extra: Record<string, unknown> = {}) {
  return { metadata: { name }, spec: { policyName, validationActions: actions, matchResources: { objectSelector: { matchLabels: { 'policy-test': name } } }, ...extra } };
}

describe('ValidatingAdmissionPolicy through the server (issue 15)', () => {
  let server: RunningServer;
  let call: ReturnType<typeof client>;

  before(async () => {
    server = await startServer({ port: 0, storage: { type: 'memory' } });
    call = client(server);
  });
  after(async () => {
    await server.close();
  });

  async function create(path: string, body: unknown): Promise<void> {
    const r = await call('POST', path, { body });
    assert.equal(r.status, 201, r.text);
  }

  /** Policies reach admission through the watch cache: retries new names until the effect shows. */
  async function until(testCase: string, data: Record<string, string>, done: (r: Response) => boolean): Promise<{ r: Response; name: string }> {
    const deadline = Date.now() + 3000;
    for (let n = 0; ; n++) {
      const name = `${testCase}-${n}`;
      const r = await call('POST', CONFIGMAPS, { body: configMap(name, testCase, data) });
      if (done(r) || Date.now() > deadline) return { r, name };
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('reference behaviour: Deny refuses with the reason\'s code and the reference message, stores nothing, and lets valid objects through', async () => {
    await create(POLICIES, policy('no-secret-key', { validations: [{ expression: "!('password' in object.data)", message: 'no passwords in config maps', reason: 'Forbidden' }] }));
    await create(BINDINGS, binding('deny', 'no-secret-key', ['Deny']));
    const { r, name } = await until('deny', { password: 'x' }, (x) => x.status === 403);
    assert.equal(r.status, 403);
    assert.equal(r.json.reason, 'Forbidden');
    assert.equal(r.json.message, `configmaps "${name}" is forbidden: ValidatingAdmissionPolicy 'no-secret-key' with binding 'deny' denied request: no passwords in config maps`);
    assert.equal((await call('GET', `${CONFIGMAPS}/${name}`)).status, 404);
    assert.equal((await call('POST', CONFIGMAPS, { body: configMap('deny-ok', 'deny', { user: 'x' }) })).status, 201);
  });

  it('reference behaviour, spec 8: Warn admits the object and returns the failure as a Warning header; Audit alone admits it', async () => {
    await create(BINDINGS, binding('warn', 'no-secret-key', ['Warn', 'Audit']));
    const { r } = await until('warn', { password: 'x' }, (x) => String(x.headers.warning ?? '').includes('Validation failed'));
    assert.equal(r.status, 201);
    assert.match(String(r.headers.warning), /^299 - "Validation failed for ValidatingAdmissionPolicy 'no-secret-key' with binding 'warn': no passwords in config maps"$/);
    await create(BINDINGS, binding('audit', 'no-secret-key', ['Audit']));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const audited = await call('POST', CONFIGMAPS, { body: configMap('audit-0', 'audit', { password: 'x' }) });
    assert.equal(audited.status, 201);
    assert.equal(audited.headers.warning, undefined);
  });

  it('reference behaviour: params from the binding\'s paramRef feed the validation and its messageExpression', async () => {
    await create(CONFIGMAPS, { metadata: { name: 'limits' }, data: { maxKeys: '2' } });
    await create(
      POLICIES,
      policy('max-keys', {
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        variables: [{ name: 'max', expression: 'int(params.data.maxKeys)' }],
        validations: [{ expression: 'size(object.data) <= variables.max', messageExpression: "'at most ' + string(variables.max) + ' keys, got ' + string(size(object.data))" }],
      }),
    );
    await create(BINDINGS, binding('params', 'max-keys', ['Deny'], { paramRef: { name: 'limits', namespace: 'default', parameterNotFoundAction: 'Deny' } }));
    const { r } = await until('params', { a: '1', b: '2', c: '3' }, (x) => x.status === 422);
    assert.equal(r.status, 422);
    assert.equal(r.json.reason, 'Invalid');
    assert.match(r.json.message, /ValidatingAdmissionPolicy 'max-keys' with binding 'params' denied request: at most 2 keys, got 3$/);
    assert.equal((await call('POST', CONFIGMAPS, { body: configMap('params-ok', 'params', { a: '1' }) })).status, 201);
  });

  it('reference behaviour: a runtime error denies under failurePolicy Fail and is skipped under Ignore', async () => {
    const spec = { validations: [{ expression: "object.data.mode == 'strict'" }] };
    await create(POLICIES, policy('mode-fail', { ...spec, failurePolicy: 'Fail' }));
    await create(POLICIES, policy('mode-ignore', { ...spec, failurePolicy: 'Ignore' }));
    await create(BINDINGS, binding('fail', 'mode-fail', ['Deny']));
    await create(BINDINGS, binding('ignore', 'mode-ignore', ['Deny']));
    const { r } = await until('fail', { other: 'x' }, (x) => x.status === 422);
    assert.equal(r.status, 422);
    assert.match(r.json.message, /binding 'fail' denied request: expression 'object.data.mode == 'strict'' resulted in error: /);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal((await call('POST', CONFIGMAPS, { body: configMap('ignore-0', 'ignore', { other: 'x' }) })).status, 201);
    assert.equal((await call('POST', CONFIGMAPS, { body: configMap('ignore-1', 'ignore', { mode: 'loose' }) })).status, 422);
  });

  it('reference behaviour: matchConditions decide whether the policy applies', async () => {
    await create(
      POLICIES,
      policy('only-prod', {
        matchConditions: [{ name: 'is-prod', expression: "has(object.data.env) && object.data.env == 'prod'" }],
        validations: [{ expression: "has(object.data.owner)", message: 'prod config maps need an owner' }],
      }),
    );
    await create(BINDINGS, binding('conditions', 'only-prod', ['Deny']));
    const { r } = await until('conditions', { env: 'prod' }, (x) => x.status === 422);
    assert.match(r.json.message, /prod config maps need an owner$/);
    assert.equal((await call('POST', CONFIGMAPS, { body: configMap('conditions-dev', 'conditions', { env: 'dev' }) })).status, 201);
  });

  it('reference behaviour: a binding\'s matchResources namespaceSelector narrows where the policy applies', async () => {
    await create('/api/v1/namespaces', { metadata: { name: 'strict-ns', labels: { strict: 'yes' } } });
    await create(BINDINGS, { metadata: { name: 'by-namespace' }, spec: { policyName: 'no-secret-key', validationActions: ['Deny'], matchResources: { namespaceSelector: { matchLabels: { strict: 'yes' } } } } });
    const strict = '/api/v1/namespaces/strict-ns/configmaps';
    const deadline = Date.now() + 3000;
    let r: Response;
    for (let n = 0; ; n++) {
      r = await call('POST', strict, { body: { metadata: { name: `s-${n}` }, data: { password: 'x' } } });
      if (r.status === 403 || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(r.status, 403);
    assert.match(r.json.message, /binding 'by-namespace' denied request/);
    assert.equal((await call('POST', CONFIGMAPS, { body: { metadata: { name: 'unlabelled-ns' }, data: { password: 'x' } } })).status, 201);
  });

  it('reference behaviour: a policy whose CEL does not compile or names an unknown variable is 422 naming the field', async () => {
    const r = await call('POST', POLICIES, { body: policy('broken', { validations: [{ expression: 'object.data.(' }, { expression: 'variables.nope' }] }) });
    assert.equal(r.status, 422);
    const fields = (r.json.details.causes as { field: string }[]).map((c) => c.field);
    assert.deepEqual(fields, ['spec.validations[0].expression', 'spec.validations[1].expression']);
  });
});
