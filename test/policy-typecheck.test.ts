/**
 * ValidatingAdmissionPolicy type checking through a whole server (issue 15): policies written through the
 * API get `status.typeChecking` and `status.observedGeneration` from the in-process status controller.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMISSIONREGISTRATION_GROUP } from '../src/api/naming.js';
import { startServer, type RunningServer } from '../src/index.js';
import { client } from './helpers/client.js';

const POLICIES = `/apis/${ADMISSIONREGISTRATION_GROUP}/v1/validatingadmissionpolicies`;

function deploymentPolicy(name: string, spec: Record<string, unknown>) {
  return {
    apiVersion: `${ADMISSIONREGISTRATION_GROUP}/v1`,
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: { matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] }] }, ...spec },
  };
}

describe('ValidatingAdmissionPolicy status.typeChecking through the server (issue 15)', () => {
  let server: RunningServer;
  let call: ReturnType<typeof client>;

  before(async () => {
    server = await startServer({ port: 0, storage: { type: 'memory' } });
    call = client(server);
  });
  after(async () => {
    await server.close();
  });

  /** The policy once its status answers generation `generation`. */
  async function checked(name: string, generation: number): Promise<any> {
    const deadline = Date.now() + 5000;
    for (;;) {
      const r = await call('GET', `${POLICIES}/${name}`);
      assert.equal(r.status, 200, r.text);
      if (r.json.status?.observedGeneration === generation && r.json.status?.typeChecking) return r.json;
      if (Date.now() > deadline) assert.fail(`status of ${name} never reached generation ${generation}: ${r.text}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('reference behaviour: a misspelt field gets a warning naming spec.validations[0].expression; a correct policy an empty result', async () => {
    const bad = await call('POST', POLICIES, { body: deploymentPolicy('replicas', { validations: [{ expression: 'object.spec.replicass > 1' }] }) });
    assert.equal(bad.status, 201, bad.text);
    const good = await call('POST', POLICIES, { body: deploymentPolicy('fine', { validations: [{ expression: 'object.spec.replicas > 1', messageExpression: '"replicas: " + string(object.spec.replicas)' }] }) });
    assert.equal(good.status, 201, good.text);

    const p = await checked('replicas', 1);
    assert.deepEqual(p.status.typeChecking.expressionWarnings, [
      { fieldRef: 'spec.validations[0].expression', warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replicass'\n | object.spec.replicass > 1\n | ...........^" },
    ]);
    const f = await checked('fine', 1);
    assert.deepEqual(f.status.typeChecking, {});
  });

  it('reference behaviour: params are typed from paramKind', async () => {
    const r = await call('POST', POLICIES, {
      body: deploymentPolicy('with-params', { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: 'object.spec.replicas <= params.data.max' }, { expression: 'object.spec.replicas <= int(params.data.max)' }] }),
    });
    assert.equal(r.status, 201, r.text);
    const p = await checked('with-params', 1);
    assert.deepEqual(
      p.status.typeChecking.expressionWarnings.map((w: { fieldRef: string; warning: string }) => [w.fieldRef, w.warning.split('\n')[0]]),
      [['spec.validations[0].expression', "apps/v1, Kind=Deployment: ERROR: <input>:1:22: found no matching overload for '_<=_' applied to '(int, string)'"]],
    );
  });

  it('reference behaviour: observedGeneration follows spec edits, and a checked policy is not written again', async () => {
    const first = await checked('replicas', 1);
    const fixed = { ...first, spec: { ...first.spec, validations: [{ expression: 'object.spec.replicas > 1' }] } };
    const u = await call('PUT', `${POLICIES}/replicas`, { body: fixed });
    assert.equal(u.status, 200, u.text);
    assert.equal(u.json.metadata.generation, 2);
    const p = await checked('replicas', 2);
    assert.deepEqual(p.status.typeChecking, {});
    // Settled: no further writes of its own.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const later = await call('GET', `${POLICIES}/replicas`);
    assert.equal(later.json.metadata.resourceVersion, p.metadata.resourceVersion);
    // A metadata-only edit keeps the generation, so the checked status stands.
    const labelled = await call('PUT', `${POLICIES}/replicas`, { body: { ...later.json, metadata: { ...later.json.metadata, labels: { a: 'b' } } } });
    assert.equal(labelled.status, 200, labelled.text);
    assert.equal(labelled.json.metadata.generation, 2);
    assert.equal(labelled.json.status.observedGeneration, 2);
  });
});
