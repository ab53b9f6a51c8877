/**
 * Emptying one namespace through the API: per resource, one delete-collection call (or deletes one by one
 * where the resource has no collection delete), then a list of what is left and of the finalizers holding it.
 */
import { StatusError } from '../../errors/index.js';
import { isNotFound, type Client, type KubeObject } from '../../client/index.js';
import type { DeletableResource, DeletableDiscovery } from './discovery.js';
import type { DeletionFindings } from './conditions.js';

/** What sweeping one resource left behind. */
export interface ResourceSweep {
  remaining: number;
  finalizers: Map<string, number>;
  error?: string;
}

/** Resources swept at once in one pass: enough to overlap round trips, few enough not to crowd the server. */
const PARALLEL_RESOURCES = 4;

/** `plural` for the core group, `plural.group` for the others (how the reference names them in messages). */
export const resourceName = (r: Pick<DeletableResource, 'group' | 'plural'>) => (r.group ? `${r.plural}.${r.group}` : r.plural);

/** The collection delete is missing on this resource (405) or this path (404): delete one by one instead. */
const noCollectionDelete = (e: unknown) => e instanceof StatusError && (e.code === 405 || e.code === 404);

async function deleteEach(client: Client, r: DeletableResource, namespace: string, signal: AbortSignal): Promise<void> {
  const rc = client.resource(r, namespace);
  const { items } = await rc.listAll({ signal });
  for (const item of items) {
    if (item.metadata.deletionTimestamp || !item.metadata.name) continue; // already going; its finalizers decide when
    await rc.delete(item.metadata.name, { propagationPolicy: 'Background', signal }).catch((e: unknown) => {
      if (!isNotFound(e)) throw e;
    });
  }
}

/** Deletes everything of `r` in `namespace`; says what is left. Failures are reported, not thrown. */
export async function sweepResource(client: Client, r: DeletableResource, namespace: string, signal: AbortSignal): Promise<ResourceSweep> {
  const rc = client.resource<KubeObject>(r, namespace);
  try {
    // Most resources are empty: one small list spares them a delete call.
    const probe = await rc.list({ limit: 1, signal });
    if (probe.items.length === 0) return { remaining: 0, finalizers: new Map() };
    if (r.verbs.includes('deletecollection')) {
      await rc.deleteCollection({ propagationPolicy: 'Background', signal }).catch(async (e: unknown) => {
        if (!noCollectionDelete(e) || !r.verbs.includes('delete')) throw e;
        await deleteEach(client, r, namespace, signal);
      });
    } else {
      await deleteEach(client, r, namespace, signal);
    }
    const left = await rc.listAll({ signal });
    const finalizers = new Map<string, number>();
    for (const item of left.items) for (const f of item.metadata.finalizers ?? []) finalizers.set(f, (finalizers.get(f) ?? 0) + 1);
    return { remaining: left.items.length, finalizers };
  } catch (e) {
    if (signal.aborted) throw e;
    return { remaining: 0, finalizers: new Map(), error: e instanceof Error ? e.message : String(e) };
  }
}

/** Sweeps every discovered resource (a few at a time) and gathers the findings of the pass. */
export async function sweepNamespace(client: Client, discovered: DeletableDiscovery, namespace: string, signal: AbortSignal): Promise<DeletionFindings> {
  const sweeps = new Array<ResourceSweep>(discovered.resources.length);
  let next = 0;
  const lane = async () => {
    while (next < discovered.resources.length && !signal.aborted) {
      const i = next++;
      sweeps[i] = await sweepResource(client, discovered.resources[i] as DeletableResource, namespace, signal);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_RESOURCES, discovered.resources.length) }, lane));
  return gatherFindings(discovered, sweeps);
}

/** Pure: the findings of a pass from discovery's report and each resource's sweep (same order). */
export function gatherFindings(discovered: DeletableDiscovery, sweeps: readonly (ResourceSweep | undefined)[]): DeletionFindings {
  const contentFailures: string[] = [];
  const remaining = new Map<string, number>();
  const finalizers = new Map<string, number>();
  discovered.resources.forEach((r, i) => {
    const s = sweeps[i];
    if (!s) return;
    if (s.error) contentFailures.push(`${resourceName(r)}: ${s.error}`);
    if (s.remaining > 0) remaining.set(resourceName(r), s.remaining);
    for (const [f, n] of s.finalizers) finalizers.set(f, (finalizers.get(f) ?? 0) + n);
  });
  return { discoveryFailures: discovered.discoveryFailures, parseFailures: discovered.parseFailures, contentFailures, remaining, finalizers };
}
