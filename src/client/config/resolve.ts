/**
 * From kubeconfig files and command-line flags to one connection: pick the context, cluster and user,
 * apply the flag overrides the way the reference client does, and build the credential source.
 */
import { readFileSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { DEFAULT_NAMESPACE, EXEC_CLUSTER_EXTENSION } from '../../api/naming.js';
import { parseGoDuration } from '../../util/duration.js';
import type { ClusterConnection, CredentialSource } from '../contract.js';
import { RefreshingFile, staticCredentials, type Material, type Now } from './credentials.js';
import { checkExecConfig, sharedExecSource, type ExecClusterInfo } from './exec.js';
import { loadKubeconfigs, loadingPrecedence, type ClientEnv, type LoadedKubeconfig } from './load.js';
import type { ClusterInfo, ContextInfo, UserInfo } from './model.js';

/** The client's global flags that choose and override the configuration (kubectl's spelling in comments). */
export interface ClientConfigFlags {
  kubeconfig?: string; // --kubeconfig
  context?: string; // --context
  cluster?: string; // --cluster
  user?: string; // --user
  namespace?: string; // --namespace, -n
  server?: string; // --server, -s
  token?: string; // --token
  certificateAuthority?: string; // --certificate-authority
  insecureSkipTlsVerify?: boolean; // --insecure-skip-tls-verify
  tlsServerName?: string; // --tls-server-name
  requestTimeout?: string; // --request-timeout
  as?: string; // --as
  asGroups?: string[]; // --as-group (repeatable)
  asUid?: string; // --as-uid
}

export interface ResolveOptions {
  /** Base of relative flag paths (process.cwd() by default). */
  cwd?: string;
  stdinIsTerminal?: boolean;
  /** Limit for one exec plugin run (see exec.ts for the default). */
  execTimeoutMs?: number;
  now?: Now;
  userAgent?: string;
}

/** Who the requests act as (Impersonate-User, -Uid, -Group and -Extra-<key> headers). */
export interface Impersonation {
  user: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface ResolvedClientConfig {
  connection: ClusterConnection;
  /** From --namespace, else the context's, else "default". */
  namespace: string;
  /** True when --namespace or the context chose the namespace (false for the "default" fallback). */
  namespaceExplicit: boolean;
  contextName: string;
  clusterName: string;
  userName: string;
  impersonate?: Impersonation;
  /** The cluster's `proxy-url`: the transport must send its requests through it. */
  proxyUrl?: string;
  /** The cluster's `disable-compression`: the transport must not ask for compressed responses. */
  disableCompression?: boolean;
  loaded: LoadedKubeconfig;
}

const decode = (b64: string): string => Buffer.from(b64, 'base64').toString('utf8');

/** `--request-timeout`: a Go duration (`30s`, `1m`) or a whole number of seconds; 0 means none. */
export function parseRequestTimeout(text: string): number {
  const t = text.trim();
  const ms = /^\d+$/.test(t) ? Number(t) * 1000 : parseGoDuration(t);
  if (ms === undefined || ms < 0) {
    throw new Error(`--request-timeout: invalid value "${text}": give whole seconds or a number with a unit (e.g. 1s, 2m, 3h)`);
  }
  return ms;
}

/** Adds the scheme the reference assumes (`https://`) and drops a trailing slash; rejects other schemes. */
export function normaliseServer(server: string, where: string): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(server) ? server : `https://${server}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new Error(`${where}: invalid server URL "${server}"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`${where}: server "${server}" must use https:// or http://`);
  return withScheme.replace(/\/+$/, '');
}

