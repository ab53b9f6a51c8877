/**
 * The authorizer union (spec 5.7), from either `--authorization-mode` (with the `--authorization-webhook-*`
 * and `--authorization-policy-file` flags) or `--authorization-config` (an AuthorizationConfiguration file,
 * re-read when it changes and at least every minute). Either way each module comes from a factory, so the
 * server decides how RBAC, Node, ABAC and webhook authorizers are made and fed.
 */
import { readFileSync, watch, type FSWatcher } from 'node:fs';
import { dirname } from 'node:path';
import { AlwaysAllowAuthorizer, AlwaysDenyAuthorizer, UnionAuthorizer, type Attributes, type Authorizer, type Decision } from '../authz/index.js';
import { parseAuthorizationConfiguration, DEFAULT_AUTHORIZED_TTL_MS, DEFAULT_UNAUTHORIZED_TTL_MS, MAX_WEBHOOK_TIMEOUT_MS, type AuthorizerEntry } from '../authz/config.js';
import { SAR_VERSIONS, WebhookAuthorizer, type SarVersion, type WebhookSettings } from '../authz/webhook/index.js';
import { webhookBackend } from '../util/webhook-backend.js';
import type { Dialer } from '../util/dialer.js';
import { loadWebhookKubeconfig } from '../util/webhook-kubeconfig.js';

/** `--authorization-mode` values (spec 5.7 item 5). */
export const AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Webhook', 'RBAC', 'Node'] as const;

/** How each kind of module is made; `server.ts` supplies them. */
export interface AuthorizerFactories {
  rbac(): Authorizer;
  node(): Authorizer;
  abac(policyFile: string): Authorizer;
  webhook(settings: WebhookSettings): Authorizer;
}

/** The authorization options of AuthOptions (field names are the flags'). */
export interface AuthorizationOptions {
  authorizationModes?: string[];
  /** `--authorization-config`: cannot be combined with the mode and webhook options. */
  authorizationConfigFile?: string;
  authorizationWebhookConfigFile?: string;
  authorizationWebhookVersion?: string;
  authorizationWebhookCacheAuthorizedTTLMs?: number;
  authorizationWebhookCacheUnauthorizedTTLMs?: number;
  /** `--authorization-policy-file` (ABAC). */
  authorizationPolicyFile?: string;
  /** How often the configuration file is re-read even without a change notice. Default (and at most) 60 s. */
  authorizationConfigReloadIntervalMs?: number;
}

export interface AuthorizationSetup {
  authorizer: Authorizer;
  /** RBAC is one of the modules at start (its index answers escalation checks and rules reviews). */
  rbacEnabled: boolean;
  /** Starts following the configuration file (nothing for flags); the result stops it and closes webhooks. */
  start(): () => void;
}

const FLAG_OPTIONS: [keyof AuthorizationOptions, string][] = [
  ['authorizationModes', '--authorization-mode'],
  ['authorizationWebhookConfigFile', '--authorization-webhook-config-file'],
  ['authorizationWebhookVersion', '--authorization-webhook-version'],
  ['authorizationWebhookCacheAuthorizedTTLMs', '--authorization-webhook-cache-authorized-ttl'],
  ['authorizationWebhookCacheUnauthorizedTTLMs', '--authorization-webhook-cache-unauthorized-ttl'],
];

export const RELOAD_INTERVAL_MS = 60_000;

/** The webhook factory the server uses: a kept-alive backend with the authorizer's timeout. */
export function webhookFactory(log?: (msg: string) => void, dialer?: Dialer): (s: WebhookSettings) => WebhookAuthorizer {
  return (s) => new WebhookAuthorizer(s, { backend: webhookBackend(s.connection, s.timeoutMs, dialer), ...(log ? { log } : {}) });
}

/** Checks the options and builds the union; every problem is an Error naming the flag (a start-up error). */
export function buildAuthorizer(opts: AuthorizationOptions, factories: AuthorizerFactories, log: (msg: string) => void = () => undefined): AuthorizationSetup {
  if (opts.authorizationConfigFile !== undefined) {
    for (const [key, flag] of FLAG_OPTIONS) {
      if (opts[key] !== undefined) throw new Error(`--authorization-config cannot be used together with ${flag}: the configuration file replaces the authorization mode flags`);
    }
    return fromConfigFile(opts.authorizationConfigFile, opts, factories, log);
  }
  const modes = opts.authorizationModes ?? ['RBAC'];
  const modules = modesToModules(modes, opts, factories);
  return { authorizer: new UnionAuthorizer(modules), rbacEnabled: modes.includes('RBAC'), start: () => () => modules.forEach(closeModule) };
}

