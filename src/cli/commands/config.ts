/**
 * `orchctl config ...`: show and change kubeconfig files without a server (the files `--kubeconfig`, the
 * environment variable or the default path name; changes go back to the file each entry came from).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import {
  getContexts,
  loadKubeconfigs,
  loadingPrecedence,
  saveKubeconfig,
  setCluster,
  setContext,
  setCredentials,
  useContext,
  view,
  type ClusterPatch,
  type ContextPatch,
  type CredentialsPatch,
  type LoadedKubeconfig,
} from '../../client/config/index.js';
import type { CliContext, RegisterCommand } from '../contract.js';
import { UsageError } from '../errors.js';
import { toJson } from '../output/formats.js';
import { alignRows } from '../output/table.js';
import { parse as parseYaml } from 'yaml';

function load(ctx: CliContext): LoadedKubeconfig {
  const file = ctx.globals().kubeconfig as string | undefined;
  return loadKubeconfigs(loadingPrecedence(file, ctx.io.env));
}

const b64File = (file: string, flag: string): string => {
  try {
    return readFileSync(file).toString('base64');
  } catch (e) {
    throw new Error(`${flag}: cannot read ${file}: ${(e as Error).message}`);
  }
};

/** `NAME=VALUE` of `--exec-env`. */
export function parseExecEnv(items: readonly string[]): { name: string; value: string }[] {
  return items.map((item) => {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new UsageError(`--exec-env: "${item}" must be NAME=VALUE`, 'config set-credentials');
    return { name: item.slice(0, eq), value: item.slice(eq + 1) };
  });
}

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

interface ClusterFlags {
  server?: string;
  certificateAuthority?: string;
  insecureSkipTlsVerify?: boolean;
  tlsServerName?: string;
  proxyUrl?: string;
  embedCerts?: boolean;
}

/** Pure apart from reading files to embed: the set-cluster patch of the flags. */
export function clusterPatch(o: ClusterFlags, cwd: string): ClusterPatch {
  const p: ClusterPatch = {};
  if (o.server !== undefined) p.server = o.server;
  if (o.certificateAuthority !== undefined) {
    const file = resolve(cwd, o.certificateAuthority);
    if (o.embedCerts) p['certificate-authority-data'] = b64File(file, '--certificate-authority');
    else p['certificate-authority'] = file;
  }
  if (o.insecureSkipTlsVerify) {
    p['insecure-skip-tls-verify'] = true;
    if (o.certificateAuthority !== undefined) {
      throw new UsageError('--insecure-skip-tls-verify cannot be combined with --certificate-authority', 'config set-cluster');
    }
  }
  if (o.tlsServerName !== undefined) p['tls-server-name'] = o.tlsServerName;
  if (o.proxyUrl !== undefined) p['proxy-url'] = o.proxyUrl;
  return p;
}

interface CredentialFlags {
  token?: string;
  clientCertificate?: string;
  clientKey?: string;
  embedCerts?: boolean;
  execCommand?: string;
  execApiVersion?: string;
  execArg?: string[];
  execEnv?: string[];
  execInteractiveMode?: string;
  execProvideClusterInfo?: boolean;
}

export function credentialsPatch(o: CredentialFlags, cwd: string): CredentialsPatch {
  const p: CredentialsPatch = {};
  if (o.token !== undefined) p.token = o.token;
  for (const [flag, value, field] of [
    ['--client-certificate', o.clientCertificate, 'client-certificate'],
    ['--client-key', o.clientKey, 'client-key'],
  ] as const) {
    if (value === undefined) continue;
    const file = resolve(cwd, value);
    if (o.embedCerts) p[`${field}-data`] = b64File(file, flag);
    else p[field] = file;
  }
  const exec: NonNullable<CredentialsPatch['exec']> = {};
  if (o.execCommand !== undefined) exec.command = o.execCommand;
  if (o.execApiVersion !== undefined) exec.apiVersion = o.execApiVersion;
  if (o.execArg !== undefined) exec.args = o.execArg;
  if (o.execEnv !== undefined) exec.env = parseExecEnv(o.execEnv);
  if (o.execInteractiveMode !== undefined) {
    if (!['Never', 'IfAvailable', 'Always'].includes(o.execInteractiveMode)) throw new UsageError(`--exec-interactive-mode must be Never, IfAvailable or Always, not "${o.execInteractiveMode}"`, 'config set-credentials');
    exec.interactiveMode = o.execInteractiveMode;
  }
  if (o.execProvideClusterInfo) exec.provideClusterInfo = true;
  if (Object.keys(exec).length > 0) p.exec = exec;
  return p;
}

