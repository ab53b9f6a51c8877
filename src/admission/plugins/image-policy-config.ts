/**
 * ImagePolicyWebhook's configuration: an `imagePolicy` section (`kubeConfigFile`, `allowTTL`, `denyTTL`,
 * `retryBackoff`, `defaultAllow`) and the kubeconfig file it names, which says where the backend is and how
 * to reach it (server URL, CA, client certificate, token or basic credentials). Checked at start-up; every
 * problem names its field.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { isObject } from '../../api/types.js';
import { PluginConfigurationError } from './common.js';

export interface ImagePolicySettings {
  readonly backend: BackendConnection;
  /** How long answers are remembered; 0 remembers nothing. */
  readonly allowTtlMs: number;
  readonly denyTtlMs: number;
  /** Wait before the one retry of a failed call. */
  readonly retryBackoffMs: number;
  /** Whether a request is let through when the backend cannot give an answer. */
  readonly defaultAllow: boolean;
}

/** Where and how to call the backend, as the kubeconfig's current context gives it. */
export interface BackendConnection {
  readonly url: URL;
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
  readonly insecureSkipVerify?: boolean;
  readonly serverName?: string;
  /** The whole Authorization header value (Bearer or Basic), when the user has credentials. */
  readonly authorization?: string;
}

/** [field, scale to ms, default, min, max] of the three durations, in the reference's units and ranges. */
const DURATIONS = [
  ['allowTTL', 1000, 300_000, 1_000, 1_800_000, 'seconds'],
  ['denyTTL', 1000, 30_000, 1_000, 1_800_000, 'seconds'],
  ['retryBackoff', 1, 500, 1, 300_000, 'milliseconds'],
] as const;
const SECTION_FIELDS = new Set(['kubeConfigFile', 'allowTTL', 'denyTTL', 'retryBackoff', 'defaultAllow']);
const TOP_FIELDS = new Set(['apiVersion', 'kind', 'imagePolicy']);
export const IMAGE_POLICY_CONFIG_KIND = 'ImagePolicyWebhookConfiguration';

type Read = (path: string) => string;
const readText: Read = (p) => readFileSync(p, 'utf8');

/** The settings of a configuration; `read` reads the kubeconfig and the files it names. */
export function parseImagePolicyConfiguration(raw: unknown, read: Read = readText): ImagePolicySettings {
  if (raw === undefined) throw new PluginConfigurationError('no configuration given: ImagePolicyWebhook needs an imagePolicy section in the AdmissionConfiguration');
  if (!isObject(raw)) throw new PluginConfigurationError('the configuration must be an object with an imagePolicy section');
  const errs: string[] = [];
  for (const k of Object.keys(raw)) if (!TOP_FIELDS.has(k)) errs.push(`${k}: unknown field`);
  if (raw.kind !== undefined && raw.kind !== IMAGE_POLICY_CONFIG_KIND) errs.push(`kind: Unsupported value ${JSON.stringify(raw.kind)}: supported values: "${IMAGE_POLICY_CONFIG_KIND}"`);
  if (raw.apiVersion !== undefined && typeof raw.apiVersion !== 'string') errs.push('apiVersion: must be a string');
  const section = raw.imagePolicy;
  if (!isObject(section)) {
    errs.push('imagePolicy: Required value: an object with kubeConfigFile');
    throw new PluginConfigurationError(errs.join(', '));
  }
  for (const k of Object.keys(section)) if (!SECTION_FIELDS.has(k)) errs.push(`imagePolicy.${k}: unknown field`);
  const ms: number[] = [];
  for (const [field, scale, dflt, min, max, unit] of DURATIONS) {
    const v = section[field];
    if (v === undefined || v === null || v === 0) ms.push(dflt);
    else if (v === -1) ms.push(0);
    else if (typeof v !== 'number' || !Number.isInteger(v) || v * scale < min || v * scale > max) {
      errs.push(`imagePolicy.${field}: Invalid value: ${JSON.stringify(v)}: must be ${min / scale} to ${max / scale} ${unit} (0 for the default ${dflt / scale}, -1 to turn it off)`);
      ms.push(0);
    } else ms.push(v * scale);
  }
  const defaultAllow = section.defaultAllow ?? false;
  if (typeof defaultAllow !== 'boolean') errs.push(`imagePolicy.defaultAllow: Invalid value: ${JSON.stringify(defaultAllow)}: must be true or false`);
  const file = section.kubeConfigFile;
  if (typeof file !== 'string' || file === '') errs.push('imagePolicy.kubeConfigFile: Required value');
  if (errs.length > 0) throw new PluginConfigurationError(errs.join(', '));
  const backend = loadBackendKubeconfig(resolve(file as string), read);
  return { backend, allowTtlMs: ms[0]!, denyTtlMs: ms[1]!, retryBackoffMs: ms[2]!, defaultAllow: defaultAllow as boolean };
}

const CLUSTER_FIELDS = new Set(['server', 'certificate-authority', 'certificate-authority-data', 'insecure-skip-tls-verify', 'tls-server-name', 'extensions']);
const USER_FIELDS = new Set(['client-certificate', 'client-certificate-data', 'client-key', 'client-key-data', 'token', 'tokenFile', 'username', 'password', 'extensions']);

