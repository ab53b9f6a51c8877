/**
 * Exec credential plugins used through the real `bin/orchctl.js` process (spec 2.10, 5.6): one plugin run
 * per orchctl run while the answer is valid, a new run when it has expired or after a 401, the
 * ExecCredential handed to the plugin, the interactive modes, and each failure ending orchctl with exit 1
 * and a message naming the plugin.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CLIENT_AUTHENTICATION_GROUP, EXEC_INFO_ENV } from '../src/api/naming.js';
import { startServer, type TestServer } from '../src/index.js';
import { ORCHCTL_BIN, orchctlProcess, type CliResult } from './helpers/orchctl.js';

const V1 = `${CLIENT_AUTHENTICATION_GROUP}/v1`;

/**
 * Counts its runs in $COUNT_FILE, keeps the ExecCredential it was given in $INFO_FILE, and answers as
 * $MODE says: the admin token ($TOKEN), with $EXPIRES as expiry when set; a wrong token on its first run;
 * or one of the broken answers.
 */
const PLUGIN = `#!/usr/bin/env node
const fs = require('node:fs');
const e = process.env;
const n = (fs.existsSync(e.COUNT_FILE) ? Number(fs.readFileSync(e.COUNT_FILE, 'utf8')) : 0) + 1;
fs.writeFileSync(e.COUNT_FILE, String(n));
const info = JSON.parse(e.${EXEC_INFO_ENV});
fs.writeFileSync(e.INFO_FILE, JSON.stringify({ info, stdinIsTTY: process.stdin.isTTY === true }));
const answer = (status, over = {}) => process.stdout.write(JSON.stringify({ apiVersion: info.apiVersion, kind: 'ExecCredential', status, ...over }));
switch (e.MODE) {
  case 'token': answer(e.EXPIRES ? { token: e.TOKEN, expirationTimestamp: e.EXPIRES } : { token: e.TOKEN }); break;
  case 'wrong-first': answer({ token: n === 1 ? 'not-a-valid-token' : e.TOKEN }); break;
  case 'fail': process.stderr.write('session ended, log in again'); process.exit(4);
  case 'nojson': process.stdout.write('plain words'); break;
  case 'wrongversion': answer({ token: e.TOKEN }, { apiVersion: '${CLIENT_AUTHENTICATION_GROUP}/v1beta1' }); break;
}
`;

interface PluginSetup {
  kubeconfig: string;
  runs(): number;
  seen(): { info: { apiVersion: string; kind: string; spec: Record<string, unknown> }; stdinIsTTY: boolean };
}

