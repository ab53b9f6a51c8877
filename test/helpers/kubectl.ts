import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Runs the real kubectl (from PATH) with the given kubeconfig; resolves stdout, rejects with stderr. Each
 * helper has its own discovery cache: kubectl keys the shared one by host and port, which test servers reuse,
 * so a server could otherwise be shown an earlier server's resource list.
 */
export function kubectl(kubeconfig: string) {
  const cacheDir = mkdtempSync(join(tmpdir(), 'orch-kubectl-cache-'));
  return async (args: string[], input?: string): Promise<string> => {
    const child = run('kubectl', ['--kubeconfig', kubeconfig, '--cache-dir', cacheDir, ...args], { timeout: 30_000, maxBuffer: 16 * 1024 * 1024 });
    if (input !== undefined) {
      child.child.stdin?.end(input);
    }
    try {
      return (await child).stdout;
    } catch (e) {
      const err = e as { stderr?: string; stdout?: string; message: string };
      throw new Error(`kubectl ${args.join(' ')} failed: ${err.stderr || err.message}`);
    }
  };
}
