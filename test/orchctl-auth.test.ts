import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AUTHENTICATION_GROUP, RBAC_GROUP } from '../src/api/naming.js';
import { Client } from '../src/client/index.js';
import { connectionForServer } from '../src/client/config/index.js';
import { startServer, type TestServer } from '../src/index.js';
import { orchctl } from './orchctl-create-helpers.js';

describe('orchctl auth can-i, auth whoami and create token against a server', () => {
  let server: TestServer;
  let admin: Client;
  let dir: string;
  let adminKc: string;
  let aliceKc: string;
  before(async () => {
    server = await startServer({ users: [{ name: 'alice', groups: ['devs'] }] });
    admin = new Client(connectionForServer(server));
    dir = mkdtempSync(join(tmpdir(), 'orchctl-auth-'));
    adminKc = server.writeKubeconfig();
    aliceKc = join(dir, 'alice.yaml');
    writeFileSync(aliceKc, server.kubeconfigFor('alice'));
    await server.apply([
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } },
      { apiVersion: `${RBAC_GROUP}/v1`, kind: 'Role', metadata: { name: 'pod-reader', namespace: 'team' }, rules: [{ apiGroups: [''], resources: ['pods', 'pods/log'], verbs: ['get', 'list'] }] },
      { apiVersion: `${RBAC_GROUP}/v1`, kind: 'RoleBinding', metadata: { name: 'alice-reads', namespace: 'team' }, roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: 'pod-reader' }, subjects: [{ apiGroup: RBAC_GROUP, kind: 'User', name: 'alice' }] },
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot', namespace: 'team' } },
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'anchor', namespace: 'team' }, data: {} },
    ]);
  });
  after(async () => {
    admin.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const answers: [string, () => string, string[], number, string][] = [
    ['the admin may do anything', () => adminKc, ['auth', 'can-i', 'delete', 'nodes', '-A'], 0, 'yes\n'],
    ['alice may list pods in her namespace', () => aliceKc, ['-n', 'team', 'auth', 'can-i', 'list', 'pods'], 0, 'yes\n'],
    ['alice may read a named pod', () => aliceKc, ['-n', 'team', 'auth', 'can-i', 'get', 'pods/web'], 0, 'yes\n'],
    ['alice may read pod logs (subresource)', () => aliceKc, ['-n', 'team', 'auth', 'can-i', 'get', 'pods', '--subresource=log'], 0, 'yes\n'],
    ['alice may not delete pods', () => aliceKc, ['-n', 'team', 'auth', 'can-i', 'delete', 'pods'], 1, 'no\n'],
    ['alice may not list pods elsewhere', () => aliceKc, ['-n', 'default', 'auth', 'can-i', 'list', 'pods'], 1, 'no\n'],
    ['-q prints nothing, the exit code answers', () => aliceKc, ['-n', 'team', 'auth', 'can-i', 'delete', 'pods', '-q'], 1, ''],
    ['--as impersonates alice', () => adminKc, ['--as', 'alice', '-n', 'team', 'auth', 'can-i', 'delete', 'pods'], 1, 'no\n'],
    ['a non-resource URL', () => aliceKc, ['auth', 'can-i', 'get', '/healthz'], 0, 'yes\n'],
  ];
  for (const [title, kc, args, code, out] of answers) {
    it(`spec 2.8: auth can-i: ${title} (exit ${code})`, async () => {
      const r = await orchctl(kc(), args);
      assert.equal(r.stderr, '');
      assert.deepEqual({ code: r.code, stdout: r.stdout }, { code, stdout: out });
    });
  }

  it('reference behaviour: auth can-i warns about an unknown resource and still asks', async () => {
    const r = await orchctl(aliceKc, ['-n', 'team', 'auth', 'can-i', 'get', 'gizmos']);
    assert.deepEqual({ code: r.code, stdout: r.stdout }, { code: 1, stdout: 'no\n' });
    assert.equal(r.stderr, "Warning: the server doesn't have a resource type 'gizmos'\n");
  });

  it('reference behaviour: auth can-i usage errors exit 1 with a help hint', async () => {
    const r = await orchctl(aliceKc, ['auth', 'can-i', 'get']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /error: auth can-i needs two arguments[^]*See 'orchctl auth can-i --help'/);
  });

  it('spec 2.8: auth can-i --list shows the rules of the namespace as the reference table', async () => {
    const r = await orchctl(aliceKc, ['-n', 'team', 'auth', 'can-i', '--list']);
    assert.equal(r.code, 0, r.stderr);
    const rows = r.stdout.trimEnd().split('\n').map((l) => l.split(/\s{3,}/));
    assert.deepEqual(rows[0], ['Resources', 'Non-Resource URLs', 'Resource Names', 'Verbs']);
    assert.ok(rows.some((row) => row.join('|') === 'pods|[]|[]|[get list]'), r.stdout);
    assert.ok(rows.some((row) => row.join('|') === 'pods/log|[]|[]|[get list]'), r.stdout);
    assert.ok(rows.some((row) => row.join('|') === `selfsubjectreviews.${AUTHENTICATION_GROUP}|[]|[]|[create]`), r.stdout);
    const bare = await orchctl(aliceKc, ['-n', 'team', 'auth', 'can-i', '--list', '--no-headers']);
    assert.equal(bare.stdout.split('\n')[0]!.startsWith('Resources'), false);
  });

  it('spec 2.8: auth whoami prints the user the server sees, as a table or as the SelfSubjectReview', async () => {
    const r = await orchctl(aliceKc, ['auth', 'whoami']);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trimEnd().split('\n').map((l) => l.split(/\s{3,}/));
    assert.deepEqual(lines.slice(0, 2), [
      ['ATTRIBUTE', 'VALUE'],
      ['Username', 'alice'],
    ]);
    assert.ok(lines.some((l) => l[0] === 'Groups' && l[1]!.includes('devs') && l[1]!.includes('system:authenticated')), r.stdout);
    const json = await orchctl(aliceKc, ['auth', 'whoami', '-o', 'json']);
    const review = JSON.parse(json.stdout) as { kind: string; status: { userInfo: { username: string } } };
    assert.equal(review.kind, 'SelfSubjectReview');
    assert.equal(review.status.userInfo.username, 'alice');
  });

  const claims = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;

  it('spec 5.4: create token prints a service account token with the audiences and lifetime asked for, no newline for a pipe', async () => {
    const r = await orchctl(adminKc, ['-n', 'team', 'create', 'token', 'robot', '--audience', 'api', '--audience', 'vault', '--duration', '15m']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^[\w-]+\.[\w-]+\.[\w-]+$/);
    const c = claims(r.stdout) as { aud: string[]; exp: number; iat: number; sub: string };
    assert.deepEqual(c.aud, ['api', 'vault']);
    assert.equal(c.exp - c.iat, 900);
    assert.equal(c.sub, 'system:serviceaccount:team:robot');
    const tty = await orchctl(adminKc, ['-n', 'team', 'create', 'token', 'robot'], { stdoutIsTTY: true });
    assert.ok(tty.stdout.endsWith('\n'));
  });

  it('spec 5.4: create token binds the token to an object', async () => {
    const r = await orchctl(adminKc, ['-n', 'team', 'create', 'token', 'robot', '--bound-object-kind', 'Secret', '--bound-object-name', 'anchor']);
    assert.equal(r.code, 0, r.stderr);
    const bound = JSON.stringify(claims(r.stdout));
    assert.match(bound, /"anchor"/);
  });

  const tokenRefusals: [string, string[], RegExp][] = [
    ['a name without a kind', ['--bound-object-name', 'x'], /--bound-object-name needs --bound-object-kind/],
    ['an unsupported kind', ['--bound-object-kind', 'Node', '--bound-object-name', 'n'], /--bound-object-kind must be one of Pod, Secret/],
    ['a kind without a name', ['--bound-object-kind', 'Pod'], /--bound-object-kind needs --bound-object-name/],
    ['a sub-second duration', ['--duration', '1500ms'], /whole number of seconds/],
    ['a bad duration', ['--duration', 'soon'], /--duration: "soon" is not a duration/],
    ['an empty audience', ['--audience', ''], /--audience must not be empty/],
  ];
  for (const [title, flags, want] of tokenRefusals) {
    it(`reference behaviour: create token refuses ${title}`, async () => {
      const r = await orchctl(adminKc, ['-n', 'team', 'create', 'token', 'robot', ...flags]);
      assert.equal(r.code, 1);
      assert.match(r.stderr, want);
    });
  }

  it('reference behaviour: create token for a missing account fails naming it', async () => {
    const r = await orchctl(adminKc, ['-n', 'team', 'create', 'token', 'ghost']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /error: failed to create token: .*"ghost" not found/);
  });
});
