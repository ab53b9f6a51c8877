import assert from 'node:assert/strict';
import { createPublicKey, verify } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseFlags } from '../src/cmd/apiserver-flags.js';
import { startServer, type RunningServer } from '../src/index.js';
import { failsToStart, stopAll } from './helpers/apiserver-process.js';
import { client, type RequestOptions } from './helpers/client.js';
import { startWebhookServer, type Reply, type WebhookServer } from './helpers/webhook-server.js';

const RBAC = 'rbac.authorization.orch.io';
const FAST_RETRY = { initialMs: 10, factor: 1.5, jitter: 0.2, steps: 5 };

/** A TokenReview answer in the version the review came in. */
const answer = (apiVersion: string, status: Record<string, unknown>): Reply => ({ raw: JSON.stringify({ apiVersion, kind: 'TokenReview', status }) });

/** The webhook's behaviour per token; every call is recorded by the helper (`reviews`). */
function tokenReviewer(review: { apiVersion: string; spec?: { token?: string } }): Reply {
  const token = review.spec?.token ?? '';
  const v = review.apiVersion;
  if (token === 'tok-alice') {
    return answer(v, { authenticated: true, user: { username: 'alice', uid: 'uid-alice', groups: ['devs'], extra: { 'example.com/team': ['blue'] } } });
  }
  if (token === 'tok-elsewhere') return answer(v, { authenticated: true, user: { username: 'eve' }, audiences: ['https://someone-else.example'] });
  if (token === 'tok-garbage') return { raw: '<html>not a review</html>' };
  if (token === 'tok-500') return { raw: '{}', status: 500 };
  if (token === 'tok-slow') return { hang: true };
  return answer(v, { authenticated: false });
}

function kubeconfigFor(dir: string, name: string, server: string, caBundle: string): string {
  const file = join(dir, `${name}.kubeconfig`);
  writeFileSync(
    file,
    `apiVersion: v1\nkind: Config\nclusters:\n- name: authn\n  cluster:\n    server: ${server}\n    certificate-authority-data: ${caBundle}\nusers:\n- name: apiserver\n  user: {}\ncontexts:\n- name: webhook\n  context: {cluster: authn, user: apiserver}\ncurrent-context: webhook\n`,
  );
  return file;
}

