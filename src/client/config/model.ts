/**
 * The kubeconfig document (`apiVersion: v1`, `kind: Config`) as users write it, read from one file with
 * every field checked. Entries keep the YAML spelling of their keys so that viewing and writing them back
 * needs no translation; file paths are made absolute against the file's directory while loading.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse as parseYaml, type Tags } from 'yaml';

/** An unquoted timestamp (an `exec.env` value, say) stays the text it is, as the reference client reads it. */
export const KEEP_TIMESTAMPS_AS_TEXT = (tags: Tags): Tags => tags.filter((t) => typeof t === 'string' || t.tag !== 'tag:yaml.org,2002:timestamp');
import { isObject } from '../../api/types.js';

export interface NamedExtension {
  name: string;
  extension: unknown;
}

export interface ClusterInfo {
  server?: string;
  'certificate-authority'?: string;
  /** Base64 of the PEM bundle, as in the file. */
  'certificate-authority-data'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'tls-server-name'?: string;
  'proxy-url'?: string;
  'disable-compression'?: boolean;
  extensions?: NamedExtension[];
}

export interface ExecEnvVar {
  name: string;
  value: string;
}

export interface ExecConfig {
  command?: string;
  args?: string[];
  env?: ExecEnvVar[];
  apiVersion?: string;
  installHint?: string;
  provideClusterInfo?: boolean;
  interactiveMode?: string;
}

export interface AuthProviderConfig {
  name?: string;
  config?: Record<string, string>;
}

export interface UserInfo {
  'client-certificate'?: string;
  'client-certificate-data'?: string;
  'client-key'?: string;
  'client-key-data'?: string;
  token?: string;
  tokenFile?: string;
  as?: string;
  'as-uid'?: string;
  'as-groups'?: string[];
  'as-user-extra'?: Record<string, string[]>;
  username?: string;
  password?: string;
  'auth-provider'?: AuthProviderConfig;
  exec?: ExecConfig;
  extensions?: NamedExtension[];
}

export interface ContextInfo {
  cluster?: string;
  user?: string;
  namespace?: string;
  extensions?: NamedExtension[];
}

/** A named entry and the file it was read from (none for entries created in memory). */
export interface Entry<T> {
  name: string;
  value: T;
  source?: string;
}

export interface Kubeconfig {
  clusters: Entry<ClusterInfo>[];
  users: Entry<UserInfo>[];
  contexts: Entry<ContextInfo>[];
  currentContext?: string;
  /** The file whose `current-context` won the merge. */
  currentContextSource?: string;
  preferences: Record<string, unknown>;
  extensions?: NamedExtension[];
}

export const emptyKubeconfig = (): Kubeconfig => ({ clusters: [], users: [], contexts: [], preferences: {} });

type FieldKind = 'string' | 'bool' | 'data' | 'path' | 'strings' | 'extensions' | 'stringListMap' | 'authProvider' | 'exec' | 'envList';

const CLUSTER_FIELDS: Record<string, FieldKind> = {
  server: 'string',
  'certificate-authority': 'path',
  'certificate-authority-data': 'data',
  'insecure-skip-tls-verify': 'bool',
  'tls-server-name': 'string',
  'proxy-url': 'string',
  'disable-compression': 'bool',
  extensions: 'extensions',
};
const USER_FIELDS: Record<string, FieldKind> = {
  'client-certificate': 'path',
  'client-certificate-data': 'data',
  'client-key': 'path',
  'client-key-data': 'data',
  token: 'string',
  tokenFile: 'path',
  as: 'string',
  'as-uid': 'string',
  'as-groups': 'strings',
  'as-user-extra': 'stringListMap',
  username: 'string',
  password: 'string',
  'auth-provider': 'authProvider',
  exec: 'exec',
  extensions: 'extensions',
};
const CONTEXT_FIELDS: Record<string, FieldKind> = { cluster: 'string', user: 'string', namespace: 'string', extensions: 'extensions' };
const EXEC_FIELDS: Record<string, FieldKind> = {
  command: 'string',
  args: 'strings',
  env: 'envList',
  apiVersion: 'string',
  installHint: 'string',
  provideClusterInfo: 'bool',
  interactiveMode: 'string',
};
const TOP_FIELDS = new Set(['apiVersion', 'kind', 'preferences', 'clusters', 'users', 'contexts', 'current-context', 'extensions']);

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Raises the loading error for `file` at `path`. */
function failAt(file: string, path: string, rule: string): never {
  throw new Error(`kubeconfig ${file}: ${path}: ${rule}`);
}

