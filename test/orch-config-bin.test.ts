import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../bin/orch-config.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'orch-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

function run(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const PROXY = 'apiVersion: orchproxy.config.orch.io/v1alpha1\nkind: OrchProxyConfiguration\n';
const CM = 'apiVersion: orchcontrollermanager.config.orch.io/v1alpha1\nkind: OrchControllerManagerConfiguration\n';

describe('orch-config validate (process)', () => {
  it('spec 2.12: valid files print "FILE: ok" and exit 0', () => {
    const a = file('a.yaml', `${PROXY}mode: iptables\n---\n${CM}`);
    const b = file('b.json', JSON.stringify({ apiVersion: 'audit.orch.io/v1', kind: 'Policy', rules: [{ level: 'Metadata' }] }));
    const r = run('validate', a, b);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${a}: ok\n${b}: ok\n`);
  });

  it('spec 2.12: every error is listed with file, document number, kind and field path; exit 1', () => {
    const good = file('good.yaml', PROXY);
    const bad = file('bad.yaml', `${PROXY}iptables: {masqueradeBit: 40, syncPeriod: 0s}\n---\n${CM}DeploymentController: {ConcurrentDeploymentSyncs: 0}\n`);
    const r = run('validate', good, bad);
    assert.equal(r.code, 1, r.stderr);
    assert.deepEqual(r.stdout.trim().split('\n'), [
      `${good}: ok`,
      `${bad}: document 1 (OrchProxyConfiguration): iptables.masqueradeBit: Invalid value: 40: must be in the range 0 to 31`,
      `${bad}: document 1 (OrchProxyConfiguration): iptables.syncPeriod: Invalid value: "0s": must be greater than 0`,
      `${bad}: document 2 (OrchControllerManagerConfiguration): DeploymentController.ConcurrentDeploymentSyncs: Invalid value: 0: must be greater than 0`,
    ]);
  });

  it('spec 2.12: a file that cannot be read is an invalid file (exit 1)', () => {
    const missing = join(dir, 'missing.yaml');
    const r = run('validate', missing);
    assert.equal(r.code, 1);
    assert.match(r.stdout, new RegExp(`^${missing.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: cannot be read`));
  });

  it('spec 2.12: usage errors exit 2 with the usage text', () => {
    const cases: [string[], RegExp][] = [
      [[], /a command is required/],
      [['check', 'x.yaml'], /unknown command "check"/],
      [['validate'], /name at least one FILE/],
      [['validate', '--strict', 'x.yaml'], /unknown flag --strict/],
    ];
    for (const [args, message] of cases) {
      const r = run(...args);
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.stderr, message);
      assert.match(r.stderr, /Usage: orch-config validate FILE\.\.\./);
    }
  });

  it('reference behaviour: --help prints the usage and exits 0', () => {
    const r = run('--help');
    assert.equal(r.code, 0);
    assert.match(r.stdout, /Usage: orch-config validate FILE\.\.\./);
  });
});
