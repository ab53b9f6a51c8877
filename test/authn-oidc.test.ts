import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServer, type RunningServer } from '../src/index.js';
import { parseFlags } from '../src/cmd/apiserver-flags.js';
import { failsToStart, stopAll } from './helpers/apiserver-process.js';
import { client } from './helpers/client.js';
import { sample } from './helpers/metrics-text.js';
import { signJwt, startOidcIssuer, type OidcIssuer } from './helpers/oidc-issuer.js';

const AUTHN = 'authentication.orch.io';
const CONFIG_API = 'apiserver.config.orch.io/v1beta1';

/** Who the server says the token's holder is (spec 4.8 SelfSubjectReview), or the HTTP status. */
async function whoami(server: RunningServer, token: string): Promise<{ username?: string; uid?: string; groups?: string[]; extra?: unknown; status?: number }> {
  const r = await client(server)('POST', `/apis/${AUTHN}/v1/selfsubjectreviews`, { token, body: { apiVersion: `${AUTHN}/v1`, kind: 'SelfSubjectReview' } });
  return r.status === 201 ? r.json.status.userInfo : { status: r.status };
}
const until = async (what: string, f: () => Promise<boolean>, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!(await f())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'orch-authn-oidc-'));
});
after(() => {
  stopAll();
  rmSync(dir, { recursive: true, force: true });
});

describe('OIDC flags on a running server (spec 5.5, 5.1, 4.8)', () => {
  let issuer: OidcIssuer;
  let server: RunningServer;
  before(async () => {
    issuer = await startOidcIssuer();
    server = await startServer({
      port: 0,
      dataDir: join(dir, 'flags'),
      storage: { type: 'memory' },
      oidc: { issuerURL: issuer.url, clientID: 'orch-test', caFile: issuer.caFile, groupsClaim: 'groups', groupsPrefix: 'oidc:', requiredClaims: { hd: 'example.com' } },
    });
  });
  after(async () => {
    await server.close();
    await issuer.close();
  });

  it('spec 5.5: an ID token authenticates with the issuer-prefixed username and prefixed groups', async () => {
    const user = await whoami(server, issuer.mint({ sub: 'alice', groups: ['dev'], hd: 'example.com' }));
    assert.deepEqual(user, { username: `${issuer.url}#alice`, groups: ['oidc:dev', 'system:authenticated'] });
  });

  it('spec 5.5: wrong audience, expired, bad signature, missing required claim or username claim are 401', async () => {
    const now = Math.floor(Date.now() / 1000);
    const good = { hd: 'example.com' };
    const forged = { ...issuer.unpublishedKey(), kid: issuer.keys[0]!.kid };
    for (const [what, token] of [
      ['wrong audience', issuer.mint({ ...good, aud: 'other' })],
      ['expired', issuer.mint({ ...good, exp: now - 10 })],
      ['bad signature', issuer.mint(good, { key: forged })],
      ['required claim missing', issuer.mint({})],
      ['username claim missing', issuer.mint({ ...good, sub: undefined })],
    ] as const) {
      assert.deepEqual(await whoami(server, token), { status: 401 }, what);
    }
  });

  it('spec 5.1: other methods still work beside OIDC; a JWT of an unknown issuer is 401', async () => {
    assert.equal((await whoami(server, server.adminToken)).username, 'orch-admin');
    const stranger = signJwt({ iss: 'https://stranger.example', aud: 'orch-test', sub: 'x', exp: 9e9 }, issuer.keys[0]!);
    assert.deepEqual(await whoami(server, stranger), { status: 401 });
  });

  it('spec 5.5: the issuer is not contacted per request for known keys', async () => {
    const token = issuer.mint({ sub: 'repeat', hd: 'example.com' });
    const calls = { ...issuer.calls };
    for (let i = 0; i < 5; i++) assert.equal((await whoami(server, token)).username, `${issuer.url}#repeat`);
    assert.deepEqual(issuer.calls, calls);
  });
});

