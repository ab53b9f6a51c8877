import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Runs the real kubectl (from PATH) with the given kubeconfig; resolves stdout, rejects with stderr. */
export function kubectl(kubeconfig: string) {
  return async (args: string[], input?: string): Promise<string> => {
    const child = run('kubectl', ['--kubeconfig', kubeconfig, ...args], { timeout: 30_000, maxBuffer: 16 * 1024 * 1024 });
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
