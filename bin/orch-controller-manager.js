#!/usr/bin/env node
// The controller manager, run from its bundle (see bundled.js); it needs none of the server's run-time files.
import { join } from 'node:path';
import { loadBundled } from './bundled.js';

await loadBundled('orch-controller-manager', join('cmd', 'controller-manager.ts'));