/**
 * The backend connection a kubeconfig gives: the current context's cluster and user, or (no current
 * context) the only cluster and the only user, as webhook kubeconfigs often hold. Relative file paths are
 * relative to the kubeconfig's own directory. Anything it cannot act on (exec or auth-provider users,
 * proxies) is refused rather than ignored.
 */
export function loadBackendKubeconfig(file: string, read: Read = readText): BackendConnection {
  const at = `imagePolicy.kubeConfigFile (${file})`;
  const fail = (why: string): never => {
    throw new PluginConfigurationError(`${at}: ${why}`);
  };
  let doc: unknown;
  try {
    doc = parseYaml(read(file), { version: '1.1', uniqueKeys: true });
  } catch (e) {
    fail(`cannot be read as a kubeconfig: ${(e as Error).message.split('\n')[0]}`);
  }
  if (!isObject(doc)) return fail('must hold a kubeconfig (an object)');
  const named = (list: unknown, what: string, inner: string): Map<string, Record<string, unknown>> => {
    const out = new Map<string, Record<string, unknown>>();
    if (list === undefined || list === null) return out;
    if (!Array.isArray(list)) fail(`${what}: must be a list`);
    (list as unknown[]).forEach((e, i) => {
      if (!isObject(e) || typeof e.name !== 'string' || !isObject(e[inner])) fail(`${what}[${i}]: must have a name and a ${inner} object`);
      out.set((e as Record<string, string>).name!, (e as Record<string, Record<string, unknown>>)[inner]!);
    });
    return out;
  };
  const clusters = named(doc.clusters, 'clusters', 'cluster');
  const users = named(doc.users, 'users', 'user');
  const contexts = named(doc.contexts, 'contexts', 'context');
  let cluster: Record<string, unknown> | undefined;
  let user: Record<string, unknown> | undefined;
  const current = doc['current-context'];
  if (typeof current === 'string' && current !== '') {
    const ctx = contexts.get(current) ?? fail(`current-context: context "${current}" is not in contexts`);
    cluster = clusters.get(String(ctx.cluster)) ?? fail(`contexts[${current}].cluster: cluster "${String(ctx.cluster)}" is not in clusters`);
    if (ctx.user !== undefined && ctx.user !== '') user = users.get(String(ctx.user)) ?? fail(`contexts[${current}].user: user "${String(ctx.user)}" is not in users`);
  } else {
    if (clusters.size !== 1) fail('without a current-context the file must hold exactly one cluster');
    if (users.size > 1) fail('without a current-context the file must hold at most one user');
    cluster = [...clusters.values()][0];
    user = [...users.values()][0];
  }
  const dir = dirname(file);
  const fileOrData = (o: Record<string, unknown>, field: string, where: string): string | undefined => {
    const data = o[`${field}-data`];
    const path = o[field];
    if (data !== undefined && path !== undefined) fail(`${where}: ${field} and ${field}-data are mutually exclusive`);
    if (typeof data === 'string') return Buffer.from(data, 'base64').toString('utf8');
    if (typeof path !== 'string') return undefined;
    try {
      return read(resolve(dir, path));
    } catch (e) {
      return fail(`${where}.${field}: cannot read ${resolve(dir, path)}: ${(e as Error).message}`);
    }
  };
  for (const k of Object.keys(cluster!)) if (!CLUSTER_FIELDS.has(k)) fail(`cluster.${k}: not supported for an image policy backend`);
  let url: URL;
  try {
    url = new URL(String(cluster!.server));
  } catch {
    return fail(`cluster.server: Invalid value ${JSON.stringify(cluster!.server ?? '')}: must be an https:// or http:// URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') fail(`cluster.server: Invalid value "${url.href}": must be an https:// or http:// URL`);
  const conn: { -readonly [K in keyof BackendConnection]: BackendConnection[K] } = { url };
  const ca = fileOrData(cluster!, 'certificate-authority', 'cluster');
  if (ca !== undefined) conn.ca = ca;
  if (cluster!['insecure-skip-tls-verify'] === true) {
    if (ca !== undefined) fail('cluster: insecure-skip-tls-verify cannot be used with a certificate authority');
    conn.insecureSkipVerify = true;
  }
  if (typeof cluster!['tls-server-name'] === 'string') conn.serverName = cluster!['tls-server-name'] as string;
  if (user) {
    for (const k of Object.keys(user)) if (!USER_FIELDS.has(k)) fail(`user.${k}: not supported for an image policy backend`);
    const cert = fileOrData(user, 'client-certificate', 'user');
    const key = fileOrData(user, 'client-key', 'user');
    if ((cert === undefined) !== (key === undefined)) fail('user: client-certificate and client-key must be given together');
    if (cert !== undefined) Object.assign(conn, { cert, key });
    let token = typeof user.token === 'string' ? user.token : undefined;
    if (token === undefined && typeof user.tokenFile === 'string') {
      token = fileOrData({ tokenFile: user.tokenFile }, 'tokenFile', 'user')!.trim();
    }
    if (token !== undefined && user.username !== undefined) fail('user: token and username/password are mutually exclusive');
    if (token) conn.authorization = `Bearer ${token}`;
    else if (typeof user.username === 'string') {
      conn.authorization = `Basic ${Buffer.from(`${user.username}:${typeof user.password === 'string' ? user.password : ''}`).toString('base64')}`;
    }
  }
  return conn;
}
