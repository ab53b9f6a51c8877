/**
 * Changing and showing kubeconfig files (`config view|use-context|set-context|set-credentials|set-cluster|
 * get-contexts`): pure functions on the merged model, and a save that writes each changed entry back to the
 * file it came from (new entries to the default file), mode 0600, as the reference client does.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, relative, sep } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parse as parseYaml, stringify } from 'yaml';
import { isObject } from '../../api/types.js';
import type { LoadedKubeconfig } from './load.js';
import { KEEP_TIMESTAMPS_AS_TEXT, type ClusterInfo, type ContextInfo, type Entry, type ExecConfig, type Kubeconfig, type UserInfo } from './model.js';

const DATA_OMITTED = 'DATA+OMITTED';
const REDACTED = 'REDACTED';

const copy = (c: Kubeconfig): Kubeconfig => structuredClone(c);

/** Objects with keys in alphabetical order and empty values dropped, as the reference prints them. */
function sorted(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sorted);
  if (!isObject(v)) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) if (v[k] !== undefined) out[k] = sorted(v[k]);
  return out;
}

/** The document form of a model (entries in their order). */
function toDocument(c: Kubeconfig): Record<string, unknown> {
  const doc: Record<string, unknown> = {
    apiVersion: 'v1',
    clusters: c.clusters.map((e) => ({ cluster: e.value, name: e.name })),
    contexts: c.contexts.map((e) => ({ context: e.value, name: e.name })),
    'current-context': c.currentContext ?? '',
    kind: 'Config',
    preferences: c.preferences,
    users: c.users.map((e) => ({ name: e.name, user: e.value })),
  };
  if (c.extensions) doc.extensions = c.extensions;
  return sorted(doc) as Record<string, unknown>;
}

const yamlText = (doc: unknown): string => stringify(doc, { lineWidth: 0, version: '1.1' });

export interface ViewOptions {
  /** Show secrets and embedded data as they are (`--raw`). */
  raw?: boolean;
  /** Only the current (or `context`) context, its cluster and user (`--minify`). */
  minify?: boolean;
  context?: string;
}

/** Only what `contextName` uses. */
export function minify(c: Kubeconfig, contextName = c.currentContext): Kubeconfig {
  if (!contextName) throw new Error('current-context must exist in order to minify');
  const ctx = c.contexts.find((e) => e.name === contextName);
  if (!ctx) throw new Error(`context "${contextName}" does not exist`);
  const out = copy(c);
  out.contexts = out.contexts.filter((e) => e.name === contextName);
  out.clusters = out.clusters.filter((e) => e.name === ctx.value.cluster);
  out.users = out.users.filter((e) => e.name === ctx.value.user);
  out.currentContext = contextName;
  return out;
}

/** Hides secrets the way the reference's `config view` does (embedded data and tokens). */
export function redact(c: Kubeconfig): Kubeconfig {
  const out = copy(c);
  for (const { value } of out.clusters) if (value['certificate-authority-data']) value['certificate-authority-data'] = DATA_OMITTED;
  for (const { value } of out.users) {
    if (value['client-certificate-data']) value['client-certificate-data'] = DATA_OMITTED;
    if (value['client-key-data']) value['client-key-data'] = DATA_OMITTED;
    if (value.token) value.token = REDACTED;
    if (value.password) value.password = REDACTED;
  }
  return out;
}

/** `config view` output (YAML). */
export function view(c: Kubeconfig, opts: ViewOptions = {}): string {
  let shown = opts.minify ? minify(c, opts.context ?? c.currentContext) : c;
  if (!opts.raw) shown = redact(shown);
  return yamlText(toDocument(shown));
}

export function useContext(c: Kubeconfig, name: string): Kubeconfig {
  if (!c.contexts.some((e) => e.name === name)) throw new Error(`no context exists with the name: "${name}"`);
  const out = copy(c);
  out.currentContext = name;
  return out;
}

/** Sets (or creates) the named entry through `change`, which edits a copy of its value. */
function upsert<T>(list: Entry<T>[], name: string, change: (v: T) => void): void {
  if (name === '') throw new Error('a name is required');
  let entry = list.find((e) => e.name === name);
  if (!entry) list.push((entry = { name, value: {} as T }));
  change(entry.value);
}

/** Fields of a context to set; an empty string clears one. */
export type ContextPatch = Partial<Record<'cluster' | 'user' | 'namespace', string>>;

export function setContext(c: Kubeconfig, name: string, patch: ContextPatch): Kubeconfig {
  const out = copy(c);
  upsert<ContextInfo>(out.contexts, name, (v) => {
    for (const k of ['cluster', 'user', 'namespace'] as const) {
      const given = patch[k];
      if (given === undefined) continue;
      if (given === '') delete v[k];
      else v[k] = given;
    }
  });
  return out;
}

export type ClusterPatch = Pick<ClusterInfo, 'server' | 'certificate-authority' | 'certificate-authority-data' | 'insecure-skip-tls-verify' | 'tls-server-name' | 'proxy-url' | 'disable-compression'>;

/** `set-cluster`: a CA file and embedded CA data replace each other; skipping verification drops both. */
export function setCluster(c: Kubeconfig, name: string, patch: ClusterPatch): Kubeconfig {
  const out = copy(c);
  upsert<ClusterInfo>(out.clusters, name, (v) => {
    Object.assign(v, patch);
    if (patch['certificate-authority'] !== undefined) delete v['certificate-authority-data'];
    if (patch['certificate-authority-data'] !== undefined) delete v['certificate-authority'];
    if (patch['insecure-skip-tls-verify'] === true) {
      delete v['certificate-authority'];
      delete v['certificate-authority-data'];
    }
  });
  return out;
}

