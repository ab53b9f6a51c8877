#!/usr/bin/env node
// The API server, run from its bundle (see bundled.js).
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleTo, loadBundled, outDir, src } from './bundled.js';

await loadBundled('orch-apiserver', join('cmd', 'apiserver.ts'), async (build) => {
  // Files the bundle loads at run time, next to it: the SQLite writer thread's entry and etcd's proto.
  await bundleTo(build, join(src, 'storage', 'sqlite', 'sqlite-writer.ts'), join(outDir, 'sqlite-writer.mjs'));
  copyFileSync(join(src, 'storage', 'etcd', 'etcd.proto'), join(outDir, 'etcd.proto'));
});
