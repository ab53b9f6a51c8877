/**
 * Kubeconfig forms a test wants: the document as an object, as YAML text, as a file, and as a ready
 * `KubeConfig` of `@kubernetes/client-node` (an optional peer dependency, loaded only when asked for).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { kubeconfigYaml } from '../server/kubeconfig.js';

export interface KubeconfigSource {
  url: string;
  caCertPem: string;
}

export interface Credential {
  user: string;
  token: string;
}

/** Writes `text` to `path`, or to a new private temp file (listed in `temps` for removal at close). */
export function writeKubeconfigFile(text: string, temps: string[], path?: string): string {
  if (path !== undefined) {
    writeFileSync(path, text, { mode: 0o600 });
    return path;
  }
  const dir = mkdtempSync(join(tmpdir(), 'orch-kubeconfig-'));
  temps.push(dir);
  const file = join(dir, 'kubeconfig');
  writeFileSync(file, text, { mode: 0o600 });
  return file;
}

export function removeTemps(temps: string[]): void {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
}

export function kubeconfigText(server: KubeconfigSource, cred: Credential): string {
  return kubeconfigYaml({ server: server.url, caCertPem: server.caCertPem, user: cred.user, token: cred.token });
}

export function kubeconfigObject(text: string): Record<string, unknown> {
  return parse(text, { version: '1.1' }) as Record<string, unknown>;
}

const CLIENT_NODE = '@kubernetes/client-node';

/**
 * The part of client-node's `KubeConfig` typed here without importing the package (it may be absent);
 * cast to its `KubeConfig` for the rest (informers, watches).
 */
export interface KubeConfigLike {
  makeApiClient<T>(api: new (config: never) => T): T;
  loadFromString(text: string): void;
  getCurrentCluster(): { server: string } | null;
}

/** A `KubeConfig` loaded from `text`; a clear error when the optional peer dependency is not installed. */
export async function clientNodeKubeConfig(text: string): Promise<KubeConfigLike> {
  let mod: { KubeConfig: new () => KubeConfigLike };
  try {
    mod = (await import(CLIENT_NODE)) as typeof mod;
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') throw e;
    throw new Error(`kubeConfig() needs the optional peer dependency ${CLIENT_NODE}; install it (npm install --save-dev ${CLIENT_NODE}) or use kubeconfigYaml / writeKubeconfig() instead`);
  }
  const kc = new mod.KubeConfig();
  kc.loadFromString(text);
  return kc;
}
