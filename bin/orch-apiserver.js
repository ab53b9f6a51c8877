#!/usr/bin/env node
// The API server, run from its bundle (see bundled.js). `--naming=k8s` runs a bundle built with the
// reference's spellings (workers are forked with the same arguments, so they load the same bundle); the flag
// parser still checks the value, so an unknown one fails there with the usual message.
import { join } from 'node:path';
import { loadBundled, writeServerRuntimeFiles } from './bundled.js';

/** The value of `--naming` (`--naming=X` or `--naming X`), if it names a bundle other than the default. */
function namingArg(argv) {
  let value;
  argv.forEach((a, i) => {
    if (a.startsWith('--naming=')) value = a.slice('--naming='.length);
    else if (a === '--naming') value = argv[i + 1];
  });
  return value === 'k8s' ? value : 'orch';
}

await loadBundled('orch-apiserver', join('cmd', 'apiserver.ts'), writeServerRuntimeFiles, namingArg(process.argv.slice(2)));
