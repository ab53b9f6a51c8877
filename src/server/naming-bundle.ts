/**
 * Servers of another naming (issue 21: `startServer({ naming: 'k8s' })`). naming.ts fixes its spellings when
 * its module graph loads, and ~100 modules derive their own constants from them, so a server of another
 * naming runs in a second module graph: a bundle of the server built by bin/bundled.js with that naming
 * defined, into node_modules/.cache/orch/<naming>/ on first use (rebuilt when a source is newer), and loaded
 * once per process. The default naming is the graph the process already has.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { NAMINGS, type Naming } from '../api/naming.js';
import type { RunningServer, ServerOptions } from './server.js';

/** A naming given as an option or flag (`where` names it); anything else is a start-up error. */
export function parseNaming(where: string, value: unknown): Naming {
  if (typeof value === 'string' && (NAMINGS as readonly string[]).includes(value)) return value as Naming;
  throw new Error(`${where}: unknown naming ${JSON.stringify(value)} (one of: ${NAMINGS.join(', ')})`);
}

type NamingGraph = typeof import('./naming-entry.js');

interface Bundler {
  loadBundled(name: string, entry: string, before: unknown, naming: Naming): Promise<unknown>;
  writeServerRuntimeFiles: unknown;
}

/** The package root: the nearest folder above this module holding bin/bundled.js (from src/ or from a bundle). */
function packageRoot(): string {
  const here = fileURLToPath(import.meta.url);
  for (let dir = dirname(here); ; ) {
    if (existsSync(join(dir, 'bin', 'bundled.js')) && existsSync(join(dir, 'package.json'))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error(`naming: cannot find bin/bundled.js in a folder above ${here}`);
    dir = up;
  }
}

const graphs = new Map<Naming, Promise<NamingGraph>>();

/** The server module graph of `naming`, built and loaded on the first call; later calls share it. */
export function namingGraph(naming: Naming): Promise<NamingGraph> {
  let graph = graphs.get(naming);
  if (graph === undefined) {
    graph = (async () => {
      const bundler = (await import(pathToFileURL(join(packageRoot(), 'bin', 'bundled.js')).href)) as Bundler;
      const entry = join('server', 'naming-entry.ts');
      const loaded = (await bundler.loadBundled('server', entry, bundler.writeServerRuntimeFiles, naming)) as NamingGraph;
      if (loaded.naming.NAMING !== naming) throw new Error(`naming: the bundle built for ${naming} spells ${loaded.naming.NAMING}`);
      return loaded;
    })();
    graphs.set(naming, graph);
    // A failed build is not cached: the next start tries again.
    graph.catch(() => graphs.delete(naming));
  }
  return graph;
}

/** Starts a server in the module graph of `naming` (not this graph's). */
export async function startServerInNaming(naming: Naming, opts: ServerOptions): Promise<RunningServer> {
  return (await namingGraph(naming)).startServer(opts);
}
