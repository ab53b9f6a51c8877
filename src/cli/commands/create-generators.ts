/**
 * `orchctl create namespace|configmap|secret generic|secret tls|secret docker-registry|serviceaccount|
 * role|clusterrole|rolebinding|clusterrolebinding`: objects generated from flags, created on the server
 * (or only printed with `--dry-run=client`), reported as the reference client reports them.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { CLI_FIELD_MANAGER, RBAC_GROUP } from '../../api/naming.js';
import { StatusError } from '../../errors/index.js';
import type { Client, KubeObject } from '../../client/index.js';
import { withLastApplied } from '../apply/last-applied.js';
import { dryRunSuffix, parseDryRun, parseValidate } from '../apply/report.js';
import type { CliContext, RegisterCommand } from '../contract.js';
import { createCommand } from './create-parent.js';
import {
  DEFAULT_DOCKER_SERVER,
  buildClusterRoleBinding,
  buildConfigMap,
  buildDockerRegistrySecret,
  buildGenericSecret,
  buildNamespace,
  buildRoleBinding,
  buildServiceAccount,
  buildTlsSecret,
  withHashSuffix,
  type BindingFlags,
  type DockerFlags,
} from './create-generators-build.js';
import { buildClusterRole, buildRole, type ResolveResource, type RoleFlags } from './create-generators-rbac.js';
import { readFileSources, readSources, type SourceFlags } from './create-generators-sources.js';

interface CommonFlags {
  dryRun?: string | boolean;
  output?: string;
  fieldManager?: string;
  validate?: string | boolean;
  saveConfig?: boolean;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];
/** Repeatable and comma separated, as the reference's list flags. */
const collectSplit = (value: string, previous: string[] = []) => [...previous, ...value.split(',').filter((v) => v !== '')];

function addCommonFlags(cmd: Command): Command {
  return cmd
    .option('--dry-run [strategy]', 'none (default), client (only print the object) or server (the server checks it but stores nothing)')
    .option('-o, --output <format>', 'print the created object in this format (yaml, json, name, jsonpath=..., ...)')
    .option('--field-manager <name>', `the field manager recorded for the created fields (default ${CLI_FIELD_MANAGER}-create)`)
    .option('--validate [mode]', 'how the server treats unknown or duplicate fields: strict (default), warn or ignore')
    .option('--save-config', 'record the object in the last-applied annotation, for a later apply');
}

/** Only an explicit `-n` puts a namespace into the generated object, as in the reference. */
function explicitNamespace(ctx: CliContext): string | undefined {
  const ns = ctx.globals().namespace;
  return typeof ns === 'string' && ns !== '' ? ns : undefined;
}

const PARENT_FLAGS = ['dryRun', 'output', 'fieldManager', 'validate', 'saveConfig'] as const;

/**
 * `create -f` (another file) puts `-o`, `--dry-run`, ... on the parent `create` too, and commander gives an
 * option to the first command on the path that knows it: the parent. A generator takes those values back
 * (those given on the command line; defaults stay its own).
 */
export function withParentFlags<T extends Partial<Record<(typeof PARENT_FLAGS)[number], unknown>>>(cmd: Command, f: T): T {
  let create: Command | null = cmd.parent;
  while (create && create.name() !== 'create') create = create.parent;
  const out: Record<string, unknown> = { ...f };
  for (const key of PARENT_FLAGS) {
    if (out[key] === undefined && create?.getOptionValueSource(key) === 'cli') out[key] = create.getOptionValue(key);
  }
  return out as T;
}

/** Creates (or, for a client dry run, keeps) the object and reports it. */
async function createAndReport(ctx: CliContext, build: () => KubeObject | Promise<KubeObject>, given: CommonFlags, resource: { plural: string; group: string }, cmd: Command): Promise<void> {
  const f = withParentFlags(cmd, given);
  const fieldManager = f.fieldManager ?? `${CLI_FIELD_MANAGER}-create`;
  const dryRun = parseDryRun(f.dryRun);
  const fieldValidation = parseValidate(f.validate);
  const format = f.output === undefined ? undefined : ctx.outputFormat(f.output);
  const built = await build();
  const obj = f.saveConfig ? withLastApplied(built) : built;
  let result = obj;
  if (dryRun !== 'client') {
    const client = await ctx.client();
    result = await client.createObject(obj, { dryRun: dryRun === 'server', fieldManager, fieldValidation, defaultNamespace: await ctx.namespace() });
  }
  if (format && format.kind !== 'name') return ctx.print([result], format);
  ctx.printAction(result, `created${dryRunSuffix(dryRun)}`, resource, format);
}

/** Resolves role resources through discovery; a resource it does not list comes back as an Error. */
function discoveryResolver(client: Client): ResolveResource {
  return async (r) => {
    const typed = r.group ? `${r.resource}.${r.group}` : r.resource;
    try {
      const info = await client.discovery.find(typed);
      return { resource: info.plural, group: info.group };
    } catch (e) {
      if (e instanceof StatusError && e.code === 404) return new Error(`the server doesn't have a resource type "${typed}"`);
      throw e;
    }
  };
}