describe('--authentication-config on a running server (spec 5.5 file table)', () => {
  let issuer: OidcIssuer;
  let server: RunningServer;
  let file: string;
  const logs: string[] = [];
  /** The username is `<prefix><email>`; `checked` also requires email_verified (empty username otherwise). */
  const config = (prefix: string, checked = true) =>
    JSON.stringify({
      apiVersion: CONFIG_API,
      kind: 'AuthenticationConfiguration',
      jwt: [
        {
          issuer: { url: issuer.url, certificateAuthority: issuer.caPem, audiences: ['orch-test', 'other'], audienceMatchPolicy: 'MatchAny' },
          claimValidationRules: [{ expression: "claims.tier == 'gold'", message: 'gold members only' }],
          claimMappings: {
            username: { expression: checked ? `claims.email_verified ? '${prefix}' + claims.email : ''` : `'${prefix}' + claims.email` },
            groups: { expression: "claims.roles.map(r, 'role:' + r)" },
            uid: { claim: 'sub' },
            extra: [{ key: 'example.com/tier', valueExpression: 'claims.tier' }],
          },
          userValidationRules: [{ expression: "!user.username.endsWith('@evil.example')", message: 'no evil users' }],
        },
      ],
    });
  before(async () => {
    issuer = await startOidcIssuer();
    file = join(dir, 'authn.json');
    writeFileSync(file, config('v1:'));
    server = await startServer({ port: 0, dataDir: join(dir, 'file'), storage: { type: 'memory' }, authenticationConfigFile: file, log: (m) => logs.push(m) });
  });
  after(async () => {
    await server.close();
    await issuer.close();
  });
  const claims = { email: 'ann@example.com', email_verified: true, tier: 'gold', roles: ['dev'], sub: 'id-ann', aud: 'other' };

  it('spec 5.5: CEL mappings give username, uid, groups and extra; rules that fail are 401', async () => {
    assert.deepEqual(await whoami(server, issuer.mint(claims)), {
      username: 'v1:ann@example.com',
      uid: 'id-ann',
      groups: ['role:dev', 'system:authenticated'],
      extra: { 'example.com/tier': ['gold'] },
    });
    assert.deepEqual(await whoami(server, issuer.mint({ ...claims, tier: 'silver' })), { status: 401 }, 'claim validation rule');
    assert.deepEqual(await whoami(server, issuer.mint({ ...claims, email: 'x@evil.example' })), { status: 401 }, 'user validation rule');
    assert.deepEqual(await whoami(server, issuer.mint({ ...claims, email_verified: false })), { status: 401 }, 'empty username');
    assert.deepEqual(await whoami(server, issuer.mint({ ...claims, aud: 'nobody' })), { status: 401 }, 'audience');
  });

  it('spec 5.5: a valid changed file takes effect within seconds; an invalid one is logged and the old one stays', async () => {
    const token = issuer.mint({ ...claims, email: 'bo@example.com' });
    const written = Math.floor(Date.now() / 1000);
    writeFileSync(file, config('v2:'));
    await until('reloaded', async () => (await whoami(server, token)).username === 'v2:bo@example.com');
    // Spec 3.4: the reload is reported on /metrics.
    const metrics = await client(server)('GET', '/metrics');
    assert.equal(metrics.status, 200);
    const reloadedAt = sample(metrics.text, 'apiserver_authentication_config_controller_automatic_reload_last_timestamp_seconds', { status: 'success' });
    assert.ok(reloadedAt !== undefined && reloadedAt >= written, `last reload at ${reloadedAt}, file written at ${written}`);
    writeFileSync(file, config('v3:', false)); // claims.email without email_verified: refused (reference rule)
    await until('refusal logged', async () => logs.some((l) => l.includes('claims.email_verified must be used')));
    assert.equal((await whoami(server, token)).username, 'v2:bo@example.com');
  });
});

