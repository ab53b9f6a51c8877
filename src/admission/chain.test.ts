import assert from 'node:assert/strict';
import { after, before, describe, it, test } from 'node:test';
import { StatusError } from '../errors/index.js';
import { startServer, type RunningServer } from '../index.js';
import { client } from '../../test/helpers/client.js';
import { AdmissionChain } from './chain.js';
import { admissionRequest } from './testing/contract.js';
import type { AdmissionOperation, AdmissionPlugin, AdmissionRequest } from './types.js';

/** A plugin that records its calls in `log` and optionally rejects or goes async. */
function recorder(name: string, log: string[], o: { ops?: AdmissionOperation[]; reject?: 'admit' | 'validate'; async?: boolean; mutate?: boolean } = {}): AdmissionPlugin {
  const step = (stage: 'admit' | 'validate') => (req: AdmissionRequest) => {
    const run = () => {
      log.push(`${name}.${stage}`);
      if (o.mutate && stage === 'admit' && req.object) req.object.metadata = { ...req.object.metadata, labels: { ...(req.object.metadata?.labels ?? {}), [name]: 'x' } };
      if (o.reject === stage) throw new StatusError(403, 'Forbidden', `${name} says no`);
    };
    return o.async ? Promise.resolve().then(run) : run();
  };
  return { name, handles: (op) => (o.ops ?? ['CREATE', 'UPDATE', 'DELETE', 'CONNECT']).includes(op), admit: step('admit'), validate: step('validate') };
}

const create = () => admissionRequest({ operation: 'CREATE', name: 'x', object: { metadata: { name: 'x' } } });

test('spec 1.6: mutating plugins run in order, then validating ones in order', async () => {
  const log: string[] = [];
  const chain = new AdmissionChain([recorder('a', log), recorder('b', log, { async: true }), recorder('c', log)]);
  const req = create();
  await chain.admit(req);
  await chain.validate(req);
  assert.deepEqual(log, ['a.admit', 'b.admit', 'c.admit', 'a.validate', 'b.validate', 'c.validate']);
});

test('spec 1.6: the first rejection ends the stage; later plugins are not called', async () => {
  for (const async of [false, true]) {
    const log: string[] = [];
    const chain = new AdmissionChain([recorder('a', log), recorder('b', log, { reject: 'admit', async }), recorder('c', log)]);
    await assert.rejects(async () => chain.admit(create()), /b says no/);
    assert.deepEqual(log, ['a.admit', 'b.admit'], `async: ${async}`);
  }
});

test('spec 1.6: a plugin is called only for the operations it handles; with none interested nothing is pending', () => {
  const log: string[] = [];
  const chain = new AdmissionChain([recorder('creates', log, { ops: ['CREATE'] }), recorder('deletes', log, { ops: ['DELETE'] })]);
  const req = admissionRequest({ operation: 'UPDATE', name: 'x', object: {} });
  assert.equal(chain.interested('UPDATE'), false);
  assert.equal(chain.admit(req), undefined);
  assert.equal(chain.validate(req), undefined);
  assert.equal(chain.admit(create()), undefined, 'synchronous plugins leave nothing pending');
  assert.deepEqual(log, ['creates.admit']);
});

test('reference behaviour: a plugin asking for reinvocation gets the mutating stage run once more, never a third time', async () => {
  const log: string[] = [];
  let asked = 0;
  const again: AdmissionPlugin = { ...recorder('hook', log), wantsReinvocation: () => (asked++, true) };
  const chain = new AdmissionChain([recorder('first', log, { mutate: true }), again]);
  await chain.admit(create());
  assert.deepEqual(log, ['first.admit', 'hook.admit', 'first.admit', 'hook.admit']);
  assert.equal(asked, 1);
});

describe('spec 1.6 admission through a whole server', () => {
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  before(async () => {
    server = await startServer({ port: 0, storage: { type: 'memory' }, enableAdmissionPlugins: ['AlwaysDeny'] });
    call = client(server);
  });
  after(() => server.close());

  const CM = '/api/v1/namespaces/default/configmaps';
  it('spec 1.6: a rejected create, update, patch or delete stores nothing and changes nothing', async () => {
    const created = await call('POST', CM, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'denied' } } });
    assert.equal(created.status, 403, created.text);
    assert.equal(created.json.message, 'configmaps "denied" is forbidden: admission control is denying all modifications');
    assert.equal((await call('GET', `${CM}/denied`)).status, 404);
    const dryRun = await call('POST', `${CM}?dryRun=All`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'denied' } } });
    assert.equal(dryRun.status, 403, 'a dry run is admitted too');
    // The default namespace's own object exists from start-up: updates and deletes of it are refused too.
    const ns = await call('GET', '/api/v1/namespaces/default');
    const patched = await call('PATCH', '/api/v1/namespaces/default', { raw: JSON.stringify({ metadata: { labels: { a: 'b' } } }), headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(patched.status, 403, patched.text);
    const deleted = await call('DELETE', '/api/v1/namespaces/default');
    assert.equal(deleted.status, 403, deleted.text);
    const after = await call('GET', '/api/v1/namespaces/default');
    assert.equal(after.json.metadata.resourceVersion, ns.json.metadata.resourceVersion);
  });
});