const CORE = (plural: string) => ({ plural, group: '' });
const RBAC = (plural: string) => ({ plural, group: RBAC_GROUP });

function registerDataCommands(create: Command, ctx: CliContext): void {
  addCommonFlags(create.command('configmap').alias('cm').description('Create a config map from literal values, files, folders or env files'))
    .argument('<name>')
    .option('--from-literal <key=value>', 'a key and its value (repeatable)', collect)
    .option('--from-file <[key=]path>', 'a file (key: its name unless given) or a folder (one key per file); repeatable', collectSplit)
    .option('--from-env-file <path>', 'a file of KEY=VALUE lines (repeatable)', collectSplit)
    .option('--append-hash', 'append a hash of the content to the name')
    .action(async (name: string, f: CommonFlags & SourceFlags & { appendHash?: boolean }, cmd: Command) =>
      createAndReport(ctx, () => {
        const cm = buildConfigMap(name, explicitNamespace(ctx), readSources(f, ctx.io.env));
        return f.appendHash ? withHashSuffix(cm) : cm;
      }, f, CORE('configmaps'), cmd),
    );

  const secret = create.command('secret').description('Create a secret: generic, tls or docker-registry');
  addCommonFlags(secret.command('generic').description('Create a secret from literal values, files, folders or env files'))
    .argument('<name>')
    .option('--from-literal <key=value>', 'a key and its value (repeatable)', collect)
    .option('--from-file <[key=]path>', 'a file (key: its name unless given) or a folder (one key per file); repeatable', collectSplit)
    .option('--from-env-file <path>', 'a file of KEY=VALUE lines (repeatable)', collectSplit)
    .option('--type <type>', 'the secret type (the server defaults it to Opaque)')
    .option('--append-hash', 'append a hash of the content to the name')
    .action(async (name: string, f: CommonFlags & SourceFlags & { type?: string; appendHash?: boolean }, cmd: Command) =>
      createAndReport(ctx, () => {
        const s = buildGenericSecret(name, explicitNamespace(ctx), readSources(f, ctx.io.env), f.type);
        return f.appendHash ? withHashSuffix(s) : s;
      }, f, CORE('secrets'), cmd),
    );
  addCommonFlags(secret.command('tls').description('Create a TLS secret from a certificate and its private key'))
    .argument('<name>')
    .option('--cert <path>', 'PEM certificate file')
    .option('--key <path>', 'PEM private key file of that certificate')
    .option('--append-hash', 'append a hash of the content to the name')
    .action(async (name: string, f: CommonFlags & { cert?: string; key?: string; appendHash?: boolean }, cmd: Command) =>
      createAndReport(ctx, () => {
        if (!f.cert || !f.key) throw new Error('both --cert and --key must be given');
        const s = buildTlsSecret(name, explicitNamespace(ctx), readFileSync(f.cert), readFileSync(f.key));
        return f.appendHash ? withHashSuffix(s) : s;
      }, f, CORE('secrets'), cmd),
    );
  addCommonFlags(secret.command('docker-registry').description('Create a secret holding credentials of a container registry'))
    .argument('<name>')
    .option('--docker-server <url>', 'the registry', DEFAULT_DOCKER_SERVER)
    .option('--docker-username <name>', 'user name at the registry')
    .option('--docker-password <password>', 'password at the registry')
    .option('--docker-email <email>', 'email at the registry')
    .option('--from-file <[key=]path>', 'existing docker config files instead of the flags above (repeatable)', collectSplit)
    .option('--append-hash', 'append a hash of the content to the name')
    .action(async (name: string, f: CommonFlags & DockerFlags & { fromFile?: string[]; appendHash?: boolean }, cmd: Command) =>
      createAndReport(ctx, () => {
        const s = buildDockerRegistrySecret(name, explicitNamespace(ctx), readFileSources(f.fromFile ?? []), f);
        return f.appendHash ? withHashSuffix(s) : s;
      }, f, CORE('secrets'), cmd),
    );
}

/**
 * The global `--user` (the kubeconfig user) and the bindings' `--user` (a subject) share a name; the
 * program's parser takes every `--user`. As in the reference, one given after the binding command names a
 * subject: those are recovered from the raw arguments, and the global value is reset to the one (if any)
 * given before the command.
 */
export function splitUserFlags(rawArgs: readonly string[], command: string): { subjects: string[]; global?: string } {
  const create = rawArgs.indexOf('create');
  const at = create < 0 ? -1 : rawArgs.indexOf(command, create + 1);
  const subjects: string[] = [];
  let global: string | undefined;
  for (let i = 0; i < rawArgs.length; i++) {
    const arg = rawArgs[i]!;
    let value: string | undefined;
    if (arg === '--user') value = rawArgs[++i];
    else if (arg.startsWith('--user=')) value = arg.slice('--user='.length);
    else continue;
    if (value === undefined) continue;
    if (at >= 0 && i > at) subjects.push(value);
    else global = value;
  }
  return { subjects, global };
}