describe('webhook token authentication and service account issuer discovery over HTTPS (spec 5.1, reference behaviour)', () => {
  let dir: string;
  let webhook: WebhookServer;
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  const as = (token: string | null) => (method: string, path: string, opts: RequestOptions = {}) => call(method, path, { ...opts, token });
  const calls = (token: string) => webhook.reviews.filter((r: any) => r.spec?.token === token).length;
  const whoami = async (token: string) =>
    as(token)('POST', '/apis/authentication.orch.io/v1/selfsubjectreviews', { body: { apiVersion: 'authentication.orch.io/v1', kind: 'SelfSubjectReview' } });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-authn-webhook-'));
    webhook = await startWebhookServer((review) => tokenReviewer(review as any));
    server = await startServer({
      port: 0,
      dataDir: join(dir, 'data'),
      storage: { type: 'memory' },
      authenticationTokenWebhook: {
        configFile: kubeconfigFor(dir, 'webhook', `${webhook.url}/authenticate`, webhook.caBundle),
        version: 'v1',
        cacheTtlMs: 60_000,
        timeoutMs: 1000,
        retry: FAST_RETRY,
      },
    });
    call = client(server);
  });
  after(async () => {
    await server?.close();
    await webhook?.close();
    stopAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it('spec 5.1: a token the webhook accepts is its user (groups, uid, extra) plus system:authenticated, seen by SelfSubjectReview', async () => {
    const r = await whoami('tok-alice');
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.json.status.userInfo, {
      username: 'alice',
      uid: 'uid-alice',
      groups: ['devs', 'system:authenticated'],
      extra: { 'example.com/team': ['blue'] },
    });
    const sent = webhook.reviews.find((x: any) => x.spec?.token === 'tok-alice') as any;
    assert.equal(sent.apiVersion, 'authentication.orch.io/v1', 'the version asked for');
    assert.equal(sent.kind, 'TokenReview');
    assert.deepEqual(sent.spec.audiences, ['https://orch-apiserver.orch-system.svc'], 'the API audiences (default: the issuer)');
    assert.equal(webhook.paths.at(-1), '/authenticate', 'the kubeconfig server path');
  });

  it('reference behaviour: the answer is cached for the TTL, as the webhook\'s call count shows', async () => {
    await whoami('tok-alice');
    const before = calls('tok-alice');
    assert.ok(before >= 1);
    for (let i = 0; i < 5; i++) assert.equal((await whoami('tok-alice')).status, 201);
    assert.equal(calls('tok-alice'), before, 'no further webhook calls within the TTL');
  });

  it('spec 5.1: a denied token is 401 (and the denial is cached too)', async () => {
    const r = await as('tok-nobody')('GET', '/api');
    assert.equal(r.status, 401, r.text);
    assert.equal(r.json.kind, 'Status');
    assert.equal((await as('tok-nobody')('GET', '/api')).status, 401);
    assert.equal(calls('tok-nobody'), 1);
  });

  it('reference behaviour: a token the webhook says is meant for another audience is 401', async () => {
    assert.equal((await as('tok-elsewhere')('GET', '/api')).status, 401);
  });

  it('reference behaviour: a webhook answering garbage, 500 (retried with backoff) or not at all within its deadline is 401, never 500', async () => {
    assert.equal((await as('tok-garbage')('GET', '/api')).status, 401);
    assert.equal((await as('tok-500')('GET', '/api')).status, 401);
    assert.equal(calls('tok-500'), FAST_RETRY.steps, 'a 500 is transient: retried up to the attempt limit');
    const started = Date.now();
    assert.equal((await as('tok-slow')('GET', '/api')).status, 401);
    const took = Date.now() - started;
    assert.ok(took >= 900 && took < 5000, `the 1 s deadline bounds the wait (took ${took} ms)`);
    assert.equal((await whoami('tok-alice')).status, 201, 'the server still serves other tokens');
  });

  it('reference behaviour: tokens other authenticators accept never reach the webhook', async () => {
    const before = webhook.reviews.length;
    assert.equal((await call('GET', '/api')).status, 200, 'the admin token');
    assert.equal(webhook.reviews.length, before);
  });

  it('reference behaviour: v1beta1 is the default version; a webhook that is down is 401, not 500', async () => {
    const other = await startServer({
      port: 0,
      dataDir: join(dir, 'data-default'),
      storage: { type: 'memory' },
      authenticationTokenWebhook: { configFile: kubeconfigFor(dir, 'default', `${webhook.url}/v1beta1`, webhook.caBundle) },
    });
    const down = await startServer({
      port: 0,
      dataDir: join(dir, 'data-down'),
      storage: { type: 'memory' },
      // Port 1 on loopback: nothing listens, so every attempt is refused at once.
      authenticationTokenWebhook: { configFile: kubeconfigFor(dir, 'down', 'https://127.0.0.1:1/authenticate', webhook.caBundle), retry: FAST_RETRY },
    });
    try {
      const r = await client(other)('POST', '/apis/authentication.orch.io/v1/selfsubjectreviews', {
        token: 'tok-alice',
        body: { apiVersion: 'authentication.orch.io/v1', kind: 'SelfSubjectReview' },
      });
      assert.equal(r.status, 201, r.text);
      const i = webhook.paths.lastIndexOf('/v1beta1');
      assert.equal((webhook.reviews[i] as any).apiVersion, 'authentication.orch.io/v1beta1');
      const d = await client(down)('GET', '/api', { token: 'tok-alice' });
      assert.equal(d.status, 401, d.text);
      assert.equal((await client(down)('GET', '/api')).status, 200, 'the admin token still works');
    } finally {
      await other.close();
      await down.close();
    }
  });

  it('reference behaviour: a bad webhook kubeconfig stops the process at start-up, naming the flag and the file', async () => {
    const bad = join(dir, 'bad.kubeconfig');
    writeFileSync(bad, 'clusters:\n- name: c\n  cluster:\n    server: ftp://example\n');
    const stderr = await failsToStart([`--data-dir=${join(dir, 'proc')}`, '--storage-backend=memory', `--authentication-token-webhook-config-file=${bad}`]);
    assert.match(stderr, new RegExp(`--authentication-token-webhook-config-file ${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: cluster.server: Invalid value "ftp://example`));
  });

  describe('service account issuer discovery', () => {
    let saToken: string;
    before(async () => {
      const sa = await call('POST', '/api/v1/namespaces/default/serviceaccounts', { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'verifier' } } });
      assert.equal(sa.status, 201, sa.text);
      const tr = await call('POST', '/api/v1/namespaces/default/serviceaccounts/verifier/token', {
        body: { apiVersion: 'authentication.orch.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
      });
      assert.equal(tr.status, 201, tr.text);
      saToken = tr.json.status.token;
    });

    it('reference behaviour: a service account reads the discovery document (application/json, cached an hour)', async () => {
      const r = await as(saToken)('GET', '/.well-known/openid-configuration');
      assert.equal(r.status, 200, r.text);
      assert.equal(r.headers['content-type'], 'application/json');
      assert.equal(r.headers['cache-control'], 'public, max-age=3600');
      assert.deepEqual(r.json, {
        issuer: 'https://orch-apiserver.orch-system.svc',
        jwks_uri: `${server.url}/openid/v1/jwks`,
        response_types_supported: ['id_token'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['ES256'],
      });
    });

    it('reference behaviour: the JWKS (application/jwk-set+json) verifies an issued token with node:crypto', async () => {
      const r = await as(saToken)('GET', '/openid/v1/jwks');
      assert.equal(r.status, 200, r.text);
      assert.equal(r.headers['content-type'], 'application/jwk-set+json');
      assert.equal(r.headers['cache-control'], 'public, max-age=3600');
      const [h, p, s] = saToken.split('.') as [string, string, string];
      const header = JSON.parse(Buffer.from(h, 'base64url').toString());
      const jwk = r.json.keys.find((k: { kid: string }) => k.kid === header.kid);
      assert.ok(jwk, `the token's kid ${header.kid} is in the key set`);
      const key = createPublicKey({ key: jwk, format: 'jwk' });
      assert.equal(verify('sha256', Buffer.from(`${h}.${p}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(s, 'base64url')), true);
      assert.equal(verify('sha256', Buffer.from(`${h}.${p}x`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(s, 'base64url')), false);
    });

    it('reference behaviour: anonymous users are forbidden until the role is bound to them', async () => {
      assert.equal((await as(null)('GET', '/.well-known/openid-configuration')).status, 403);
      assert.equal((await as(null)('GET', '/openid/v1/jwks')).status, 403);
      const bound = await call('POST', `/apis/${RBAC}/v1/clusterrolebindings`, {
        body: {
          apiVersion: `${RBAC}/v1`,
          kind: 'ClusterRoleBinding',
          metadata: { name: 'public-issuer-discovery' },
          roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'system:service-account-issuer-discovery' },
          subjects: [{ kind: 'Group', apiGroup: RBAC, name: 'system:unauthenticated' }],
        },
      });
      assert.equal(bound.status, 201, bound.text);
      const deadline = Date.now() + 5000;
      let status = 0;
      while (Date.now() < deadline && (status = (await as(null)('GET', '/openid/v1/jwks')).status) !== 200) await new Promise((r) => setTimeout(r, 50));
      assert.equal(status, 200);
      assert.equal((await as(null)('GET', '/.well-known/openid-configuration/')).status, 200, 'with a trailing slash too');
    });
  });
});

describe('the token webhook and JWKS URI flags (reference behaviour)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-authn-flags-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const good = join(dir, 'flags.kubeconfig');
  writeFileSync(good, 'clusters:\n- name: authn\n  cluster:\n    server: https://127.0.0.1:1/authenticate\n');
  const server = (argv: string[]) => {
    const cli = parseFlags(['--storage-backend=memory', ...argv]);
    assert.notEqual(cli, 'help');
    return (cli as Exclude<typeof cli, 'help'>).server;
  };

  it('reference behaviour: the three webhook flags become one option; the TTL is a duration', () => {
    const opts = server([`--authentication-token-webhook-config-file=${good}`, '--authentication-token-webhook-version=v1', '--authentication-token-webhook-cache-ttl=30s']);
    assert.deepEqual(opts.authenticationTokenWebhook, { configFile: good, version: 'v1', cacheTtlMs: 30_000 });
    assert.equal(server([]).authenticationTokenWebhook, undefined);
  });

  const refused: [string, string[], RegExp][] = [
    ['an unknown version', [`--authentication-token-webhook-config-file=${good}`, '--authentication-token-webhook-version=v2'], /^--authentication-token-webhook-version: unsupported TokenReview version "v2"/],
    ['a version without the file', ['--authentication-token-webhook-version=v1'], /^--authentication-token-webhook-version: needs --authentication-token-webhook-config-file/],
    ['a TTL without the file', ['--authentication-token-webhook-cache-ttl=1m'], /^--authentication-token-webhook-cache-ttl: needs --authentication-token-webhook-config-file/],
    ['a bad TTL', [`--authentication-token-webhook-config-file=${good}`, '--authentication-token-webhook-cache-ttl=soon'], /^--authentication-token-webhook-cache-ttl: invalid duration/],
    ['a missing file', [`--authentication-token-webhook-config-file=${join(dir, 'none')}`], /^--authentication-token-webhook-config-file .*none: cannot be read/],
    ['an http JWKS URI', ['--service-account-jwks-uri=http://keys.example/jwks'], /^--service-account-jwks-uri: .* must use the https scheme/],
  ];
  for (const [name, argv, re] of refused) {
    it(`reference behaviour: ${name} is a start-up error naming the flag`, () => assert.throws(() => parseFlags(argv), (e: Error) => re.test(e.message)));
  }

  it('reference behaviour: an https JWKS URI is taken as given', () => {
    assert.equal(server(['--service-account-jwks-uri=https://keys.example/jwks']).serviceAccountJwksUri, 'https://keys.example/jwks');
  });
});
