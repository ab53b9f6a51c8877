/**
 * Wiring of encryption at rest (`--encryption-provider-config`, spec 2.12): the file is loaded and its
 * providers built before storage opens (a bad file stops start-up naming the file and field), the backend
 * is wrapped so that everything above storage sees plain values, the KMS health checks are registered, and
 * with `--encryption-provider-config-automatic-reload` the file is watched: a valid new version replaces
 * the configuration in use, an invalid one is logged and the previous configuration stays.
 */
import { unwatchFile, watchFile } from 'node:fs';
import { EncryptingBackend } from '../encryption/encrypting-backend.js';
import { loadEncryptionConfiguration } from '../encryption/config.js';
import { buildTransformers, type EncryptionTransformers } from '../encryption/transformers.js';
import type { KmsProviderFactory } from '../encryption/types.js';
import { ROOT } from '../registry/keys.js';
import type { ResourceType } from '../registry/index.js';
import type { Backend } from '../storage/index.js';
import type { HealthChecks } from './health.js';

export interface EncryptionOptions {
  /** `--encryption-provider-config`: the EncryptionConfiguration file. */
  encryptionProviderConfig?: string;
  /** `--encryption-provider-config-automatic-reload`: re-read the file when it changes. */
  encryptionProviderConfigAutomaticReload?: boolean;
  /** Builds the provider of a `kms` entry. Default: the built-in gRPC client of KMS v1/v2 plugins. */
  kmsProviderFactory?: KmsProviderFactory;
}

/** How often the file is looked at for changes (it may be replaced by a rename, which file events can miss). */
const RELOAD_POLL_MS = 1000;

export interface EncryptionSetup {
  readonly file: string;
  readonly reload: boolean;
  readonly factory: KmsProviderFactory;
  readonly kmsV1: boolean;
  transformers: EncryptionTransformers;
  text: string;
}

/** Loads and builds the configuration; undefined when the flag is not given. Throws naming the file and field. */
export async function loadEncryption(opts: EncryptionOptions, log: (msg: string) => void, gates: { kmsV1: boolean } = { kmsV1: false }): Promise<EncryptionSetup | undefined> {
  const file = opts.encryptionProviderConfig;
  if (file === undefined || file === '') {
    if (opts.encryptionProviderConfigAutomaticReload) throw new Error('--encryption-provider-config-automatic-reload: requires --encryption-provider-config');
    return undefined;
  }
  const reload = opts.encryptionProviderConfigAutomaticReload === true;
  const factory = opts.kmsProviderFactory ?? (async (c) => (await import('../encryption/kms/index.js')).createKmsProvider(c, log));
  const { config, text } = loadEncryptionConfiguration(file, { reload, kmsV1: gates.kmsV1 });
  try {
    return { file, reload, factory, kmsV1: gates.kmsV1, text, transformers: await buildTransformers(config, factory) };
  } catch (e) {
    throw new Error(`${file}: ${(e as Error).message}`);
  }
}

/**
 * `/registry/<group or core>/<plural>/...` → the resource as the configuration names it (`secrets`,
 * `deployments.apps`); keys of no registered resource (range allocations) are left plain.
 */
export function resourceResolver(types: readonly ResourceType[]): (key: string) => string | undefined {
  const byStorageKey = new Map<string, string>();
  for (const t of types) {
    const slash = t.storageKey.indexOf('/');
    if (slash < 0) continue;
    const group = t.storageKey.slice(0, slash);
    const plural = t.storageKey.slice(slash + 1);
    byStorageKey.set(t.storageKey, group === 'core' ? plural : `${plural}.${group}`);
  }
  return (key) => {
    if (!key.startsWith(ROOT)) return undefined;
    const groupEnd = key.indexOf('/', ROOT.length);
    const pluralEnd = groupEnd < 0 ? -1 : key.indexOf('/', groupEnd + 1);
    return pluralEnd < 0 ? undefined : byStorageKey.get(key.slice(ROOT.length, pluralEnd));
  };
}

/**
 * Wraps the backend and starts the reload watcher. Returns the wrapped backend and a stop function (watcher
 * and KMS connections).
 */
export function applyEncryption(backend: Backend, setup: EncryptionSetup, types: readonly ResourceType[], log: (msg: string) => void): { backend: EncryptingBackend; stop(): void } {
  const wrapped = new EncryptingBackend(backend, { transformers: setup.transformers, resourceOf: resourceResolver(types) });
  let stopped = false;
  let reloading = Promise.resolve();
  const onChange = () => {
    reloading = reloading.then(() => (stopped ? undefined : reloadEncryption(setup, wrapped, log).then(() => undefined)));
  };
  if (setup.reload) watchFile(setup.file, { interval: RELOAD_POLL_MS, persistent: false }, onChange);
  return {
    backend: wrapped,
    stop() {
      stopped = true;
      if (setup.reload) unwatchFile(setup.file, onChange);
      wrapped.current.close();
    },
  };
}

/**
 * The KMS health checks on livez, readyz and healthz, named as the reference names them: one per KMS
 * provider (`kms-provider-<index>`), or with reload a single `kms-providers` covering whatever is loaded
 * (the set of checks cannot change at run time).
 */
export function registerEncryptionHealth(health: HealthChecks, setup: EncryptionSetup, wrapped: EncryptingBackend): void {
  const on: ('livez' | 'readyz' | 'healthz')[] = ['livez', 'readyz', 'healthz'];
  if (setup.reload) health.add('kms-providers', () => checkAll(wrapped.current.kms), on);
  else setup.transformers.kms.forEach((p, i) => health.add(`kms-provider-${i}`, () => checkAll([p]), on));
}

async function checkAll(providers: readonly { name: string; healthCheck?(): Promise<void> }[]): Promise<void> {
  const failures: string[] = [];
  for (const p of providers) {
    try {
      await p.healthCheck?.();
    } catch (e) {
      failures.push(`${p.name}: ${(e as Error).message}`);
    }
  }
  if (failures.length > 0) throw new Error(failures.join('; '));
}

/** Re-reads the file; swaps the configuration only when it changed and is valid in full. */
export async function reloadEncryption(setup: EncryptionSetup, wrapped: EncryptingBackend, log: (msg: string) => void): Promise<boolean> {
  let next: EncryptionTransformers;
  try {
    const { config, text } = loadEncryptionConfiguration(setup.file, { reload: true, kmsV1: setup.kmsV1 });
    if (text === setup.text) return false;
    next = await buildTransformers(config, setup.factory);
    setup.text = text;
  } catch (e) {
    log(`encryption provider configuration not reloaded, the previous one stays in use: ${(e as Error).message}`);
    return false;
  }
  const previous = wrapped.current;
  wrapped.setTransformers(next);
  setup.transformers = next;
  // Reads already in flight may still use the old KMS connections for a moment.
  setTimeout(() => previous.close(), 10_000).unref();
  log(`encryption provider configuration reloaded from ${setup.file}`);
  return true;
}