/** Resolves the flags and kubeconfig files into a connection, or throws the reference client's errors. */
export function resolveClientConfig(flags: ClientConfigFlags = {}, env: ClientEnv = process.env, opts: ResolveOptions = {}): ResolvedClientConfig {
  const cwd = opts.cwd ?? process.cwd();
  const loaded = loadKubeconfigs(loadingPrecedence(flags.kubeconfig, env, cwd));
  const config = loaded.config;

  const contextName = flags.context || config.currentContext || '';
  let context: ContextInfo = {};
  if (contextName !== '') {
    const found = config.contexts.find((c) => c.name === contextName);
    if (!found) throw new Error(`context "${contextName}" does not exist`);
    context = found.value;
  }
  const pick = <T>(kind: 'cluster' | 'user', list: { name: string; value: T }[], flag: string | undefined, fromContext: string | undefined): [string, T | undefined] => {
    const name = flag || fromContext || '';
    if (name === '') return ['', undefined];
    const found = list.find((e) => e.name === name);
    if (found) return [name, found.value];
    throw new Error(flag ? `${kind} "${name}" does not exist` : `${kind} "${name}" was not found for context "${contextName}"`);
  };
  const [clusterName, fileCluster] = pick<ClusterInfo>('cluster', config.clusters, flags.cluster, context.cluster);
  const [userName, fileUser] = pick<UserInfo>('user', config.users, flags.user, context.user);
  const where = clusterName ? `cluster "${clusterName}"` : 'the command line';

  const cluster: ClusterInfo = { ...fileCluster };
  if (flags.server) cluster.server = flags.server;
  if (flags.certificateAuthority) {
    cluster['certificate-authority'] = resolvePath(cwd, flags.certificateAuthority);
    delete cluster['certificate-authority-data'];
  }
  if (flags.insecureSkipTlsVerify !== undefined) {
    cluster['insecure-skip-tls-verify'] = flags.insecureSkipTlsVerify;
    // Asking for no verification on the command line drops the file's CA, unless a CA flag came with it.
    if (flags.insecureSkipTlsVerify && !flags.certificateAuthority) {
      delete cluster['certificate-authority'];
      delete cluster['certificate-authority-data'];
    }
  }
  if (flags.tlsServerName) cluster['tls-server-name'] = flags.tlsServerName;

  if (!cluster.server) {
    const empty = config.clusters.length === 0 && config.contexts.length === 0 && config.users.length === 0;
    if (empty && !clusterName) {
      throw new Error(`invalid configuration: no configuration has been provided (files read: ${loaded.precedence.files.join(', ')}); give --kubeconfig or --server`);
    }
    throw new Error(clusterName ? `invalid configuration: no server found for cluster "${clusterName}"` : 'invalid configuration: no server given (use --server or a context)');
  }
  const server = normaliseServer(cluster.server, where);
  const ca = clusterCa(cluster, where);
  if (cluster['insecure-skip-tls-verify'] && ca !== undefined) {
    throw new Error(`${where}: a certificate authority cannot be used with insecure-skip-tls-verify`);
  }
  if (cluster['proxy-url'] !== undefined) checkProxyUrl(cluster['proxy-url'], where);

  const connection: ClusterConnection = { server, credentials: { get: () => ({}) } };
  if (ca !== undefined) connection.caPem = ca;
  if (cluster['insecure-skip-tls-verify']) connection.insecureSkipTlsVerify = true;
  if (cluster['tls-server-name']) connection.tlsServerName = cluster['tls-server-name'];
  if (flags.requestTimeout !== undefined) connection.requestTimeoutMs = parseRequestTimeout(flags.requestTimeout);
  if (opts.userAgent) connection.userAgent = opts.userAgent;

  const user: UserInfo = { ...fileUser };
  const userWhere = userName ? `user "${userName}"` : 'the command line';
  const execCluster = (): ExecClusterInfo => {
    const info: ExecClusterInfo = { server };
    if (cluster['tls-server-name']) info['tls-server-name'] = cluster['tls-server-name'];
    if (cluster['insecure-skip-tls-verify']) info['insecure-skip-tls-verify'] = true;
    if (ca !== undefined) info['certificate-authority-data'] = Buffer.from(ca, 'utf8').toString('base64');
    if (cluster['proxy-url']) info['proxy-url'] = cluster['proxy-url'];
    if (cluster['disable-compression']) info['disable-compression'] = true;
    const ext = cluster.extensions?.find((x) => x.name === EXEC_CLUSTER_EXTENSION);
    if (ext !== undefined && ext.extension !== null) info.config = ext.extension;
    return info;
  };
  connection.credentials = credentialSource(user, userWhere, userName, flags.token, env, opts, execCluster);

  const result: ResolvedClientConfig = {
    connection,
    namespace: flags.namespace || context.namespace || DEFAULT_NAMESPACE,
    namespaceExplicit: Boolean(flags.namespace || context.namespace),
    contextName,
    clusterName,
    userName,
    loaded,
  };
  const impersonate = impersonation(user, flags, userWhere);
  if (impersonate) result.impersonate = impersonate;
  if (cluster['proxy-url']) result.proxyUrl = cluster['proxy-url'];
  if (cluster['disable-compression']) result.disableCompression = true;
  return result;
}

