// Loads a command's entry module from an ESM bundle of src/, built by esbuild into node_modules/.cache/orch
// on the first start and again whenever a source file is newer than it. No build step for users, and
// compared with loading ~150 TypeScript modules through a runtime loader it starts in about half the time;
// it also leaves out the per-closure name-keeping wrappers that loader adds to every request's hot path.
import { copyFileSync, cpSync, mkdirSync, readdirSync, renameSync, statSync } from 'node:fs';
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

/**
 * Bundles `entry` into `outFile`: built to a private name, then renamed, so processes starting at the same
 * time never see half a file. `define` replaces global names in the sources (see namingDefine).
 */
export async function bundleTo(build, entry, outFile, define = {}) {
  const tmp = `${outFile}.${process.pid}.tmp`;
  await build({
    define,
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

/** The folder of the bundles of one naming (src/api/naming.ts): the default's, or a subfolder per other naming. */
export const bundleDir = (naming = 'orch') => (naming === 'orch' ? outDir : join(outDir, naming));

/** What src/api/naming.ts reads to pick its spellings; nothing for the default naming. */
export const namingDefine = (naming = 'orch') => (naming === 'orch' ? {} : { __ORCH_NAMING__: JSON.stringify(naming) });

/** Files a bundle of the server loads at run time, next to it in `dir`: the SQLite writer thread's entry and the .proto files. */
export async function writeServerRuntimeFiles(build, dir, define = {}) {
  await bundleTo(build, join(src, 'storage', 'sqlite', 'sqlite-writer.ts'), join(dir, 'sqlite-writer.mjs'), define);
  copyFileSync(join(src, 'storage', 'etcd', 'etcd.proto'), join(dir, 'etcd.proto'));
  copyFileSync(join(src, 'server', 'openapi-v2.proto'), join(dir, 'openapi-v2.proto'));
  cpSync(join(src, 'tracing', 'otlp'), join(dir, 'otlp'), { recursive: true });
}

/**
 * The module of `entry` (a path under src/), from the bundle `<name>.mjs`. `before(build, dir, define)` writes
 * what the bundle loads at run time next to it, before the bundle itself (whose time stamp marks the build
 * done). `naming` other than "orch" builds a separate bundle whose naming.ts spells with it; that one has no
 * fallback to the TypeScript sources, which can only spell the default.
 */
export async function loadBundled(name, entry, before, naming = 'orch') {
  const dir = bundleDir(naming);
  const define = namingDefine(naming);
  const bundle = join(dir, `${name}.mjs`);
  const source = join(src, entry);
  let useBundle = true;
  if (builtAt(bundle) < newest(src)) {
    try {
      const { build } = await import('esbuild');
      mkdirSync(dir, { recursive: true });
      if (before) await before(build, dir, define);
      await bundleTo(build, source, bundle, define);
    } catch (e) {
      if (naming !== 'orch') throw new Error(`cannot build ${bundle} for naming ${naming}: ${e instanceof Error ? e.message : String(e)}`);
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
