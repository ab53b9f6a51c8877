import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RBAC_GROUP } from '../../api/naming.js';
import { buildClusterRole, buildRole, normaliseVerbs, parseResources, type ResolveResource } from './create-generators-rbac.js';

/** A discovery stand-in: short names and plurals of a few served resources. */
const SERVED: Record<string, { resource: string; group: string }> = {
  pods: { resource: 'pods', group: '' },
  po: { resource: 'pods', group: '' },
  'deploy.apps': { resource: 'deployments', group: 'apps' },
  'deployments.apps': { resource: 'deployments', group: 'apps' },
  roles: { resource: 'roles', group: RBAC_GROUP },
};
const resolve: ResolveResource = async (r) => SERVED[r.group ? `${r.resource}.${r.group}` : r.resource] ?? new Error(`the server doesn't have a resource type "${r.resource}"`);

describe('create role and clusterrole (reference behaviour)', () => {
  it('reference behaviour: verbs are deduplicated and * stands alone', () => {
    assert.deepEqual(normaliseVerbs(['get', 'list', 'get']), ['get', 'list']);
    assert.deepEqual(normaliseVerbs(['get', '*', 'list']), ['*']);
  });

  it('reference behaviour: resources parse as plural[.group][/subresource]; a bare * replaces the others', () => {
    assert.deepEqual(parseResources(['pods/log', 'deploy.apps']), [
      { resource: 'pods', group: '', subresource: 'log' },
      { resource: 'deploy', group: 'apps' },
    ]);
    assert.deepEqual(parseResources(['pods', '*', 'x']), [{ resource: '*', group: '' }]);
  });

  it('reference behaviour: one rule per group in sorted group order, short names resolved, names kept', async () => {
    const role = await buildRole('r', 'ns', { verb: ['get', 'list'], resource: ['deploy.apps', 'po', 'pods/log'], resourceName: ['a', 'a', 'b'] }, resolve, () => {});
    assert.deepEqual(role, {
      apiVersion: `${RBAC_GROUP}/v1`,
      kind: 'Role',
      metadata: { name: 'r', namespace: 'ns' },
      rules: [
        { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', 'pods/log'], resourceNames: ['a', 'b'] },
        { verbs: ['get', 'list'], apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['a', 'b'] },
      ],
    });
  });

  const refused: [string, Parameters<typeof buildRole>[2], RegExp][] = [
    ['no verb', { resource: ['pods'] }, /at least one verb/],
    ['no resource', { verb: ['get'] }, /at least one resource/],
    ['unknown resource', { verb: ['get'], resource: ['nothing'] }, /doesn't have a resource type "nothing"/],
    ['bind on pods', { verb: ['bind'], resource: ['pods'] }, /verb 'bind' cannot be used on 'pods' in group ''/],
    ['group without resource', { verb: ['get'], resource: ['.apps'] }, /needs a resource name/],
  ];
  for (const [title, flags, want] of refused) {
    it(`reference behaviour: create role refuses ${title}`, async () => {
      await assert.rejects(buildRole('r', undefined, flags, resolve, () => {}), want);
    });
  }

  it('reference behaviour: special verbs accept their resources, unknown ones too (impersonate users)', async () => {
    const role = await buildRole('r', undefined, { verb: ['bind'], resource: ['roles'] }, resolve, () => {});
    assert.deepEqual(role.rules, [{ verbs: ['bind'], apiGroups: [RBAC_GROUP], resources: ['roles'] }]);
    const imp = await buildRole('r', undefined, { verb: ['impersonate'], resource: ['users'] }, resolve, () => {});
    assert.deepEqual(imp.rules, [{ verbs: ['impersonate'], apiGroups: [''], resources: ['users'] }]);
  });

  it('reference behaviour: a non-standard verb is a warning, not an error', async () => {
    const warnings: string[] = [];
    await buildRole('r', undefined, { verb: ['frobnicate'], resource: ['pods'] }, resolve, (w) => warnings.push(w));
    assert.deepEqual(warnings, ["Warning: 'frobnicate' is not a standard resource verb\n"]);
  });

  it('reference behaviour: cluster roles add a rule for non-resource URLs after the resource rules', async () => {
    const role = await buildClusterRole('c', { verb: ['get'], resource: ['pods'], nonResourceUrl: ['/healthz', '/logs/*', '/healthz'] }, resolve, () => {});
    assert.deepEqual(role.rules, [
      { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
      { verbs: ['get'], nonResourceURLs: ['/healthz', '/logs/*'] },
    ]);
  });

  it('reference behaviour: an aggregation rule stands alone and gives no rules', async () => {
    const role = await buildClusterRole('agg', { aggregationRule: ['a=true', 'b=x'] }, resolve, () => {});
    assert.deepEqual(role, { apiVersion: `${RBAC_GROUP}/v1`, kind: 'ClusterRole', metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'true', b: 'x' } }] } });
    await assert.rejects(buildClusterRole('agg', { aggregationRule: ['a=true'], verb: ['get'] }, resolve, () => {}), /cannot be combined/);
  });

  const urlRefused: [string, Parameters<typeof buildClusterRole>[1], RegExp][] = [
    ['a resource verb on a URL', { verb: ['list'], nonResourceUrl: ['/x'] }, /verb 'list' cannot be used with a non-resource URL/],
    ['a URL without /', { verb: ['get'], nonResourceUrl: ['x'] }, /must start with \//],
    ['a * inside a URL', { verb: ['get'], nonResourceUrl: ['/a*/b'] }, /may only be the last/],
    ['neither resource nor URL', { verb: ['get'] }, /one of --resource or --non-resource-url/],
  ];
  for (const [title, flags, want] of urlRefused) {
    it(`reference behaviour: create clusterrole refuses ${title}`, async () => {
      await assert.rejects(buildClusterRole('c', flags, resolve, () => {}), want);
    });
  }
});