function modesToModules(modes: string[], opts: AuthorizationOptions, factories: AuthorizerFactories): Authorizer[] {
  if (modes.length === 0 || modes.every((m) => m === '')) throw new Error('--authorization-mode: at least one mode is required');
  const seen = new Set<string>();
  for (const m of modes) {
    if (seen.has(m)) throw new Error(`--authorization-mode: "${m}" is listed more than once`);
    seen.add(m);
    if (!(AUTHORIZATION_MODES as readonly string[]).includes(m)) {
      throw new Error(`--authorization-mode: unknown authorization mode "${m}" (supported: ${AUTHORIZATION_MODES.join(', ')})`);
    }
  }
  if (seen.has('ABAC') && !opts.authorizationPolicyFile) throw new Error('--authorization-mode: mode ABAC needs --authorization-policy-file');
  if (!seen.has('ABAC') && opts.authorizationPolicyFile) throw new Error('--authorization-policy-file: can only be given with --authorization-mode ABAC');
  if (seen.has('Webhook') && !opts.authorizationWebhookConfigFile) throw new Error('--authorization-mode: mode Webhook needs --authorization-webhook-config-file');
  if (!seen.has('Webhook')) {
    const stray = FLAG_OPTIONS.slice(1).find(([key]) => opts[key] !== undefined);
    if (stray) throw new Error(`${stray[1]}: can only be given with --authorization-mode Webhook`);
  }
  const modules: Authorizer[] = [];
  try {
    for (const m of modes) modules.push(moduleFor(m, opts, factories));
  } catch (e) {
    modules.forEach(closeModule);
    throw e;
  }
  return modules;
}

function moduleFor(mode: string, opts: AuthorizationOptions, factories: AuthorizerFactories): Authorizer {
  switch (mode) {
    case 'AlwaysAllow':
      return new AlwaysAllowAuthorizer();
    case 'AlwaysDeny':
      return new AlwaysDenyAuthorizer();
    case 'RBAC':
      return factories.rbac();
    case 'Node':
      return factories.node();
    case 'ABAC':
      return factories.abac(opts.authorizationPolicyFile!);
    default:
      return factories.webhook(legacyWebhookSettings(opts));
  }
}

/** The webhook of `--authorization-mode=Webhook`: the reference's defaults (v1beta1, 5m/30s, NoOpinion, 30 s). */
function legacyWebhookSettings(opts: AuthorizationOptions): WebhookSettings {
  const version = opts.authorizationWebhookVersion ?? 'v1beta1';
  if (!SAR_VERSIONS.includes(version as SarVersion)) {
    throw new Error(`--authorization-webhook-version: unsupported version "${version}" (${SAR_VERSIONS.join(' or ')})`);
  }
  for (const [key, flag] of FLAG_OPTIONS.slice(3)) {
    const v = opts[key] as number | undefined;
    if (v !== undefined && (!Number.isFinite(v) || v < 0)) throw new Error(`${flag}: must be a duration of 0s or more`);
  }
  return {
    name: 'webhook',
    connection: loadWebhookKubeconfig(opts.authorizationWebhookConfigFile!, { at: `--authorization-webhook-config-file ${opts.authorizationWebhookConfigFile}` }),
    subjectAccessReviewVersion: version as SarVersion,
    authorizedTTLMs: opts.authorizationWebhookCacheAuthorizedTTLMs ?? DEFAULT_AUTHORIZED_TTL_MS,
    unauthorizedTTLMs: opts.authorizationWebhookCacheUnauthorizedTTLMs ?? DEFAULT_UNAUTHORIZED_TTL_MS,
    timeoutMs: MAX_WEBHOOK_TIMEOUT_MS,
    failurePolicy: 'NoOpinion',
    matchConditions: [],
  };
}

/** The modules a configuration file lists, in order. */
function configModules(entries: AuthorizerEntry[], opts: AuthorizationOptions, factories: AuthorizerFactories): Authorizer[] {
  const modules: Authorizer[] = [];
  try {
    entries.forEach((e, i) => {
      if (e.type === 'Webhook') modules.push(factories.webhook(e.webhook));
      else if (e.type === 'ABAC') {
        if (!opts.authorizationPolicyFile) throw new Error(`authorizers[${i}]: type ABAC needs --authorization-policy-file`);
        modules.push(factories.abac(opts.authorizationPolicyFile));
      } else modules.push(moduleFor(e.type, opts, factories));
    });
  } catch (e) {
    modules.forEach(closeModule);
    throw e;
  }
  return modules;
}

