#!/usr/bin/env node
// `orch-test-env`: API servers for test suites in any language, run from its bundle (see bundled.js).
import { join } from 'node:path';
import { loadBundled, writeServerRuntimeFiles } from './bundled.js';

const { main } = await loadBundled('orch-test-env', join('cmd', 'test-env.ts'), writeServerRuntimeFiles);
await main(process.argv.slice(2));
