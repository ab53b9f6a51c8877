#!/usr/bin/env node
// orchctl, the command-line client, run from its bundle (see bundled.js): no build step for users.
import { join } from 'node:path';
import { loadBundled } from './bundled.js';

const { main } = await loadBundled('orchctl', join('cli', 'main.ts'));
await main();