function clusterCa(cluster: ClusterInfo, where: string): string | undefined {
  const file = cluster['certificate-authority'];
  const data = cluster['certificate-authority-data'];
  if (file && data) throw new Error(`${where}: certificate-authority and certificate-authority-data are both given; keep one`);
  if (data) return decode(data);
  if (!file) return undefined;
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`${where}: certificate-authority: cannot read ${file}: ${(e as Error).message}`);
  }
}

function checkProxyUrl(proxy: string, where: string): void {
  let url: URL | undefined;
  try {
    url = new URL(proxy);
  } catch {
    url = undefined;
  }
  if (!url || !['http:', 'https:', 'socks5:'].includes(url.protocol)) {
    throw new Error(`${where}: proxy-url "${proxy}" must be an http://, https:// or socks5:// URL`);
  }
}

/** Static material from `<field>-data` (base64) or `<field>` (a file re-read when it changes). */
function material(user: UserInfo, field: 'client-certificate' | 'client-key', where: string, now: Now | undefined): Material | undefined {
  const data = user[`${field}-data`];
  const file = user[field];
  if (data && file) throw new Error(`${where}: ${field} and ${field}-data are both given; keep one`);
  if (data) return { inline: decode(data) };
  if (file) return { file: new RefreshingFile(file, `${where}: ${field}`, undefined, now) };
  return undefined;
}

function credentialSource(
  user: UserInfo,
  where: string,
  userName: string,
  flagToken: string | undefined,
  env: ClientEnv,
  opts: ResolveOptions,
  execCluster: () => ExecClusterInfo,
): CredentialSource {
  if (user['auth-provider']) {
    throw new Error(`${where}: auth-provider "${user['auth-provider'].name ?? ''}" is not supported by this client; configure an exec credential plugin instead`);
  }
  if (user.username || user.password) {
    throw new Error(`${where}: username/password (basic authentication) is not accepted by this API server family; use a token, a client certificate or an exec plugin`);
  }
  const cert = material(user, 'client-certificate', where, opts.now);
  const key = material(user, 'client-key', where, opts.now);
  if ((cert === undefined) !== (key === undefined)) {
    throw new Error(`${where}: ${cert ? 'client-key or client-key-data' : 'client-certificate or client-certificate-data'} must also be given to use a client certificate`);
  }
  let token: Material | undefined;
  if (flagToken) token = { inline: flagToken };
  else if (user.token) token = { inline: user.token };
  else if (user.tokenFile) token = { file: new RefreshingFile(user.tokenFile, `${where}: tokenFile`, undefined, opts.now) };
  if (user.exec) {
    // A --token on the command line is meant to be used instead of the plugin, as in the reference.
    if (flagToken) return staticCredentials({ token: token!, ...(cert ? { cert, key: key! } : {}) });
    if (user.token || user.tokenFile || cert) throw new Error(`${where}: exec cannot be combined with token, tokenFile or a client certificate; keep one method`);
    const exec = checkExecConfig(user.exec, where);
    const execOpts: Parameters<typeof sharedExecSource>[1] = { userName, env };
    if (exec.provideClusterInfo) execOpts.cluster = execCluster();
    if (opts.stdinIsTerminal !== undefined) execOpts.stdinIsTerminal = opts.stdinIsTerminal;
    if (opts.execTimeoutMs !== undefined) execOpts.timeoutMs = opts.execTimeoutMs;
    if (opts.now !== undefined) execOpts.now = opts.now;
    return sharedExecSource(exec, execOpts);
  }
  const parts: Parameters<typeof staticCredentials>[0] = {};
  if (token) parts.token = token;
  if (cert && key) Object.assign(parts, { cert, key });
  return staticCredentials(parts);
}

function impersonation(user: UserInfo, flags: ClientConfigFlags, where: string): Impersonation | undefined {
  const name = flags.as || user.as;
  const uid = flags.asUid || user['as-uid'];
  const groups = flags.asGroups && flags.asGroups.length > 0 ? flags.asGroups : user['as-groups'];
  const extra = user['as-user-extra'];
  const extraGiven = extra !== undefined && Object.keys(extra).length > 0;
  if (!name) {
    if (uid || (groups && groups.length > 0) || extraGiven) {
      throw new Error(`${where}: impersonating a uid, groups or extra fields needs a user to impersonate (--as or as)`);
    }
    return undefined;
  }
  const out: Impersonation = { user: name };
  if (uid) out.uid = uid;
  if (groups && groups.length > 0) out.groups = [...groups];
  if (extraGiven) out.extra = extra;
  return out;
}
