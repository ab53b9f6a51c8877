/**
 * `npx tsx scripts/kms-plugin.ts --socket /tmp/kms.sock [--key-file kms.key]`: a local KMS plugin (v2 and
 * v1beta1 APIs) for trying the `kms` encryption provider. Its key lives in --key-file (created with a random
 * 32-byte key when missing) so that data stays readable across restarts; without --key-file the key is
 * random and everything encrypted with it is lost when the plugin stops. For trials only: the key sits in a
 * plain file.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { startKmsPlugin } from '../test/helpers/kms-plugin.js';

const USAGE = 'usage: npx tsx scripts/kms-plugin.ts --socket <path> [--key-file <path>]\n';

function fail(message: string): never {
  process.stderr.write(`kms-plugin: ${message}\n${USAGE}`);
  process.exit(2);
}

let values: { socket?: string; 'key-file'?: string; help?: boolean };
try {
  ({ values } = parseArgs({ options: { socket: { type: 'string' }, 'key-file': { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true }));
} catch (e) {
  fail((e as Error).message);
}
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
if (!values.socket) fail('--socket is required');

function loadKey(path: string): Buffer {
  if (!existsSync(path)) {
    const key = randomBytes(32);
    writeFileSync(path, `${key.toString('base64')}\n`, { mode: 0o600 });
    return key;
  }
  const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
  if (key.length !== 32) fail(`--key-file ${path}: expected a base64 32-byte key, found ${key.length} bytes`);
  return key;
}

const key = values['key-file'] ? loadKey(values['key-file']) : undefined;
const plugin = await startKmsPlugin({ socketPath: values.socket, ...(key ? { key } : {}) });
process.stdout.write(`KMS plugin serving v2 and v1beta1 on ${plugin.endpoint} (key id ${plugin.keyId})\n`);
const shutdown = () => void plugin.close().then(() => process.exit(0));
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