/** Checks one object against its field table; returns a copy without null values and with absolute paths. */
function checkFields(file: string, dir: string, at: string, raw: unknown, fields: Record<string, FieldKind>): Record<string, unknown> {
  if (raw === null || raw === undefined) return {};
  if (!isObject(raw)) failAt(file, at, 'must be an object');
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    const kind = fields[key];
    const here = `${at}.${key}`;
    if (kind === undefined) failAt(file, here, 'unknown field');
    if (value === null || value === undefined) continue;
    out[key] = checkValue(file, dir, here, value, kind);
  }
  return out;
}

function checkValue(file: string, dir: string, at: string, value: unknown, kind: FieldKind): unknown {
  const strings = (v: unknown, where: string): string[] => {
    if (!Array.isArray(v) || !v.every((s) => typeof s === 'string')) failAt(file, where, 'must be a list of strings');
    return [...(v as string[])];
  };
  switch (kind) {
    case 'string':
      if (typeof value !== 'string') failAt(file, at, 'must be a string');
      return value;
    case 'bool':
      if (typeof value !== 'boolean') failAt(file, at, 'must be true or false');
      return value;
    case 'data':
      if (typeof value !== 'string' || !BASE64.test(value.replace(/\s+/g, ''))) failAt(file, at, 'must be base64-encoded data');
      return value.replace(/\s+/g, '');
    case 'path':
      if (typeof value !== 'string') failAt(file, at, 'must be a file path');
      return value === '' || isAbsolute(value) ? value : resolve(dir, value);
    case 'strings':
      return strings(value, at);
    case 'stringListMap': {
      if (!isObject(value)) failAt(file, at, 'must map names to lists of strings');
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, strings(v, `${at}.${k}`)]));
    }
    case 'extensions':
      return checkExtensions(file, at, value);
    case 'authProvider': {
      if (!isObject(value)) failAt(file, at, 'must be an object');
      const { config: cfg, ...rest } = value;
      const out = checkFields(file, dir, at, rest, { name: 'string' });
      // `config` maps names to single strings, unlike the other maps.
      if (cfg !== undefined && cfg !== null) {
        if (!isObject(cfg) || !Object.values(cfg).every((s) => typeof s === 'string')) failAt(file, `${at}.config`, 'must map names to strings');
        out.config = { ...cfg };
      }
      return out;
    }
    case 'exec': {
      const out = checkFields(file, dir, at, value, EXEC_FIELDS) as ExecConfig;
      // A command naming a path (not a bare name looked up in PATH) is relative to the kubeconfig.
      if (out.command !== undefined && out.command.includes('/') && !isAbsolute(out.command)) out.command = resolve(dir, out.command);
      return out;
    }
    case 'envList': {
      if (!Array.isArray(value)) failAt(file, at, 'must be a list of {name, value}');
      return value.map((e, i) => {
        if (!isObject(e) || typeof e.name !== 'string' || (e.value !== undefined && e.value !== null && typeof e.value !== 'string')) {
          failAt(file, `${at}[${i}]`, 'must have a string name and a string value');
        }
        return { name: e.name, value: typeof e.value === 'string' ? e.value : '' };
      });
    }
  }
}

function checkExtensions(file: string, at: string, value: unknown): NamedExtension[] {
  if (!Array.isArray(value)) failAt(file, at, 'must be a list of {name, extension}');
  return value.map((e, i) => {
    if (!isObject(e) || typeof e.name !== 'string' || e.name === '') failAt(file, `${at}[${i}].name`, 'must be a non-empty string');
    return { name: e.name, extension: e.extension ?? null };
  });
}

