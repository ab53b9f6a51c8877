/**
 * Which kubeconfig files a client reads, and how several merge into one: `--kubeconfig` (one file, which
 * must exist), else the files the environment variable lists (missing ones skipped), else the default file
 * under the home directory. For every named entry and for `current-context`, the first file that sets it
 * wins, as the reference client merges.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { CLIENT_CONFIG_ENV, CLIENT_CONFIG_FILE_NAME, CLIENT_CONFIG_HOME_DIR } from '../../api/naming.js';
import { emptyKubeconfig, readKubeconfigFile, type Entry, type Kubeconfig } from './model.js';

/** The environment a client runs in (process.env by default; tests pass their own). */
export type ClientEnv = Readonly<Record<string, string | undefined>>;

export interface LoadingPrecedence {
  /** The files in merge order. */
  files: string[];
  /** Set when `--kubeconfig` named the one file to use. */
  explicitFile?: string;
  /** Where new entries are saved. */
  defaultFile: string;
}

export interface LoadedKubeconfig {
  config: Kubeconfig;
  precedence: LoadingPrecedence;
}

export function homeDirectory(env: ClientEnv): string {
  return env.HOME || env.USERPROFILE || homedir();
}

/** The files to read, in order, and the file new entries go to (the reference's choice). */
export function loadingPrecedence(explicitFile: string | undefined, env: ClientEnv, cwd = process.cwd()): LoadingPrecedence {
  if (explicitFile !== undefined && explicitFile !== '') {
    const file = resolve(cwd, explicitFile);
    return { files: [file], explicitFile: file, defaultFile: file };
  }
  const listed = env[CLIENT_CONFIG_ENV];
  if (listed !== undefined && listed !== '') {
    const files = [...new Set(listed.split(delimiter).filter((f) => f !== '').map((f) => resolve(cwd, f)))];
    if (files.length > 0) {
      const defaultFile = files.length === 1 ? files[0]! : (files.find((f) => existsSync(f)) ?? files[files.length - 1]!);
      return { files, defaultFile };
    }
  }
  const file = join(homeDirectory(env), CLIENT_CONFIG_HOME_DIR, CLIENT_CONFIG_FILE_NAME);
  return { files: [file], defaultFile: file };
}

function mergeEntries<T>(lists: Entry<T>[][]): Entry<T>[] {
  const byName = new Map<string, Entry<T>>();
  for (const list of lists) for (const e of list) if (!byName.has(e.name)) byName.set(e.name, e);
  return [...byName.values()];
}

/** Merges configurations, earlier ones winning for each entry, `current-context` and preference field. */
export function mergeKubeconfigs(configs: readonly Kubeconfig[]): Kubeconfig {
  const merged = emptyKubeconfig();
  merged.clusters = mergeEntries(configs.map((c) => c.clusters));
  merged.users = mergeEntries(configs.map((c) => c.users));
  merged.contexts = mergeEntries(configs.map((c) => c.contexts));
  const current = configs.find((c) => c.currentContext !== undefined);
  if (current) {
    merged.currentContext = current.currentContext;
    if (current.currentContextSource !== undefined) merged.currentContextSource = current.currentContextSource;
  }
  for (const c of configs) for (const [k, v] of Object.entries(c.preferences)) if (!(k in merged.preferences)) merged.preferences[k] = v;
  const extensions = mergeEntries(configs.map((c) => (c.extensions ?? []).map((x) => ({ name: x.name, value: x.extension }))));
  if (extensions.length > 0) merged.extensions = extensions.map((e) => ({ name: e.name, extension: e.value }));
  return merged;
}

/** Reads and merges the files of `precedence`; only an explicit `--kubeconfig` file must exist. */
export function loadKubeconfigs(precedence: LoadingPrecedence): LoadedKubeconfig {
  const configs: Kubeconfig[] = [];
  for (const file of precedence.files) {
    if (file !== precedence.explicitFile && !existsSync(file)) continue;
    configs.push(readKubeconfigFile(file));
  }
  return { config: mergeKubeconfigs(configs), precedence };
}