function fromConfigFile(file: string, opts: AuthorizationOptions, factories: AuthorizerFactories, log: (msg: string) => void): AuthorizationSetup {
  /** The file's text (compared to notice changes); errors name the file. */
  const readText = (): string => {
    try {
      return readFileSync(file, 'utf8');
    } catch (e) {
      throw new Error(`${file}: cannot be read: ${(e as Error).message}`);
    }
  };
  const parse = (text: string): AuthorizerEntry[] => {
    try {
      return parseAuthorizationConfiguration(text).authorizers;
    } catch (e) {
      throw new Error(`${file}: ${(e as Error).message}`);
    }
  };
  const build = (authorizers: AuthorizerEntry[]): { union: Authorizer; modules: Authorizer[]; entries: AuthorizerEntry[] } => {
    const modules = configModules(authorizers, opts, factories);
    return { union: new UnionAuthorizer(modules), modules, entries: authorizers };
  };
  let current: ReturnType<typeof build>;
  let text: string;
  try {
    text = readText();
    current = build(parse(text));
  } catch (e) {
    throw new Error(`--authorization-config: ${(e as Error).message}`);
  }
  if (!current.entries.some((e) => e.type === 'ABAC') && opts.authorizationPolicyFile) {
    current.modules.forEach(closeModule);
    throw new Error('--authorization-policy-file: can only be given when the --authorization-config file lists an ABAC authorizer');
  }
  const swappable = new SwappableAuthorizer(current.union);
  let lastProblem: string | undefined;
  const problem = (why: string) => {
    if (why !== lastProblem) log(`--authorization-config: the previous configuration stays: ${why}`);
    lastProblem = why;
  };
  /** Re-reads the file; a changed, valid file replaces the union, an invalid one is logged (once) and ignored. */
  const check = () => {
    let next: string;
    try {
      next = readText();
    } catch (e) {
      return problem((e as Error).message);
    }
    if (next === text) return void (lastProblem = undefined);
    try {
      const built = build(parse(next));
      const old = current;
      current = built;
      text = next;
      lastProblem = undefined;
      swappable.swap(built.union);
      // Calls already made by the old webhooks may still be waiting: close them once they cannot be.
      setTimeout(() => old.modules.forEach(closeModule), MAX_WEBHOOK_TIMEOUT_MS + 1000).unref();
      log(`--authorization-config: ${file} reloaded (${built.entries.map((e) => `${e.type}/${e.name}`).join(', ')})`);
    } catch (e) {
      problem((e as Error).message);
    }
  };
  return {
    authorizer: swappable,
    rbacEnabled: current.entries.some((e) => e.type === 'RBAC'),
    start: () => {
      const stopWatching = watchFile(file, Math.min(opts.authorizationConfigReloadIntervalMs ?? RELOAD_INTERVAL_MS, RELOAD_INTERVAL_MS), check);
      return () => {
        stopWatching();
        current.modules.forEach(closeModule);
      };
    },
  };
}

/** Calls `changed` soon after the file's directory reports a change, and every `intervalMs` regardless. */
function watchFile(file: string, intervalMs: number, changed: () => void): () => void {
  let pending: NodeJS.Timeout | undefined;
  const soon = () => {
    if (pending) return;
    pending = setTimeout(() => {
      pending = undefined;
      changed();
    }, 50);
  };
  // The directory, not the file: editors and mounted configuration volumes replace files by renaming.
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dirname(file), { persistent: false }, soon);
    watcher.on('error', () => undefined);
  } catch {
    // No change notices here: the periodic check still applies changes.
  }
  const timer = setInterval(changed, intervalMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    if (pending) clearTimeout(pending);
    watcher?.close();
  };
}

/** The union a reload replaces; requests already being authorized finish with the one they started with. */
export class SwappableAuthorizer implements Authorizer {
  constructor(private current: Authorizer) {}
  authorize(a: Attributes): Promise<Decision> {
    return this.current.authorize(a);
  }
  swap(next: Authorizer): void {
    this.current = next;
  }
}

function closeModule(m: Authorizer): void {
  (m as { close?: () => void }).close?.();
}
