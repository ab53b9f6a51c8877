import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ABAC_GROUP } from '../../api/naming.js';
import type { Attributes } from '../index.js';
import { AbacAuthorizer, parseAbacPolicy } from './index.js';

const V1 = (spec: Record<string, unknown>) => JSON.stringify({ apiVersion: `${ABAC_GROUP}/v1beta1`, kind: 'Policy', spec });
const alice = { username: 'alice', groups: ['devs', 'system:authenticated'] };
const anonymous = { username: 'system:anonymous', groups: ['system:unauthenticated'] };

function res(over: Partial<Attributes> = {}): Attributes {
  return { user: alice, verb: 'get', isResourceRequest: true, path: '', apiGroup: '', apiVersion: 'v1', resource: 'pods', subresource: '', namespace: 'ns', name: 'p', ...over };
}
const path = (p: string, over: Partial<Attributes> = {}): Attributes => res({ isResourceRequest: false, path: p, apiGroup: '', resource: '', namespace: '', name: '', ...over });

type Row = [title: string, policy: string, request: Attributes, allowed: boolean];

const ROWS: Row[] = [
  ['user matches exactly', V1({ user: 'alice', namespace: '*', resource: '*', apiGroup: '*' }), res(), true],
  ['another user does not match', V1({ user: 'bob', namespace: '*', resource: '*', apiGroup: '*' }), res(), false],
  ['group matches one of the user’s groups', V1({ group: 'devs', namespace: '*', resource: '*', apiGroup: '*' }), res(), true],
  ['user and group must both match when both are set', V1({ user: 'alice', group: 'ops', namespace: '*', resource: '*', apiGroup: '*' }), res(), false],
  ['neither user nor group matches nobody', V1({ namespace: '*', resource: '*', apiGroup: '*' }), res(), false],
  ['user * matches authenticated users', V1({ user: '*', namespace: '*', resource: '*', apiGroup: '*' }), res(), true],
  ['user * does not match the anonymous user', V1({ user: '*', namespace: '*', resource: '*', apiGroup: '*' }), res({ user: anonymous }), false],
  ['group system:unauthenticated matches the anonymous user', V1({ group: 'system:unauthenticated', readonly: true, nonResourcePath: '*' }), path('/version', { user: anonymous }), true],
  ['readonly allows get', V1({ user: 'alice', readonly: true, namespace: '*', resource: '*', apiGroup: '*' }), res(), true],
  ['readonly allows watch', V1({ user: 'alice', readonly: true, namespace: '*', resource: '*', apiGroup: '*' }), res({ verb: 'watch' }), true],
  ['readonly refuses create', V1({ user: 'alice', readonly: true, namespace: '*', resource: '*', apiGroup: '*' }), res({ verb: 'create' }), false],
  ['not readonly allows delete', V1({ user: 'alice', namespace: '*', resource: '*', apiGroup: '*' }), res({ verb: 'delete' }), true],
  ['namespace must equal', V1({ user: 'alice', namespace: 'other', resource: '*', apiGroup: '*' }), res(), false],
  ['empty namespace (v1beta1) matches only cluster-scoped requests', V1({ user: 'alice', resource: 'nodes', apiGroup: '*' }), res({ resource: 'nodes', namespace: '' }), true],
  ['resource must equal (subresource not looked at)', V1({ user: 'alice', namespace: '*', resource: 'pods', apiGroup: '*' }), res({ subresource: 'log' }), true],
  ['another resource does not match', V1({ user: 'alice', namespace: '*', resource: 'secrets', apiGroup: '*' }), res(), false],
  ['empty apiGroup (v1beta1) is the core group only', V1({ user: 'alice', namespace: '*', resource: '*' }), res({ apiGroup: 'apps', resource: 'deployments' }), false],
  ['apiGroup must equal', V1({ user: 'alice', namespace: '*', resource: '*', apiGroup: 'apps' }), res({ apiGroup: 'apps', resource: 'deployments' }), true],
  ['a resource policy does not match a path', V1({ user: 'alice', namespace: '*', resource: '*', apiGroup: '*' }), path('/healthz'), false],
  ['nonResourcePath * matches any path', V1({ user: 'alice', nonResourcePath: '*' }), path('/healthz'), true],
  ['nonResourcePath exact', V1({ user: 'alice', nonResourcePath: '/version' }), path('/version'), true],
  ['nonResourcePath prefix /apis/*', V1({ user: 'alice', nonResourcePath: '/apis/*' }), path('/apis/apps/v1'), true],
  ['nonResourcePath prefix /apis/* does not match /apis', V1({ user: 'alice', nonResourcePath: '/apis/*' }), path('/apis'), false],
  ['a path policy does not match a resource request', V1({ user: 'alice', nonResourcePath: '*' }), res(), false],
  ['legacy: a user with everything else empty can do anything, paths included', '{"user":"alice"}', path('/metrics', { verb: 'post' }), true],
  ['legacy: resource requests in any API group', '{"user":"alice"}', res({ apiGroup: 'apps', resource: 'deployments', verb: 'create' }), true],
  ['legacy: empty user and group means every authenticated user', '{"readonly":true,"resource":"pods"}', res(), true],
  ['legacy: empty user and group does not include the anonymous user', '{"readonly":true,"resource":"pods"}', res({ user: anonymous }), false],
  ['legacy: a set namespace limits resources and no longer allows paths', '{"user":"alice","namespace":"ns"}', path('/healthz'), false],
  ['legacy: group * means every authenticated user', '{"group":"*","readonly":true}', res({ user: { username: 'zed', groups: ['system:authenticated'] } }), true],
];

