/**
 * Repair of the service ranges, a loop like the reference's: a value a Service holds that storage does not
 * record (Services stored before values were recorded, or by a server that stopped halfway) is recorded;
 * a recorded value that no Service holds (a server stopped between taking a value and storing its Service)
 * is given back once two passes in a row found it so, unchanged, which leaves in-flight creates alone.
 */
import { listObjects } from '../../list-watch.js';
import type { Registry } from '../../registry.js';
import { heldBy, ownerOf, serviceRanges } from './allocations.js';
import type { ServiceNetwork } from './network.js';
import type { Owner } from './range-allocator.js';

/** What one pass remembers for the next: leaked keys and the revision they were seen at. */
export type LeakMemory = Map<string, number>;

export const REPAIR_INTERVAL_MS = 3 * 60_000;

/** One pass; returns how many values it recorded and gave back. */
export async function repairServiceRanges(registry: Registry, net: ServiceNetwork, seen: LeakMemory, log: (m: string) => void) {
  const store = registry.store('', 'v1', 'services');
  if (!store) return { recorded: 0, released: 0 };
  const backend = registry.backend;
  const ranges = serviceRanges(net);
  // Recorded values first, then the Services: a Service stored in between shows as a leak for one pass only.
  const recorded = new Map([...(await ranges.ips.holders(backend)), ...(await ranges.ports.holders(backend))]);
  const { items } = await listObjects(store.type, backend, undefined, {});
  const wanted = new Map<string, Owner>();
  let fixed = 0;
  for (const svc of items) {
    const owner = ownerOf(svc);
    const held = heldBy((svc.spec ?? {}) as Record<string, unknown>, net);
    const values = [...[...held.ips].map((o) => [ranges.ips, o] as const), ...[...held.ports].map((o) => [ranges.ports, o] as const)];
    for (const [range, at] of values) {
      const key = range.key(at);
      wanted.set(key, owner);
      const holder = recorded.get(key)?.owner;
      if (holder?.uid === owner.uid) continue;
      if (holder) {
        log(`service ranges: ${key} is held by ${holder.namespace}/${holder.name} and also used by ${owner.namespace}/${owner.name}`);
        continue;
      }
      const r = await range.take(backend, at, owner);
      if (r === 'taken') fixed++;
    }
  }
  let released = 0;
  const leaks: LeakMemory = new Map();
  for (const [key, { owner, modRevision }] of recorded) {
    const user = wanted.get(key);
    if (user && user.uid === owner?.uid) continue;
    if (seen.get(key) !== modRevision) {
      leaks.set(key, modRevision);
      continue;
    }
    try {
      await backend.delete(key, modRevision);
      released++;
      log(`service ranges: gave back ${key}, held by ${owner ? `${owner.namespace}/${owner.name}` : 'nobody'} that no Service uses`);
    } catch {
      // Changed since the pass read it: looked at again next time.
    }
  }
  seen.clear();
  for (const [k, v] of leaks) seen.set(k, v);
  return { recorded: fixed, released };
}

/**
 * Runs a pass now (resolving once it is done, so a new server starts with its ranges in order) and then
 * every `intervalMs`; resolves to the function that stops it.
 */
export async function startServiceRangeRepair(registry: Registry, net: ServiceNetwork, log: (m: string) => void, intervalMs = REPAIR_INTERVAL_MS): Promise<() => void> {
  const seen: LeakMemory = new Map();
  let stopped = false;
  let running: Promise<unknown> = Promise.resolve();
  const pass = () => {
    running = running
      .then(() => (stopped ? undefined : repairServiceRanges(registry, net, seen, log)))
      .catch((e: Error) => {
        if (!stopped) log(`service ranges: repair failed: ${e.message}`);
      });
    return running;
  };
  await pass();
  const timer = setInterval(pass, intervalMs);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