describe('an issuer that is down at start-up (spec 5.5)', () => {
  it('spec 5.5: the server starts and serves others; OIDC users authenticate once the issuer is reachable', async () => {
    const issuer = await startOidcIssuer();
    await issuer.stop();
    const server = await startServer({ port: 0, dataDir: join(dir, 'down'), storage: { type: 'memory' }, oidc: { issuerURL: issuer.url, clientID: 'orch-test', caFile: issuer.caFile, usernamePrefix: '-' } });
    try {
      assert.equal((await whoami(server, server.adminToken)).username, 'orch-admin');
      const token = issuer.mint({ sub: 'late' });
      assert.deepEqual(await whoami(server, token), { status: 401 });
      await issuer.start();
      await until('issuer reachable', async () => (await whoami(server, token)).username === 'late');
    } finally {
      await server.close();
      await issuer.close();
    }
  });
});

describe('start-up errors (spec 5.5, 7)', () => {
  it('spec 5.5: --authentication-config with an --oidc-* flag stops the process, naming both', async () => {
    const f = join(dir, 'empty-authn.yaml');
    writeFileSync(f, `apiVersion: ${CONFIG_API}\nkind: AuthenticationConfiguration\n`);
    const stderr = await failsToStart([`--data-dir=${join(dir, 'proc')}`, `--authentication-config=${f}`, '--oidc-issuer-url=https://issuer.example']);
    assert.match(stderr, /--authentication-config and --oidc-issuer-url/);
  });

  it('spec 5.5: an issuer equal to the service-account issuer is refused in-process before storage opens', async () => {
    await assert.rejects(
      startServer({ port: 0, storage: { type: 'memory' }, serviceAccountIssuer: 'https://sa.example', oidc: { issuerURL: 'https://sa.example', clientID: 'x' } }),
      /--oidc-issuer-url: Invalid value: "https:\/\/sa.example": URL must not overlap with disallowed issuers/,
    );
  });
});

describe('--oidc-* flags and --authentication-config on the command line (spec 5.5 flag table)', () => {
  const parse = (...args: string[]) => {
    const r = parseFlags([`--data-dir=${join(dir, 'cli')}`, ...args]);
    assert.notEqual(r, 'help');
    return (r as Exclude<typeof r, 'help'>).server;
  };
  it('spec 5.5: every --oidc-* flag reaches the options; --oidc-required-claim repeats', async () => {
    const issuer = await startOidcIssuer();
    try {
      const o = parse(
        `--oidc-issuer-url=${issuer.url}`,
        '--oidc-client-id=orch',
        '--oidc-username-claim=email',
        '--oidc-username-prefix=-',
        '--oidc-groups-claim=groups',
        '--oidc-groups-prefix=oidc:',
        '--oidc-required-claim=hd=example.com',
        '--oidc-required-claim=team=a=b',
        `--oidc-ca-file=${issuer.caFile}`,
        '--oidc-signing-algs=RS256,ES256',
      );
      assert.deepEqual(o.oidc, {
        issuerURL: issuer.url,
        clientID: 'orch',
        usernameClaim: 'email',
        usernamePrefix: '-',
        groupsClaim: 'groups',
        groupsPrefix: 'oidc:',
        requiredClaims: { hd: 'example.com', team: 'a=b' },
        caFile: issuer.caFile,
        signingAlgs: ['RS256', 'ES256'],
      });
    } finally {
      await issuer.close();
    }
  });
  it('spec 5.5: flag mistakes are errors naming the flag', () => {
    assert.throws(() => parse('--oidc-issuer-url=https://i.example', '--oidc-client-id=x', '--oidc-required-claim=novalue'), /^Error: --oidc-required-claim: invalid value "novalue"/);
    assert.throws(() => parse('--oidc-issuer-url=https://i.example'), /^Error: --oidc-client-id: required/);
    assert.throws(() => parse('--oidc-issuer-url=https://i.example', '--oidc-client-id=x', '--oidc-signing-algs=HS256'), /^Error: --oidc-signing-algs: Invalid value: "HS256"/);
    assert.throws(() => parse('--authentication-config='), /^Error: --authentication-config: a file path is required/);
    assert.throws(() => parse(`--authentication-config=${join(dir, 'nope.yaml')}`), /^Error: --authentication-config: cannot read/);
    assert.throws(() => parse('--service-account-issuer=https://sa.example', '--oidc-issuer-url=https://sa.example', '--oidc-client-id=x'), /--oidc-issuer-url: Invalid value: .*disallowed issuers/);
  });
});
