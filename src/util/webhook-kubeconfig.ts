/**
 * Reads a webhook's kubeconfig file (the format the reference uses to say where a webhook backend is and
 * how to reach it: server URL, CA, client certificate, token or basic credentials).
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { isObject } from '../api/types.js';

/** Where and how to call the backend, as the kubeconfig's current context gives it. */
export interface WebhookConnection {
  readonly url: URL;
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
  readonly insecureSkipVerify?: boolean;
  readonly serverName?: string;
  /** The whole Authorization header value (Bearer or Basic), when the user has credentials. */
  readonly authorization?: string;
}

type Read = (path: string) => string;
const readText: Read = (p) => readFileSync(p, 'utf8');

const CLUSTER_FIELDS = new Set(['server', 'certificate-authority', 'certificate-authority-data', 'insecure-skip-tls-verify', 'tls-server-name', 'extensions']);
const USER_FIELDS = new Set(['client-certificate', 'client-certificate-data', 'client-key', 'client-key-data', 'token', 'tokenFile', 'username', 'password', 'extensions']);

/**
 * The backend connection a kubeconfig gives: the current context's cluster and user, or (no current
 * context) the only cluster and the only user, as webhook kubeconfigs often hold. Relative file paths are
 * relative to the kubeconfig's own directory. Anything it cannot act on (exec or auth-provider users,
 * proxies) is refused rather than ignored.
 */
export function loadWebhookKubeconfig(file: string, opts: { read?: Read; at?: string } = {}): WebhookConnection {
  const read = opts.read ?? readText;
  const at = opts.at ?? file;
  const fail = (why: string): never => {
    throw new Error(`${at}: ${why}`);
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
  for (const k of Object.keys(cluster!)) if (!CLUSTER_FIELDS.has(k)) fail(`cluster.${k}: not supported for a webhook backend`);
  let url: URL;
  try {
    url = new URL(String(cluster!.server));
  } catch {
    return fail(`cluster.server: Invalid value ${JSON.stringify(cluster!.server ?? '')}: must be an https:// or http:// URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') fail(`cluster.server: Invalid value "${url.href}": must be an https:// or http:// URL`);
  const conn: { -readonly [K in keyof WebhookConnection]: WebhookConnection[K] } = { url };
  const ca = fileOrData(cluster!, 'certificate-authority', 'cluster');
  if (ca !== undefined) conn.ca = ca;
  if (cluster!['insecure-skip-tls-verify'] === true) {
    if (ca !== undefined) fail('cluster: insecure-skip-tls-verify cannot be used with a certificate authority');
    conn.insecureSkipVerify = true;
  }
  if (typeof cluster!['tls-server-name'] === 'string') conn.serverName = cluster!['tls-server-name'] as string;
  if (user) {
    for (const k of Object.keys(user)) if (!USER_FIELDS.has(k)) fail(`user.${k}: not supported for a webhook backend`);
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
