// Loads a command's entry module from an ESM bundle of src/, built by esbuild into node_modules/.cache/orch
// on the first start and again whenever a source file is newer than it. No build step for users, and
// compared with loading ~150 TypeScript modules through a runtime loader it starts in about half the time;
// it also leaves out the per-closure name-keeping wrappers that loader adds to every request's hot path.
import { mkdirSync, readdirSync, renameSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const src = join(root, 'src');
export const outDir = join(root, 'node_modules', '.cache', 'orch');

/** Newest modification time of any file under `dir` (ms). */
function newest(dir) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

function builtAt(file) {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return -1;
  }
}

/** Bundles `entry` into `outFile`: built to a private name, then renamed, so processes starting at the same time never see half a file. */
export async function bundleTo(build, entry, outFile) {
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

/**
 * The module of `entry` (a path under src/), from the bundle `<name>.mjs`. `before(build)` writes what the
 * bundle loads at run time next to it, before the bundle itself (whose time stamp marks the build done).
 */
export async function loadBundled(name, entry, before) {
  const bundle = join(outDir, `${name}.mjs`);
  const source = join(src, entry);
  let useBundle = true;
  if (builtAt(bundle) < newest(src)) {
    try {
      const { build } = await import('esbuild');
      mkdirSync(outDir, { recursive: true });
      if (before) await before(build);
      await bundleTo(build, source, bundle);
    } catch (e) {
      // A read-only install, say: run the sources through the TypeScript loader instead (slower to start).
      process.stderr.write(`${name}: cannot build ${bundle} (${e instanceof Error ? e.message : String(e)}); loading the TypeScript sources\n`);
      useBundle = false;
    }
  }
  process.setSourceMapsEnabled(true);
  if (useBundle) return import(pathToFileURL(bundle).href);
  const { register } = await import('tsx/esm/api');
  register();
  return import(pathToFileURL(source).href);
}
