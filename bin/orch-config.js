#!/usr/bin/env node
// `orch-config validate FILE...`. Like orch-apiserver, it runs an esbuild bundle of its entry (rebuilt when a
// source file is newer), falling back to the TypeScript loader when the bundle cannot be written.
import { mkdirSync, readdirSync, renameSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const entry = join(src, 'cmd', 'config.ts');
const outDir = join(root, 'node_modules', '.cache', 'orch');
const bundle = join(outDir, 'orch-config.mjs');

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

let target = bundle;
if (builtAt() < newest(src)) {
  try {
    const { build } = await import('esbuild');
    mkdirSync(outDir, { recursive: true });
    // Written under a private name and renamed, so a concurrent run never loads half a file.
    const tmp = `${bundle}.${process.pid}.tmp`;
    await build({ entryPoints: [entry], outfile: tmp, bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', sourcemap: 'inline', logLevel: 'error' });
    renameSync(tmp, bundle);
  } catch (e) {
    process.stderr.write(`orch-config: cannot build ${bundle} (${e instanceof Error ? e.message : String(e)}); loading the TypeScript sources\n`);
    const { register } = await import('tsx/esm/api');
    register();
    target = entry;
  }
}
process.setSourceMapsEnabled(true);
const { runConfigCommand } = await import(pathToFileURL(target).href);
process.exitCode = runConfigCommand(process.argv.slice(2), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
});
