#!/usr/bin/env node
// `orch-config validate FILE...`, run from its bundle (see bundled.js).
import { join } from 'node:path';
import { loadBundled } from './bundled.js';

const { runConfigCommand } = await loadBundled('orch-config', join('cmd', 'config.ts'));
process.exitCode = runConfigCommand(process.argv.slice(2), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
});
