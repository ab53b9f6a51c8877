import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { parseTestEnvFlags, shellQuote } from '../src/cmd/test-env.js';

const BIN = join(import.meta.dirname, '..', 'bin', 'orch-test-env.js');
const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** Runs orch-test-env until its output says "# ready"; resolves with that output and the process. */
function start(args: string[]): Promise<{ out: string; proc: ChildProcess; exited: Promise<number | null> }> {
  const proc = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`orch-test-env not ready in 90 s: ${err}`)), 90_000);
    proc.stderr!.on('data', (c) => (err += c));
    proc.stdout!.on('data', (c) => {
      out += c;
      if (out.includes('# ready\n')) {
        clearTimeout(timer);
        resolve({ out, proc, exited });
      }
    });
    void exited.then((code) => reject(new Error(`orch-test-env exited with ${code}: ${err}`)));
  });
}

async function namespaces(kubeconfigText: string): Promise<string[]> {
  const kc = new k8s.KubeConfig();
  kc.loadFromString(kubeconfigText);
  const list = await kc.makeApiClient(k8s.CoreV1Api).listNamespace();
  return list.items.map((n) => n.metadata!.name!);
}

describe('orch-test-env (issue 21: servers for test suites in any language)', () => {
  it('starts two k8s-named servers, prints KUBECONFIG lines, serves them, and exits 0 on SIGTERM', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orch-test-env-'));
    dirs.push(dir);
    const { out, proc, exited } = await start(['--servers', '2', '--print-env', '--write-kubeconfig', dir]);
    const env = Object.fromEntries(out.split('\n').filter((l) => l.includes('=')).map((l) => l.split('=') as [string, string]));
    assert.equal(env.KUBECONFIG, join(dir, 'server-1.kubeconfig'));
    assert.equal(env.KUBECONFIG_2, join(dir, 'server-2.kubeconfig'));
    const one = readFileSync(env.KUBECONFIG_1!, 'utf8');
    const two = readFileSync(env.KUBECONFIG_2!, 'utf8');
    assert.notEqual(one, two);
    // The reference naming by default: the system namespace is kube-system.
    assert.ok((await namespaces(one)).includes('kube-system'));
    assert.ok((await namespaces(two)).includes('kube-system'));
    proc.kill('SIGTERM');
    assert.equal(await exited, 0);
  });

  it('prints the kubeconfig itself by default; --naming orch and --storage sqlite are passed through; SIGINT exits 0', { timeout: 120_000 }, async () => {
    const { out, proc, exited } = await start(['--naming=orch', '--storage=sqlite']);
    assert.match(out, /^# server 1: https:\/\/127\.0\.0\.1:\d+\napiVersion: v1\nkind: Config\n/);
    assert.ok((await namespaces(out)).includes('orch-system'));
    proc.kill('SIGINT');
    assert.equal(await exited, 0);
  });

  it('a bad flag fails with exit 1 and a message naming the flag', { timeout: 120_000 }, async () => {
    const proc = spawn(process.execPath, [BIN, '--servers', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    proc.stderr.on('data', (c) => (err += c));
    const code = await new Promise((r) => proc.on('exit', r));
    assert.equal(code, 1);
    assert.match(err, /--servers: "0" must be a whole number from 1 to 64/);
  });
});

describe('orch-test-env flags (pure)', () => {
  it('parses every flag in both forms and rejects bad ones naming the flag', () => {
    assert.deepEqual(parseTestEnvFlags([]), { servers: 1, naming: 'k8s', storage: 'memory', printEnv: false });
    assert.deepEqual(parseTestEnvFlags(['--servers=3', '--naming', 'orch', '--storage', 'sqlite', '--write-kubeconfig=/x', '--print-env']), { servers: 3, naming: 'orch', storage: 'sqlite', writeKubeconfig: '/x', printEnv: true });
    assert.equal(parseTestEnvFlags(['--help']), 'help');
    const bad: [string[], RegExp][] = [
      [['--servers', '65'], /--servers: "65" must be/],
      [['--servers', 'x'], /--servers: "x"/],
      [['--naming', 'kube'], /--naming: "kube" must be one of orch, k8s/],
      [['--storage', 'etcd'], /--storage: "etcd" must be memory or sqlite/],
      [['--write-kubeconfig'], /--write-kubeconfig: a value is required/],
      [['--print-env=yes'], /--print-env: takes no value/],
      [['--port', '1'], /--port: unknown flag/],
    ];
    for (const [argv, re] of bad) assert.throws(() => parseTestEnvFlags(argv), re);
  });
  it('quotes shell values only when needed', () => {
    assert.equal(shellQuote('/tmp/a-b/c.kubeconfig'), '/tmp/a-b/c.kubeconfig');
    assert.equal(shellQuote("/tmp/it's here"), `'/tmp/it'\\''s here'`);
  });
});