export const registerConfig: RegisterCommand = (program: Command, ctx: CliContext) => {
  const config = program.command('config').description('Show and change kubeconfig files');
  const cwd = () => process.cwd();

  config
    .command('view')
    .description('Show the merged kubeconfig (secrets hidden unless --raw)')
    .option('--raw', 'show tokens and embedded certificates')
    .option('--minify', 'only the current context, its cluster and user')
    .option('-o, --output <format>', 'yaml (default) or json')
    .action((_o: unknown, cmd: Command) => {
      const o = cmd.opts<{ raw?: boolean; minify?: boolean; output?: string }>();
      if (o.output !== undefined && o.output !== 'yaml' && o.output !== 'json') throw new UsageError(`--output must be yaml or json, not "${o.output}"`, 'config view');
      const context = ctx.globals().context as string | undefined;
      const text = view(load(ctx).config, { ...(o.raw ? { raw: true } : {}), ...(o.minify ? { minify: true } : {}), ...(context ? { context } : {}) });
      ctx.io.out(o.output === 'json' ? toJson(parseYaml(text, { version: '1.1' })) : text);
    });

  config
    .command('current-context')
    .description('Print the current context')
    .action(() => {
      const current = load(ctx).config.currentContext;
      if (!current) throw new Error('current-context is not set');
      ctx.io.out(`${current}\n`);
    });

  config
    .command('use-context')
    .description('Make a context the current one')
    .argument('<name>')
    .action((name: string) => {
      const loaded = load(ctx);
      saveKubeconfig(loaded, useContext(loaded.config, name));
      ctx.io.out(`Switched to context "${name}".\n`);
    });

  config
    .command('get-contexts')
    .description('List contexts (CURRENT marks the current one)')
    .argument('[names...]')
    .option('-o, --output <format>', 'name: names only')
    .option('--no-headers', 'leave out the header line')
    .action((names: string[], _o: unknown, cmd: Command) => {
      const o = cmd.opts<{ output?: string; headers?: boolean }>();
      if (o.output !== undefined && o.output !== 'name') throw new UsageError(`--output must be name, not "${o.output}"`, 'config get-contexts');
      const rows = getContexts(load(ctx).config, names);
      if (o.output === 'name') {
        ctx.io.out(rows.map((r) => `${r.name}\n`).join(''));
        return;
      }
      const cells = rows.map((r) => [r.current ? '*' : '', r.name, r.cluster, r.authInfo, r.namespace]);
      ctx.io.out(alignRows(o.headers === false ? cells : [['CURRENT', 'NAME', 'CLUSTER', 'AUTHINFO', 'NAMESPACE'], ...cells]));
    });

  config
    .command('set-context')
    .description('Create or change a context')
    .argument('[name]')
    .option('--current', 'change the current context')
    .option('--cluster <name>', 'the cluster of the context')
    .option('--user <name>', 'the user of the context')
    .option('--namespace <name>', 'the namespace of the context')
    .action((nameArg: string | undefined, _o: unknown, cmd: Command) => {
      // The program owns --cluster, --user and --namespace too (commander gives them to it wherever they stand).
      const o = cmd.optsWithGlobals<{ current?: boolean; cluster?: string; user?: string; namespace?: string }>();
      const loaded = load(ctx);
      if (o.current && nameArg) throw new UsageError('give a context name or --current, not both', 'config set-context');
      const name = o.current ? loaded.config.currentContext : nameArg;
      if (!name) throw new UsageError(o.current ? 'current-context is not set' : 'a context name (or --current) is required', 'config set-context');
      const patch: ContextPatch = {};
      if (o.cluster !== undefined) patch.cluster = o.cluster;
      if (o.user !== undefined) patch.user = o.user;
      if (o.namespace !== undefined) patch.namespace = o.namespace;
      const existed = loaded.config.contexts.some((e) => e.name === name);
      saveKubeconfig(loaded, setContext(loaded.config, name, patch));
      ctx.io.out(`Context "${name}" ${existed ? 'modified' : 'created'}.\n`);
    });

  config
    .command('set-cluster')
    .description('Create or change a cluster entry')
    .argument('<name>')
    .option('--server <url>', 'the API server address')
    .option('--certificate-authority <file>', 'a PEM file of certificate authorities for the server')
    .option('--insecure-skip-tls-verify', 'do not check the server certificate')
    .option('--tls-server-name <name>', 'the name to check the server certificate against')
    .option('--proxy-url <url>', 'a proxy for requests to this cluster')
    .option('--embed-certs', 'store the certificate authority in the file instead of its path')
    .action((name: string, _o: unknown, cmd: Command) => {
      const loaded = load(ctx);
      saveKubeconfig(loaded, setCluster(loaded.config, name, clusterPatch(cmd.optsWithGlobals<ClusterFlags>(), cwd())));
      ctx.io.out(`Cluster "${name}" set.\n`);
    });

  config
    .command('set-credentials')
    .description('Create or change a user entry')
    .argument('<name>')
    .option('--token <token>', 'a bearer token')
    .option('--client-certificate <file>', 'a client certificate file')
    .option('--client-key <file>', 'the key file of the client certificate')
    .option('--embed-certs', 'store the certificate and key in the file instead of their paths')
    .option('--exec-command <command>', 'an exec credential plugin')
    .option('--exec-api-version <version>', 'the ExecCredential version the plugin speaks')
    .option('--exec-arg <arg>', 'an argument of the plugin (repeatable)', collect)
    .option('--exec-env <NAME=VALUE>', 'an environment variable of the plugin (repeatable)', collect)
    .option('--exec-interactive-mode <mode>', 'Never, IfAvailable or Always')
    .option('--exec-provide-cluster-info', 'pass the cluster to the plugin')
    .action((name: string, _o: unknown, cmd: Command) => {
      const loaded = load(ctx);
      saveKubeconfig(loaded, setCredentials(loaded.config, name, credentialsPatch(cmd.optsWithGlobals<CredentialFlags>(), cwd())));
      ctx.io.out(`User "${name}" set.\n`);
    });
};
