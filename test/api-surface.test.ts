/**
 * Spec 1.4, 3.2, 4.1, 9: the served discovery matches the reference data: every resource of every
 * group/version served by default is there with its scope, kind, verbs and subresources, and nothing else.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GROUP_SUFFIX } from '../src/api/naming.js';
import { RESOURCES } from '../src/generated/index.js';
import { startServer, type RunningServer } from '../src/index.js';
import { defaultVersionEnabled } from '../src/registry/resources/versions.js';
import { client } from './helpers/client.js';

/** Custom resource definitions come with their own machinery (a later issue). */
const LATER = new Set([`apiextensions.${GROUP_SUFFIX}`]);

describe('served API surface against the reference data (spec 3.2, 4.1, 9)', () => {
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  before(async () => {
    server = await startServer({ port: 0, storage: { type: 'memory' } });
    call = client(server);
  });
  after(() => server.close());

  const discoveryPath = (group: string, version: string) => (group === '' ? `/api/${version}` : `/apis/${group}/${version}`);

  it('spec 4.1: every resource of every default-on group/version is served with its verbs and subresources', async () => {
    const missing: string[] = [];
    const byGV = new Map<string, typeof RESOURCES>();
    for (const r of RESOURCES) {
      if (LATER.has(r.group) || !defaultVersionEnabled(r.group, r.version)) continue;
      const k = discoveryPath(r.group, r.version);
      byGV.set(k, [...(byGV.get(k) ?? []), r]);
    }
    assert.ok(byGV.size >= 20, 'the reference data names the default-on group/versions');
    for (const [path, resources] of byGV) {
      const res = await call('GET', path);
      assert.equal(res.status, 200, path);
      const served = new Map<string, { kind: string; namespaced: boolean; verbs: string[]; group?: string; version?: string }>(
        res.json.resources.map((x: { name: string }) => [x.name, x]),
      );
      for (const r of resources) {
        const entry = served.get(r.plural);
        if (!entry) {
          missing.push(`${path} ${r.plural}`);
          continue;
        }
        assert.deepEqual([entry.kind, entry.namespaced, [...entry.verbs].sort()], [r.kind, r.namespaced, r.verbs], `${path} ${r.plural}`);
        for (const sub of r.subresources) {
          const s = served.get(`${r.plural}/${sub.name}`);
          assert.ok(s, `${path} ${r.plural}/${sub.name}`);
          assert.deepEqual([s.kind, [...s.verbs].sort()], [sub.kind, [...sub.verbs].sort()], `${path} ${r.plural}/${sub.name}`);
          if (sub.group !== r.group || sub.version !== r.version) assert.deepEqual([s.group, s.version], [sub.group, sub.version]);
        }
      }
      assert.equal(served.size, resources.reduce((n, r) => n + 1 + r.subresources.length, 0), `${path} serves nothing the reference does not`);
    }
    assert.deepEqual(missing, []);
  });

  it('spec 3.2: alpha versions and betas introduced after 1.22 are not served by default', async () => {
    const groups = (await call('GET', '/apis')).json.groups as { name: string; versions: { version: string }[] }[];
    const served = groups.flatMap((g) => g.versions.map((v) => `${g.name}/${v.version}`));
    for (const gv of served) {
      const [group, version] = [gv.slice(0, gv.lastIndexOf('/')), gv.slice(gv.lastIndexOf('/') + 1)];
      assert.ok(defaultVersionEnabled(group, version), `${gv} is served although it is off by default`);
    }
    assert.ok(served.includes(`flowcontrol.apiserver.${GROUP_SUFFIX}/v1beta3`), 'the reference enables flowcontrol v1beta3 by default');
    assert.ok(!served.includes(`resource.${GROUP_SUFFIX}/v1alpha3`));
    assert.ok(!served.includes(`networking.${GROUP_SUFFIX}/v1beta1`));
    assert.equal((await call('GET', `/apis/resource.${GROUP_SUFFIX}/v1alpha3/deviceclasses`)).status, 404);
  });
});

describe('create-only resources follow the served versions (spec 3.2, 9.6)', () => {
  it('a review in a removed version, or in a version turned off, is 404 and answers nothing', async () => {
    const server = await startServer({ port: 0, storage: { type: 'memory' }, runtimeConfig: `authorization.${GROUP_SUFFIX}/v1=false` });
    try {
      const call = client(server);
      const body = { kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'get', resource: 'pods' } } };
      const off = await call('POST', `/apis/authorization.${GROUP_SUFFIX}/v1/selfsubjectaccessreviews`, { body: { apiVersion: `authorization.${GROUP_SUFFIX}/v1`, ...body } });
      assert.equal(off.status, 404, off.text);
      const removed = await call('POST', `/apis/authorization.${GROUP_SUFFIX}/v1beta1/selfsubjectaccessreviews`, { body: { apiVersion: `authorization.${GROUP_SUFFIX}/v1beta1`, ...body } });
      assert.equal(removed.status, 404, removed.text);
      const authn = await call('POST', `/apis/authentication.${GROUP_SUFFIX}/v1/selfsubjectreviews`, { body: { apiVersion: `authentication.${GROUP_SUFFIX}/v1`, kind: 'SelfSubjectReview' } });
      assert.equal(authn.status, 201, 'a group left on still answers');
    } finally {
      await server.close();
    }
  });
});
