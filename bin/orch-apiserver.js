#!/usr/bin/env node
// Runs the server from one ESM bundle of src/, built by esbuild into node_modules/.cache/orch on the first
// start and again whenever a source file is newer than it. No build step for users, and compared with
// loading ~150 TypeScript modules through a runtime loader it starts in about half the time; it also leaves
// out the per-closure name-keeping wrappers that loader adds to every request's hot path.
import { copyFileSync, mkdirSync, readdirSync, renameSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const outDir = join(root, 'node_modules', '.cache', 'orch');
const bundle = join(outDir, 'orch-apiserver.mjs');

/** Newest modification time of any file under `dir` (ms). */
function newest(dir) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

function builtAt() {
  try {
    return statSync(bundle).mtimeMs;
  } catch {
    return -1;
  }
}

/** Bundles `entry` into `outFile`: built to a private name, then renamed, so processes starting at the same time never see half a file. */
async function bundleTo(build, entry, outFile) {
  const tmp = `${outFile}.${process.pid}.tmp`;
  await build({
    entryPoints: [entry],
    outfile: tmp,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: 'inline',
    logLevel: 'error',
  });
  renameSync(tmp, outFile);
}

async function buildBundle() {
  const { build } = await import('esbuild');
  mkdirSync(outDir, { recursive: true });
  // Files the bundle loads at run time, next to it: the SQLite writer thread's entry and etcd's proto.
  await bundleTo(build, join(src, 'storage', 'sqlite', 'sqlite-writer.ts'), join(outDir, 'sqlite-writer.mjs'));
  copyFileSync(join(src, 'storage', 'etcd', 'etcd.proto'), join(outDir, 'etcd.proto'));
  await bundleTo(build, join(src, 'cmd', 'apiserver.ts'), bundle); // last: its time stamp marks the build done
}

let useBundle = true;
if (builtAt() < newest(src)) {
  try {
    await buildBundle();
  } catch (e) {
    // A read-only install, say: run the sources through the TypeScript loader instead (slower to start).
    process.stderr.write(`orch-apiserver: cannot build ${bundle} (${e instanceof Error ? e.message : String(e)}); loading the TypeScript sources\n`);
    useBundle = false;
  }
}
process.setSourceMapsEnabled(true);
if (useBundle) {
  await import(pathToFileURL(bundle).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(join(src, 'cmd', 'apiserver.ts')).href);
}