export type CredentialsPatch = Pick<UserInfo, 'token' | 'tokenFile' | 'client-certificate' | 'client-certificate-data' | 'client-key' | 'client-key-data'> & {
  /** Merged into the existing exec entry; `args` and `env` replace the old lists. */
  exec?: ExecConfig;
};

/** `set-credentials`: a file and embedded data of the same thing replace each other, as do token and tokenFile. */
export function setCredentials(c: Kubeconfig, name: string, patch: CredentialsPatch): Kubeconfig {
  const out = copy(c);
  const pairs: [keyof UserInfo, keyof UserInfo][] = [
    ['client-certificate', 'client-certificate-data'],
    ['client-key', 'client-key-data'],
    ['token', 'tokenFile'],
  ];
  upsert<UserInfo>(out.users, name, (v) => {
    const { exec, ...plain } = patch;
    Object.assign(v, plain);
    for (const [a, b] of pairs) {
      if (plain[a as keyof typeof plain] !== undefined) delete v[b];
      else if (plain[b as keyof typeof plain] !== undefined) delete v[a];
    }
    if (exec) v.exec = { ...v.exec, ...exec };
  });
  return out;
}

export interface ContextRow {
  current: boolean;
  name: string;
  cluster: string;
  authInfo: string;
  namespace: string;
}

/** `get-contexts` rows (CURRENT NAME CLUSTER AUTHINFO NAMESPACE), by name. */
export function getContexts(c: Kubeconfig, names: readonly string[] = []): ContextRow[] {
  for (const n of names) if (!c.contexts.some((e) => e.name === n)) throw new Error(`context ${n} not found`);
  return c.contexts
    .filter((e) => names.length === 0 || names.includes(e.name))
    .map((e) => ({ current: e.name === c.currentContext, name: e.name, cluster: e.value.cluster ?? '', authInfo: e.value.user ?? '', namespace: e.value.namespace ?? '' }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

const PATH_FIELDS = ['certificate-authority', 'client-certificate', 'client-key', 'tokenFile'];

/** Paths inside the destination's folder are written relative to it; others stay absolute (no `..`). */
function relativise(value: unknown, dir: string): unknown {
  const out = structuredClone(value) as Record<string, unknown>;
  for (const k of PATH_FIELDS) {
    const p = out[k];
    if (typeof p !== 'string' || !isAbsolute(p)) continue;
    const rel = relative(dir, p);
    if (rel !== '' && !rel.startsWith(`..`) && !isAbsolute(rel)) out[k] = rel.split(sep).join('/');
  }
  return sorted(out);
}

type Kind = 'clusters' | 'users' | 'contexts';
const INNER: Record<Kind, string> = { clusters: 'cluster', users: 'user', contexts: 'context' };

/**
 * Writes what changed between the loaded configuration and `updated`: each changed entry into its own
 * file, new ones and a new current-context where the reference puts them. Returns the files written.
 */
export function saveKubeconfig(loaded: LoadedKubeconfig, updated: Kubeconfig): string[] {
  const changes = new Map<string, { entries: [Kind, string, unknown][]; current?: string }>();
  const at = (file: string) => changes.get(file) ?? changes.set(file, { entries: [] }).get(file)!;
  for (const kind of ['clusters', 'users', 'contexts'] as const) {
    for (const e of updated[kind] as Entry<unknown>[]) {
      const before = (loaded.config[kind] as Entry<unknown>[]).find((o) => o.name === e.name);
      if (before && isDeepStrictEqual(before.value, e.value)) continue;
      at(e.source ?? before?.source ?? loaded.precedence.defaultFile).entries.push([kind, e.name, e.value]);
    }
  }
  if ((updated.currentContext ?? '') !== (loaded.config.currentContext ?? '')) {
    at(loaded.config.currentContextSource ?? loaded.precedence.defaultFile).current = updated.currentContext ?? '';
  }
  for (const [file, change] of changes) {
    let doc: Record<string, unknown> = { apiVersion: 'v1', kind: 'Config', preferences: {}, clusters: [], contexts: [], users: [], 'current-context': '' };
    if (existsSync(file)) {
      const text = readFileSync(file, 'utf8');
      const parsed: unknown = parseYaml(text, { version: '1.1', customTags: KEEP_TIMESTAMPS_AS_TEXT });
      if (parsed !== null && parsed !== undefined) {
        if (!isObject(parsed)) throw new Error(`kubeconfig ${file}: (document): must be an object`);
        doc = parsed;
      }
    }
    const dir = dirname(file);
    for (const [kind, name, value] of change.entries) {
      const list = Array.isArray(doc[kind]) ? (doc[kind] as Record<string, unknown>[]) : (doc[kind] = []) as Record<string, unknown>[];
      const item = { name, [INNER[kind]]: relativise(value, dir) };
      const i = list.findIndex((x) => isObject(x) && x.name === name);
      if (i >= 0) list[i] = item;
      else list.push(item);
    }
    if (change.current !== undefined) doc['current-context'] = change.current;
    mkdirSync(dir, { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, yamlText(sorted(doc)), { mode: 0o600 });
    renameSync(tmp, file);
  }
  return [...changes.keys()];
}
