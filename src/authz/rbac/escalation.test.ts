import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RBAC_GROUP } from '../../api/naming.js';
import { breakdownRule, confirmNoEscalation, coveringRules, rulesForUser } from './escalation.js';
import { RbacIndex } from './rbac-index.js';
import type { Rule } from './types.js';

const R = (verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): Rule => ({
  apiGroups,
  resources,
  verbs,
  ...(resourceNames ? { resourceNames } : {}),
});
const URL = (verbs: string[], ...nonResourceURLs: string[]): Rule => ({ nonResourceURLs, verbs });

const table: [string, Rule[], Rule[], boolean][] = [
  ['identical rule', [R(['get'], [''], ['pods'])], [R(['get'], [''], ['pods'])], true],
  ['* verbs, groups and resources cover anything', [R(['*'], ['*'], ['*'])], [R(['escalate', 'bind'], [RBAC_GROUP], ['roles', 'pods/exec'])], true],
  ['missing verb', [R(['get'], [''], ['pods'])], [R(['get', 'delete'], [''], ['pods'])], false],
  ['other group', [R(['get'], [''], ['pods'])], [R(['get'], ['apps'], ['pods'])], false],
  ['union of several owner rules', [R(['get'], [''], ['pods']), R(['list'], [''], ['pods'])], [R(['get', 'list'], [''], ['pods'])], true],
  ['resource does not cover its subresource', [R(['get'], [''], ['pods'])], [R(['get'], [''], ['pods/log'])], false],
  ['*/sub covers that subresource', [R(['get'], [''], ['*/status'])], [R(['get'], [''], ['pods/status', 'services/status'])], true],
  ['resource/* covers its subresources', [R(['get'], [''], ['pods/*'])], [R(['get'], [''], ['pods/log'])], true],
  ['a named grant does not cover an unnamed one', [R(['get'], [''], ['secrets'], ['a'])], [R(['get'], [''], ['secrets'])], false],
  ['an unnamed grant covers a named one', [R(['get'], [''], ['secrets'])], [R(['get'], [''], ['secrets'], ['a', 'b'])], true],
  ['named covers a subset of names', [R(['get'], [''], ['secrets'], ['a', 'b'])], [R(['get'], [''], ['secrets'], ['b'])], true],
  ['named does not cover other names', [R(['get'], [''], ['secrets'], ['a'])], [R(['get'], [''], ['secrets'], ['a', 'c'])], false],
  ['url * covers any url', [URL(['get'], '*')], [URL(['get'], '/metrics', '/healthz/x')], true],
  ['url prefix covers longer paths', [URL(['get'], '/healthz/*')], [URL(['get'], '/healthz/etcd')], true],
  ['url prefix does not cover a sibling', [URL(['get'], '/healthz/*')], [URL(['get'], '/livez')], false],
  ['resource grants do not cover urls', [R(['*'], ['*'], ['*'])], [URL(['get'], '/metrics')], false],
  ['url grants do not cover resources', [URL(['*'], '*')], [R(['get'], [''], ['pods'])], false],
  ['cluster-admin covers both', [R(['*'], ['*'], ['*']), URL(['*'], '*')], [R(['get'], [''], ['pods']), URL(['get'], '/metrics')], true],
  ['nothing requested is always covered', [], [], true],
];

describe('coveringRules', () => {
  for (const [title, owner, requested, want] of table) {
    it(`spec 5.8: ${title}`, () => assert.equal(coveringRules(owner, requested).covered, want));
  }

  it('spec 5.8: uncovered lists the missing atomic permissions', () => {
    const r = coveringRules([R(['get'], [''], ['pods'])], [R(['get', 'list'], [''], ['pods', 'secrets'])]);
    assert.deepEqual(r.uncovered, [R(['list'], [''], ['pods']), R(['get'], [''], ['secrets']), R(['list'], [''], ['secrets'])]);
  });

  it('breaks rules into group × resource × verb × name and url × verb', () => {
    assert.equal(breakdownRule(R(['get', 'list'], ['', 'apps'], ['a', 'b', 'c'], ['x', 'y'])).length, 2 * 2 * 3 * 2);
    assert.deepEqual(breakdownRule(URL(['get', 'head'], '/a')), [URL(['get'], '/a'), URL(['head'], '/a')]);
  });
});

describe('rulesForUser and confirmNoEscalation', () => {
  const index = new RbacIndex();
  index.upsert('ClusterRole', { metadata: { name: 'reader' }, rules: [R(['get'], [''], ['pods'])] });
  index.upsert('Role', { metadata: { name: 'writer', namespace: 'team' }, rules: [R(['create'], [''], ['pods'])] });
  index.upsert('ClusterRoleBinding', {
    metadata: { name: 'c' },
    roleRef: { kind: 'ClusterRole', name: 'reader' },
    subjects: [{ kind: 'User', name: 'alice' }],
  });
  index.upsert('RoleBinding', {
    metadata: { name: 'r', namespace: 'team' },
    roleRef: { kind: 'Role', name: 'writer' },
    subjects: [{ kind: 'Group', name: 'devs' }],
  });
  const alice = { username: 'alice', groups: ['devs'] };

  it('collects cluster-wide rules plus those of the namespace', () => {
    assert.deepEqual(rulesForUser(index, alice, ''), [R(['get'], [''], ['pods'])]);
    assert.deepEqual(rulesForUser(index, alice, 'team'), [R(['get'], [''], ['pods']), R(['create'], [''], ['pods'])]);
    assert.deepEqual(rulesForUser(index, { username: 'bob', groups: [] }, 'team'), []);
  });

  it('spec 5.8: checks at the same scope, with the reference message', () => {
    assert.deepEqual(confirmNoEscalation(index, alice, 'team', [R(['get', 'create'], [''], ['pods'])]), { allowed: true });
    const r = confirmNoEscalation(index, alice, '', [R(['get', 'create'], [''], ['pods'])]);
    assert.equal(r.allowed, false);
    assert.equal(
      !r.allowed && r.message,
      'user "alice" (groups=["devs"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["create"]}',
    );
  });
});