function checkList<T>(file: string, dir: string, key: string, inner: string, raw: unknown, fields: Record<string, FieldKind>): Entry<T>[] {
  if (raw === null || raw === undefined) return [];
  if (!Array.isArray(raw)) failAt(file, key, 'must be a list');
  const seen = new Set<string>();
  return raw.map((item, i) => {
    const at = `${key}[${i}]`;
    if (!isObject(item)) failAt(file, at, `must be an object with name and ${inner}`);
    for (const k of Object.keys(item)) if (k !== 'name' && k !== inner) failAt(file, `${at}.${k}`, 'unknown field');
    if (typeof item.name !== 'string' || item.name === '') failAt(file, `${at}.name`, 'must be a non-empty string');
    if (seen.has(item.name)) failAt(file, `${at}.name`, `duplicate name "${item.name}"`);
    seen.add(item.name);
    return { name: item.name, value: checkFields(file, dir, `${at}.${inner}`, item[inner], fields) as T, source: file };
  });
}

/** Reads one kubeconfig text (from `file`, which names it in errors and anchors its relative paths). */
export function parseKubeconfig(text: string, file: string): Kubeconfig {
  let doc: unknown;
  try {
    doc = parseYaml(text, { version: '1.1', uniqueKeys: true, customTags: KEEP_TIMESTAMPS_AS_TEXT });
  } catch (e) {
    throw new Error(`kubeconfig ${file}: not valid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  if (doc === null || doc === undefined) return emptyKubeconfig();
  if (!isObject(doc)) failAt(file, '(document)', 'must be an object');
  for (const k of Object.keys(doc)) if (!TOP_FIELDS.has(k)) failAt(file, k, 'unknown field');
  if (doc.kind !== undefined && doc.kind !== null && doc.kind !== 'Config') failAt(file, 'kind', `must be "Config", not ${JSON.stringify(doc.kind)}`);
  if (doc.apiVersion !== undefined && doc.apiVersion !== null && doc.apiVersion !== 'v1') {
    failAt(file, 'apiVersion', `must be "v1", not ${JSON.stringify(doc.apiVersion)}`);
  }
  const dir = dirname(resolve(file));
  const config: Kubeconfig = {
    clusters: checkList<ClusterInfo>(file, dir, 'clusters', 'cluster', doc.clusters, CLUSTER_FIELDS),
    users: checkList<UserInfo>(file, dir, 'users', 'user', doc.users, USER_FIELDS),
    contexts: checkList<ContextInfo>(file, dir, 'contexts', 'context', doc.contexts, CONTEXT_FIELDS),
    preferences: {},
  };
  const current = doc['current-context'];
  if (current !== undefined && current !== null && typeof current !== 'string') failAt(file, 'current-context', 'must be a string');
  if (typeof current === 'string' && current !== '') {
    config.currentContext = current;
    config.currentContextSource = file;
  }
  if (doc.preferences !== undefined && doc.preferences !== null) {
    if (!isObject(doc.preferences)) failAt(file, 'preferences', 'must be an object');
    for (const k of Object.keys(doc.preferences)) if (k !== 'colors' && k !== 'extensions') failAt(file, `preferences.${k}`, 'unknown field');
    if (doc.preferences.colors !== undefined && typeof doc.preferences.colors !== 'boolean') failAt(file, 'preferences.colors', 'must be true or false');
    if (doc.preferences.extensions !== undefined) checkExtensions(file, 'preferences.extensions', doc.preferences.extensions);
    config.preferences = { ...doc.preferences };
  }
  if (doc.extensions !== undefined && doc.extensions !== null) config.extensions = checkExtensions(file, 'extensions', doc.extensions);
  return config;
}

/** Reads and checks one kubeconfig file. */
export function readKubeconfigFile(file: string): Kubeconfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`kubeconfig ${file}: cannot be read: ${(e as Error).message}`);
  }
  return parseKubeconfig(text, file);
}
