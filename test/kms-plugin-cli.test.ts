/**
 * The local KMS plugin users start with `npx tsx scripts/kms-plugin.ts` (README): it serves on the socket,
 * keeps its key in --key-file so data stays readable across restarts, and rejects bad arguments.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createKmsProvider } from '../src/encryption/kms/index.js';

const SCRIPT = new URL('../scripts/kms-plugin.ts', import.meta.url).pathname;
const AD = new TextEncoder().encode('/registry/secrets/default/s');

function run(args: string[]): { child: ChildProcess; output: Promise<{ code: number | null; out: string; err: string }>; ready: Promise<string> } {
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('\n')) resolve(out);
    });
    child.on('exit', () => reject(new Error(`plugin exited: ${err}`)));
  });
  ready.catch(() => undefined);
  child.stderr?.on('data', (c: Buffer) => (err += c.toString()));
  const output = new Promise<{ code: number | null; out: string; err: string }>((resolve) => child.on('exit', (code) => resolve({ code, out, err })));
  return { child, output, ready };
}

describe('spec 2.12: local KMS plugin command', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'orch-kms-cli-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('spec 2.12: serves KMS v2 on the socket and, with the same --key-file, reads its values after a restart', async () => {
    const socket = join(dir, 'kms.sock');
    const keyFile = join(dir, 'kms.key');
    const first = run(['--socket', socket, '--key-file', keyFile]);
    assert.match(await first.ready, new RegExp(`serving v2 and v1beta1 on unix://${socket} \\(key id key-[0-9a-f]{12}\\)`));
    const writer = await createKmsProvider({ apiVersion: 'v2', name: 'local', endpoint: socket, timeoutMs: 2000 });
    const sealed = await writer.encrypt(new TextEncoder().encode('kept'), AD);
    writer.close?.();
    first.child.kill('SIGTERM');
    assert.equal((await first.output).code, 0);

    const second = run(['--socket', socket, '--key-file', keyFile]);
    await second.ready;
    const reader = await createKmsProvider({ apiVersion: 'v2', name: 'local', endpoint: socket, timeoutMs: 2000 });
    try {
      assert.equal(Buffer.from(await reader.decrypt(sealed, AD)).toString(), 'kept');
    } finally {
      reader.close?.();
      second.child.kill('SIGTERM');
      await second.output;
    }
  });

  const BAD: [string, (d: string) => Promise<string[]>, RegExp][] = [
    ['no --socket', async () => [], /kms-plugin: --socket is required/],
    ['an unknown flag', async (d) => ['--socket', join(d, 'x.sock'), '--bogus'], /kms-plugin: .*bogus/],
    [
      'a key file that does not hold 32 bytes',
      async (d) => {
        await writeFile(join(d, 'short.key'), Buffer.alloc(8).toString('base64'));
        return ['--socket', join(d, 'y.sock'), '--key-file', join(d, 'short.key')];
      },
      /--key-file .*short\.key: expected a base64 32-byte key, found 8 bytes/,
    ],
  ];
  for (const [name, args, why] of BAD) {
    it(`reference behaviour: the plugin command refuses ${name} with exit code 2`, async () => {
      const { output } = run(await args(dir));
      const { code, err } = await output;
      assert.equal(code, 2);
      assert.match(err, why);
    });
  }
});