describe('ABAC authorizer (reference behaviour)', () => {
  for (const [title, policy, request, allowed] of ROWS) {
    it(`reference behaviour: ${title}`, async () => {
      const d = await new AbacAuthorizer(parseAbacPolicy(policy, 'p.jsonl')).authorize(request);
      assert.deepEqual(d, allowed ? { decision: 'allow' } : { decision: 'noOpinion', reason: 'No policy matched.' });
    });
  }

  it('reference behaviour: the first matching line allows; blank lines and # comments are skipped', async () => {
    const text = ['# admins', '', V1({ user: 'bob', namespace: '*', resource: '*', apiGroup: '*' }), '   ', '  # indented comment', '{"user":"alice","readonly":true}', ''].join('\n');
    const z = new AbacAuthorizer(parseAbacPolicy(text, 'p.jsonl'));
    assert.equal((await z.authorize(res())).decision, 'allow');
    assert.equal((await z.authorize(res({ verb: 'delete' }))).decision, 'noOpinion');
    assert.equal((await z.authorize(res({ verb: 'delete', user: { username: 'bob', groups: [] } }))).decision, 'allow');
  });
});

const BAD: [title: string, line: string, message: RegExp][] = [
  ['not JSON', '{user: alice}', /p\.jsonl: line 2: not a JSON object/],
  ['an array', '["alice"]', /line 2: not a JSON object/],
  ['an unknown versioned field', V1({ user: 'alice', namespaces: '*' }), /line 2: spec\.namespaces: unknown field/],
  ['a versioned field outside spec', JSON.stringify({ apiVersion: `${ABAC_GROUP}/v1beta1`, kind: 'Policy', user: 'alice', spec: {} }), /line 2: user: unknown field/],
  ['a missing spec', JSON.stringify({ apiVersion: `${ABAC_GROUP}/v1beta1`, kind: 'Policy' }), /line 2: spec: required/],
  ['a wrong kind', JSON.stringify({ apiVersion: `${ABAC_GROUP}/v1beta1`, kind: 'Role', spec: {} }), /line 2: kind: must be "Policy"/],
  ['an unknown apiVersion', JSON.stringify({ apiVersion: `${ABAC_GROUP}/v2`, kind: 'Policy', spec: {} }), /line 2: apiVersion: unsupported/],
  ['readonly not a boolean', '{"user":"alice","readonly":"yes"}', /line 2: readonly: must be true or false/],
  ['user not a string', V1({ user: 7 }), /line 2: spec\.user: must be a string/],
  ['a legacy line with apiGroup (a v1beta1-only field)', '{"user":"alice","apiGroup":"*"}', /line 2: apiGroup: unknown field/],
];

describe('ABAC policy file errors (reference behaviour: a bad line stops start-up)', () => {
  for (const [title, line, message] of BAD) {
    it(`reference behaviour: ${title} is an error naming the file and line`, () => {
      assert.throws(() => parseAbacPolicy(`# first\n${line}\n`, 'p.jsonl'), message);
    });
  }

  it('reference behaviour: AbacAuthorizer.fromFile reads the file, and a missing file names the flag and path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'abac-'));
    try {
      const file = join(dir, 'policy.jsonl');
      writeFileSync(file, `${V1({ group: 'devs', readonly: true, namespace: '*', resource: '*', apiGroup: '*' })}\n`);
      assert.equal((await AbacAuthorizer.fromFile(file).authorize(res())).decision, 'allow');
      assert.throws(() => AbacAuthorizer.fromFile(join(dir, 'missing.jsonl')), /--authorization-policy-file: cannot read .*missing\.jsonl/);
      writeFileSync(file, 'nope\n');
      assert.throws(() => AbacAuthorizer.fromFile(file), new RegExp(`${file.replace(/[.]/g, '\\.')}: line 1: not a JSON object`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
