import assert from 'node:assert/strict';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startOidcIssuer, type OidcIssuer } from '../../../test/helpers/oidc-issuer.js';
import { startJwtAuthentication } from './options.js';
import type { JwtAuthentication } from './authentication.js';

const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
const until = async (what: string, f: () => boolean | Promise<boolean>, ms = 8000) => {
  const deadline = Date.now() + ms;
  while (!(await f())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

describe('--authentication-config reload (spec 5.5: reloaded automatically)', () => {
  let issuer: OidcIssuer;
  let dir: string;
  let file: string;
  let auth: JwtAuthentication | undefined;
  const logs: string[] = [];
  const configWith = (prefix: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      apiVersion: 'apiserver.config.orch.io/v1beta1',
      kind: 'AuthenticationConfiguration',
      jwt: [{ issuer: { url: issuer.url, certificateAuthority: issuer.caPem, audiences: ['orch-test'] }, claimMappings: { username: { claim: 'sub', prefix } }, ...extra }],
    });
  const usernameOf = async (token: string) => {
    try {
      return (await auth!.authenticate(bearer(token)))?.username;
    } catch {
      return '<401>';
    }
  };

  before(async () => {
    issuer = await startOidcIssuer();
    dir = mkdtempSync(join(tmpdir(), 'orch-authn-reload-'));
    file = join(dir, 'authn.yaml');
    writeFileSync(file, configWith('one:'));
    auth = startJwtAuthentication({ authenticationConfigFile: file, serviceAccountIssuers: [] }, { log: (m) => logs.push(m), pollIntervalMs: 200, cacheTtlMs: 0 });
  });
  after(async () => {
    auth?.stop();
    await issuer.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('spec 5.5: a valid new file takes effect within seconds, with the reload time recorded; keys are kept', async () => {
    const token = issuer.mint({ sub: 'ann' });
    await until('keys', async () => (await usernameOf(token)) === 'one:ann');
    assert.equal(auth!.lastReloadTimestampSeconds, undefined, 'no automatic reload yet');
    const fetches = issuer.calls.jwks;
    const t0 = Math.floor(Date.now() / 1000);
    writeFileSync(file, configWith('two:'));
    await until('reloaded', async () => (await usernameOf(token)) === 'two:ann');
    assert.ok((auth!.lastReloadTimestampSeconds ?? 0) >= t0);
    assert.equal(issuer.calls.jwks, fetches, 'the same issuer keeps its keys across a reload');
  });

  it('spec 5.5: an invalid new file is logged and the previous configuration stays', async () => {
    const token = issuer.mint({ sub: 'ben' });
    const stamp = auth!.lastReloadTimestampSeconds;
    writeFileSync(file, configWith('three:', { claimValidationRules: [{ claim: 'a', expression: 'true' }] }));
    await until('logged', () => logs.some((l) => l.includes("claim and expression can't both be set") && l.includes('keeping the current configuration')));
    assert.equal(await usernameOf(token), 'two:ben');
    assert.equal(auth!.lastReloadTimestampSeconds, stamp);
    assert.ok(logs.find((l) => l.includes('keeping'))!.startsWith(`--authentication-config ${file}: `));
  });

  it('reference behaviour: a file replaced by rename (editors, mounted volumes) is picked up too', async () => {
    const token = issuer.mint({ sub: 'cy' });
    const next = join(dir, 'authn.yaml.tmp');
    writeFileSync(next, configWith('four:'));
    renameSync(next, file);
    await until('reloaded after rename', async () => (await usernameOf(token)) === 'four:cy');
  });

  it('spec 5.5: removing every issuer from the file turns JWT authentication off (no opinion)', async () => {
    writeFileSync(file, JSON.stringify({ apiVersion: 'apiserver.config.orch.io/v1beta1', kind: 'AuthenticationConfiguration', jwt: [] }));
    const token = issuer.mint({ sub: 'dee' });
    await until('emptied', () => auth!.configs.length === 0);
    assert.equal(await auth!.authenticate(bearer(token)), undefined);
  });
});