function bindingSubjectsFromArgs(cmd: Command, f: BindingFlags): BindingFlags {
  let root = cmd;
  while (root.parent) root = root.parent;
  // commander keeps the arguments it parsed as `rawArgs` (not in its typings).
  const raw = (root as unknown as { rawArgs?: string[] }).rawArgs ?? [];
  const { subjects, global } = splitUserFlags(raw, cmd.name());
  root.setOptionValue('user', global);
  return { ...f, user: [...(f.user ?? []), ...subjects] };
}

function registerRbacCommands(create: Command, ctx: CliContext): void {
  const warn = (text: string) => ctx.io.err(text);
  const roleFlags = (cmd: Command) =>
    cmd
      .option('--verb <verbs>', 'verbs the rule allows (comma separated, repeatable)', collectSplit)
      .option('--resource <resources>', 'resources, as plural[.group][/subresource] (comma separated, repeatable)', collectSplit)
      .option('--resource-name <name>', 'limit the rule to objects of this name (repeatable)', collect);
  roleFlags(addCommonFlags(create.command('role').description('Create a role with one rule per API group')))
    .argument('<name>')
    .action(async (name: string, f: CommonFlags & RoleFlags, cmd: Command) =>
      createAndReport(ctx, async () => buildRole(name, explicitNamespace(ctx), f, discoveryResolver(await ctx.client()), warn), f, RBAC('roles'), cmd),
    );
  roleFlags(addCommonFlags(create.command('clusterrole').description('Create a cluster role with one rule per API group')))
    .argument('<name>')
    .option('--non-resource-url <urls>', 'non-resource URLs the rule allows, e.g. /healthz or /logs/* (comma separated, repeatable)', collectSplit)
    .option('--aggregation-rule <key=value>', 'labels of the cluster roles whose rules this one aggregates (comma separated, repeatable)', collectSplit)
    .action(async (name: string, f: CommonFlags & RoleFlags, cmd: Command) =>
      createAndReport(ctx, async () => {
        const needsDiscovery = (f.resource ?? []).length > 0 && (f.aggregationRule ?? []).length === 0;
        const resolve: ResolveResource = needsDiscovery ? discoveryResolver(await ctx.client()) : async () => new Error('no resources');
        return buildClusterRole(name, f, resolve, warn);
      }, f, RBAC('clusterroles'), cmd),
    );
  const subjectFlags = (cmd: Command) =>
    cmd
      .option('--user <name>', 'a user to bind (repeatable)', collect)
      .option('--group <name>', 'a group to bind (repeatable)', collect)
      .option('--serviceaccount <namespace:name>', 'a service account to bind (repeatable)', collect);
  subjectFlags(addCommonFlags(create.command('rolebinding').description('Bind a role or cluster role to subjects in one namespace')))
    .argument('<name>')
    .option('--role <name>', 'the role to bind')
    .option('--clusterrole <name>', 'the cluster role to bind')
    .action(async (name: string, f: CommonFlags & BindingFlags, cmd: Command) =>
      createAndReport(ctx, () => buildRoleBinding(name, explicitNamespace(ctx), bindingSubjectsFromArgs(cmd, f)), f, RBAC('rolebindings'), cmd),
    );
  subjectFlags(addCommonFlags(create.command('clusterrolebinding').description('Bind a cluster role to subjects in every namespace')))
    .argument('<name>')
    .option('--clusterrole <name>', 'the cluster role to bind')
    .action(async (name: string, f: CommonFlags & BindingFlags, cmd: Command) =>
      createAndReport(ctx, () => buildClusterRoleBinding(name, bindingSubjectsFromArgs(cmd, f)), f, RBAC('clusterrolebindings'), cmd),
    );
}

export const registerCreateGenerators: RegisterCommand = (program: Command, ctx: CliContext) => {
  const create = createCommand(program);
  addCommonFlags(create.command('namespace').alias('ns').description('Create a namespace'))
    .argument('<name>')
    .action(async (name: string, f: CommonFlags, cmd: Command) => createAndReport(ctx, () => buildNamespace(name), f, CORE('namespaces'), cmd));
  addCommonFlags(create.command('serviceaccount').alias('sa').description('Create a service account'))
    .argument('<name>')
    .action(async (name: string, f: CommonFlags, cmd: Command) => createAndReport(ctx, () => buildServiceAccount(name, explicitNamespace(ctx)), f, CORE('serviceaccounts'), cmd));
  registerDataCommands(create, ctx);
  registerRbacCommands(create, ctx);
};
