/**
 * Objects the server creates at start when they are missing (the system priority classes, the mandatory
 * and suggested flow-control objects, one APIService per served group/version, ...): each group folder
 * names its own, given the served types.
 */
import type { ApiObject } from '../../api/types.js';
import type { Registry } from '../registry.js';
import type { ResourceType } from '../types.js';
import { apiregistrationBootstrap } from './apiregistration/index.js';
import { coreExtraBootstrap } from './core-extra/index.js';
import { flowcontrolBootstrap } from './flowcontrol/index.js';
import { schedulingBootstrap } from './scheduling/index.js';

export function bootstrapObjects(served: readonly ResourceType[]): ApiObject[] {
  return [...coreExtraBootstrap(served), ...schedulingBootstrap(served), ...flowcontrolBootstrap(served), ...apiregistrationBootstrap(served)];
}

/**
 * Creates every bootstrap object of a served type that does not exist yet (a 409 means another server did).
 * The create-only types count as served too: groups that store nothing (reviews) still get an APIService.
 */
export async function ensureBootstrapObjects(registry: Registry, log: (m: string) => void): Promise<void> {
  for (const obj of bootstrapObjects([...registry.types, ...registry.createOnly])) {
    const apiVersion = String(obj.apiVersion ?? '');
    const slash = apiVersion.indexOf('/');
    const [group, version] = slash < 0 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
    const type = registry.typesOfKind(group, version, String(obj.kind ?? ''))[0];
    if (!type) continue;
    const store = registry.store(group, version, type.plural);
    if (!store) continue;
    const namespace = type.namespaced ? obj.metadata?.namespace : undefined;
    const name = String(obj.metadata?.name ?? '');
    // Stored but unreadable (encrypted with a key no longer configured): it exists, so nothing to create.
    const unreadable = registry.reader(type).cacher.get(store.key(namespace, name))?.unreadable;
    if (unreadable) {
      log(`bootstrap: ${type.plural}/${name} exists but cannot be read: ${unreadable.message}`);
      continue;
    }
    const existing = await store.get(namespace, name).catch((e: { code?: number }) => {
      if (e.code === 404) return undefined;
      throw e;
    });
    if (existing) continue;
    await store.create(namespace, structuredClone(obj)).catch((e: { code?: number; message?: string }) => {
      if (e.code !== 409) log(`bootstrap: cannot create ${type.plural}/${name}: ${e.message ?? String(e)}`);
    });
  }
}
