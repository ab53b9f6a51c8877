import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StatusError } from '../../errors/index.js';
import { admissionPluginContract, admissionRequest, fixedObjects } from '../testing/contract.js';
import type { AdmissionDeps } from '../types.js';
import { alwaysAdmitPlugin, alwaysDenyPlugin } from './always.js';
import { PluginConfigurationError } from './common.js';

const deps: AdmissionDeps = { objects: fixedObjects({}), equivalentResources: (r) => [r], kindOf: () => undefined, log: () => undefined };
const cm = () => admissionRequest({ operation: 'CREATE', name: 'x', object: { metadata: { name: 'x' } } });

admissionPluginContract('AlwaysAdmit', { make: () => alwaysAdmitPlugin(deps, undefined), cases: [{ title: 'a create', request: cm }] });
admissionPluginContract('AlwaysDeny', { make: () => alwaysDenyPlugin(deps, undefined), cases: [{ title: 'a create', request: cm }] });

test('reference behaviour (AlwaysAdmit, AlwaysDeny): one takes part in nothing, the other refuses every operation with 403', async () => {
  const admit = alwaysAdmitPlugin(deps, undefined);
  assert.deepEqual((['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] as const).map((op) => admit.handles(op)), [false, false, false, false]);
  const deny = alwaysDenyPlugin(deps, undefined);
  for (const op of ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] as const) {
    assert.equal(deny.handles(op), true);
    assert.throws(() => deny.admit!(admissionRequest({ operation: op, name: 'x' })), (e: unknown) => e instanceof StatusError && e.code === 403 && e.message === 'configmaps "x" is forbidden: admission control is denying all modifications');
  }
});

test('spec 2.12: a plugin that takes no configuration refuses one at start-up', () => {
  assert.throws(() => alwaysDenyPlugin(deps, { anything: 1 }), PluginConfigurationError);
  assert.throws(() => alwaysAdmitPlugin(deps, {}), /AlwaysAdmit takes no configuration/);
});