describe('orchctl with an exec credential plugin (spec 2.10, 5.6)', () => {
  let server: TestServer;
  let dir: string;
  let plugin: string;
  let seq = 0;

  before(async () => {
    server = await startServer({});
    dir = mkdtempSync(join(tmpdir(), 'orchctl-exec-'));
    plugin = join(dir, 'plugin.cjs');
    writeFileSync(plugin, PLUGIN);
    chmodSync(plugin, 0o755);
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A kubeconfig whose only user runs the plugin in `mode`, with its own count and info files. */
  const setup = (mode: string, exec: Record<string, unknown> = {}, extraEnv: Record<string, string> = {}): PluginSetup => {
    const id = ++seq;
    const count = join(dir, `count-${id}`);
    const info = join(dir, `info-${id}`);
    const env = Object.entries({ MODE: mode, COUNT_FILE: count, INFO_FILE: info, TOKEN: server.tokens.admin!, ...extraEnv }).map(([name, value]) => ({ name, value }));
    const doc = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: server.url, 'certificate-authority-data': Buffer.from(server.caCertPem).toString('base64') } }],
      users: [{ name: 'plugged', user: { exec: { command: plugin, apiVersion: V1, interactiveMode: 'Never', env, ...exec } } }],
      contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'plugged' } }],
      'current-context': 'ctx',
    };
    const kubeconfig = join(dir, `kubeconfig-${id}`);
    // JSON (a YAML subset) keeps the expiry a string: YAML 1.1 would read an unquoted one as a timestamp.
    writeFileSync(kubeconfig, JSON.stringify(doc));
    return {
      kubeconfig,
      runs: () => (existsSync(count) ? Number(readFileSync(count, 'utf8')) : 0),
      seen: () => JSON.parse(readFileSync(info, 'utf8')) as ReturnType<PluginSetup['seen']>,
    };
  };
  // Several requests in one run: discovery, then one list per kind.
  const manyRequests = ['get', 'configmaps,secrets,serviceaccounts', '-n', 'default', '-o', 'name'];
  const run = (p: PluginSetup, args: string[]) => orchctlProcess(p.kubeconfig, args, { env: { PATH: process.env.PATH, HOME: dir } });

  it('spec 2.10: every request of one orchctl run uses one plugin answer while it is valid', async () => {
    const p = setup('token', {}, { EXPIRES: new Date(Date.now() + 3_600_000).toISOString() });
    const r = await run(p, manyRequests);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /serviceaccount\/default/);
    assert.equal(p.runs(), 1);
  });

  it('spec 2.10: an expired answer is fetched again for the next request', async () => {
    const p = setup('token', {}, { EXPIRES: new Date(Date.now() - 60_000).toISOString() });
    const r = await run(p, manyRequests);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(p.runs() >= 3, `plugin ran ${p.runs()} times for at least three requests`);
  });

  it('spec 2.10: a 401 makes the plugin run exactly once more and the command succeeds', async () => {
    const p = setup('wrong-first');
    const r = await run(p, ['get', 'configmaps', '-n', 'default', '-o', 'name']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(p.runs(), 2);
  });

  it(`spec 2.10: provideClusterInfo puts the cluster into ${EXEC_INFO_ENV}; without it spec has no cluster`, async () => {
    const withInfo = setup('token', { provideClusterInfo: true });
    assert.equal((await run(withInfo, ['get', 'namespaces', '-o', 'name'])).code, 0);
    const seen = withInfo.seen().info;
    assert.equal(seen.apiVersion, V1);
    assert.equal(seen.kind, 'ExecCredential');
    assert.equal(seen.spec.interactive, false);
    const cluster = seen.spec.cluster as Record<string, unknown>;
    assert.equal(cluster.server, server.url);
    assert.equal(cluster['certificate-authority-data'], Buffer.from(server.caCertPem).toString('base64'));

    const without = setup('token');
    assert.equal((await run(without, ['get', 'namespaces', '-o', 'name'])).code, 0);
    assert.deepEqual(without.seen().info.spec, { interactive: false });
  });

  it('spec 2.10: interactiveMode Never and IfAvailable without a terminal run the plugin non-interactively', async () => {
    for (const mode of ['Never', 'IfAvailable']) {
      const p = setup('token', { interactiveMode: mode });
      const r = await run(p, ['get', 'namespaces', '-o', 'name']);
      assert.equal(r.code, 0, `${mode}: ${r.stderr}`);
      assert.equal(p.seen().info.spec.interactive, false, mode);
      assert.equal(p.seen().stdinIsTTY, false, mode);
    }
  });

  it('spec 2.10: interactiveMode Always without a terminal exits 1 naming the plugin, without running it', async () => {
    const p = setup('token', { interactiveMode: 'Always' });
    const r = await run(p, ['get', 'namespaces']);
    assert.equal(r.code, 1);
    assert.ok(r.stderr.includes(`exec plugin "${plugin}"`), r.stderr);
    assert.match(r.stderr, /terminal/);
    assert.equal(p.runs(), 0);
  });

  /** orchctl under `script`, so that its standard input is a terminal. */
  const runInTerminal = (p: PluginSetup, args: string[]) =>
    new Promise<CliResult>((resolve) => {
      const command = [process.execPath, ORCHCTL_BIN, '--kubeconfig', p.kubeconfig, ...args].map((a) => `'${a}'`).join(' ');
      execFile('script', ['-qec', command, '/dev/null'], { env: { PATH: process.env.PATH, HOME: dir }, timeout: 60_000 }, (err, stdout, stderr) => {
        resolve({ code: err ? Number((err as { code?: unknown }).code ?? 1) : 0, stdout, stderr });
      });
    });

  it('spec 2.10: IfAvailable and Always with a terminal run the plugin interactively, with the terminal as its stdin', async () => {
    for (const mode of ['IfAvailable', 'Always']) {
      const p = setup('token', { interactiveMode: mode });
      const r = await runInTerminal(p, ['get', 'namespaces', '-o', 'name']);
      assert.equal(r.code, 0, `${mode}: ${r.stdout}${r.stderr}`);
      assert.equal(p.seen().info.spec.interactive, true, mode);
      assert.equal(p.seen().stdinIsTTY, true, mode);
    }
  });

  const failures: { title: string; mode: string; exec?: Record<string, unknown>; message: RegExp }[] = [
    { title: 'a non-zero exit (with its stderr)', mode: 'fail', message: /exited with code 4: session ended, log in again/ },
    { title: 'output that is not JSON', mode: 'nojson', message: /did not print an ExecCredential in JSON/ },
    { title: 'an answer in another apiVersion', mode: 'wrongversion', message: /answered apiVersion "[^"]*\/v1beta1", but it is configured for [^ ]*\/v1/ },
  ];
  for (const f of failures) {
    it(`spec 2.10: ${f.title} exits 1 with a message naming the plugin`, async () => {
      const p = setup(f.mode, f.exec);
      const r = await run(p, ['get', 'namespaces']);
      assert.equal(r.code, 1);
      assert.equal(r.stdout, '');
      assert.ok(r.stderr.includes(`exec plugin "${plugin}" of user "plugged"`), r.stderr);
      assert.match(r.stderr, f.message);
    });
  }

  it('spec 2.10: a missing plugin exits 1 naming it and printing its installHint', async () => {
    const missing = join(dir, 'no-such-plugin');
    const p = setup('token', { command: missing, installHint: 'install it with: get-the-plugin --now' });
    const r = await run(p, ['get', 'namespaces']);
    assert.equal(r.code, 1);
    assert.ok(r.stderr.includes(`exec plugin "${missing}"`), r.stderr);
    assert.match(r.stderr, /was not found/);
    assert.match(r.stderr, /install it with: get-the-plugin --now/);
  });
});
