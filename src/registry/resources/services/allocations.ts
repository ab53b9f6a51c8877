/**
 * Cluster IPs and node ports of Services, taken from the server's ranges in storage (see range-allocator.ts)
 * around each write, with the reference's rules and messages: a value the client asks for must be in range
 * and free (422), a value the server picks comes from the range or the write fails (500, range is full).
 */
import { isObject, type ApiObject } from '../../../api/types.js';
import { fieldError, internalError, invalid, type FieldError } from '../../../errors/index.js';
import type { Backend } from '../../../storage/index.js';
import { ROOT } from '../../keys.js';
import type { Allocations, Reservation } from '../../types.js';
import { needsClusterIP, needsNodePorts, specOf, typeOf } from './defaults.js';
import type { ServiceNetwork } from './network.js';
import { dynamicOffset, RangeAllocator, type Owner } from './range-allocator.js';

type Obj = Record<string, unknown>;

/** Storage prefixes of the two ranges (the reference keeps one bitmap under each of these names). */
export const SERVICE_IPS_PREFIX = `${ROOT}ranges/serviceips/`;
export const NODE_PORTS_PREFIX = `${ROOT}ranges/servicenodeports/`;

const objects = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObject) : []);
const given = (v: unknown): v is number => typeof v === 'number' && v !== 0;

/** The ranges of one server's network, as allocators. */
export function serviceRanges(net: ServiceNetwork): { ips: RangeAllocator; ports: RangeAllocator } {
  const portCount = net.nodePorts.max - net.nodePorts.min + 1;
  const portOffset = (name: string) => {
    const n = /^\d+$/.test(name) ? Number(name) - net.nodePorts.min : -1;
    return n >= 0 && n < portCount ? n : undefined;
  };
  // The reference's band rules: IPs min 16, max 256, step 16 of the whole CIDR; ports min 16, max 128, step 32.
  const cidrSize = net.family === 'IPv4' ? net.ipCount + 2 : net.ipCount + 1;
  const ipBand = cidrSize < 16 ? 0 : dynamicOffset(cidrSize, net.ipCount, { min: 16, max: 256, step: 16 });
  const portBand = portCount <= 16 ? 0 : dynamicOffset(portCount, portCount, { min: 16, max: 128, step: 32 });
  return {
    ips: new RangeAllocator(SERVICE_IPS_PREFIX, net.ipCount, net.ipAt, net.offsetOf, ipBand),
    ports: new RangeAllocator(NODE_PORTS_PREFIX, portCount, (o) => String(net.nodePorts.min + o), portOffset, portBand),
  };
}

/** What a Service holds: the offsets of its cluster IPs and of its node ports (health check port included). */
export function heldBy(spec: Obj, net: ServiceNetwork): { ips: Set<number>; ports: Set<number> } {
  const ips = new Set<number>();
  const ports = new Set<number>();
  const clusterIPs = Array.isArray(spec.clusterIPs) ? spec.clusterIPs : typeof spec.clusterIP === 'string' ? [spec.clusterIP] : [];
  for (const ip of clusterIPs) {
    const at = typeof ip === 'string' && ip !== 'None' ? net.offsetOf(ip) : undefined;
    if (at !== undefined) ips.add(at);
  }
  const port = (p: unknown) => {
    if (typeof p === 'number' && p >= net.nodePorts.min && p <= net.nodePorts.max) ports.add(p - net.nodePorts.min);
  };
  for (const p of objects(spec.ports)) port(p.nodePort);
  port(spec.healthCheckNodePort);
  return { ips, ports };
}

export function ownerOf(obj: ApiObject): Owner {
  return { uid: String(obj.metadata?.uid ?? ''), namespace: String(obj.metadata?.namespace ?? ''), name: String(obj.metadata?.name ?? '') };
}

/** The Service type's allocations for one server's network. */
export function serviceAllocations(net: ServiceNetwork): Allocations {
  const ranges = serviceRanges(net);
  return {
    reserve: (backend, obj, old, dryRun) => reserve(net, ranges, backend, obj, old, dryRun),
    release: (backend, old) => giveBack(backend, ranges, heldBy(isObject(old.spec) ? old.spec : {}, net), ownerOf(old)),
  };
}

/** Gives back values; a failure leaves them for the repair loop rather than failing a write that is done. */
async function giveBack(backend: Backend, ranges: ReturnType<typeof serviceRanges>, held: { ips: Iterable<number>; ports: Iterable<number> }, owner: Owner): Promise<void> {
  const all = [...[...held.ips].map((o) => ranges.ips.give(backend, o, owner)), ...[...held.ports].map((o) => ranges.ports.give(backend, o, owner))];
  await Promise.allSettled(all);
}

async function reserve(
  net: ServiceNetwork,
  ranges: ReturnType<typeof serviceRanges>,
  backend: Backend,
  obj: ApiObject,
  old: ApiObject | undefined,
  dryRun: boolean,
): Promise<Reservation> {
  const spec = specOf(obj);
  const owner = ownerOf(obj);
  const oldSpec: Obj = old && isObject(old.spec) ? old.spec : {};
  const had = heldBy(oldSpec, net);
  // Values an update keeps are not checked again (a range changed since, or a Service stored before
  // values were recorded, stays updatable), as in the reference.
  const keptIPs = new Set(Array.isArray(oldSpec.clusterIPs) ? oldSpec.clusterIPs : [oldSpec.clusterIP]);
  const keptPorts = new Set([...objects(oldSpec.ports).map((p) => p.nodePort), oldSpec.healthCheckNodePort].filter(given));
  const taken = { ips: [] as number[], ports: [] as number[] };
  const name = String(obj.metadata?.name ?? '');
  const refuse = (e: FieldError) => invalid({ kind: 'Service', name }, [e]);

  /** One value the client asked for: in range, and free or already this Service's. */
  const claim = async (range: RangeAllocator, at: number, had: Set<number>, list: number[]): Promise<boolean> => {
    if (had.has(at)) return true;
    if (dryRun) return range.available(backend, at, owner);
    const r = await range.take(backend, at, owner);
    if (r === 'taken') list.push(at);
    return r !== 'busy';
  };
  /** One value the server picks. */
  const pick = async (range: RangeAllocator, list: number[]): Promise<number | undefined> => {
    const at = dryRun ? await range.peekNext(backend) : await range.takeNext(backend, owner);
    if (at !== undefined && !dryRun) list.push(at);
    return at;
  };
  const nodePort = async (requested: unknown, field: string, what = ''): Promise<number> => {
    if (!given(requested)) {
      const at = await pick(ranges.ports, taken.ports);
      if (at === undefined) throw internalError('failed to allocate a nodePort: range is full');
      return net.nodePorts.min + at;
    }
    if (keptPorts.has(requested)) return requested;
    const inRange = requested >= net.nodePorts.min && requested <= net.nodePorts.max;
    const detail = (why: string) => `${what}${why}`;
    if (!inRange) throw refuse(fieldError.invalid(field, requested, detail(`provided port is not in the valid range. The range of valid ports is ${net.nodePortRange}`)));
    if (!(await claim(ranges.ports, requested - net.nodePorts.min, had.ports, taken.ports))) {
      throw refuse(fieldError.invalid(field, requested, detail('provided port is already allocated')));
    }
    return requested;
  };

  try {
    if (needsClusterIP(spec) && spec.clusterIP !== 'None') {
      if (typeof spec.clusterIP !== 'string' || spec.clusterIP === '') {
        const at = await pick(ranges.ips, taken.ips);
        if (at === undefined) throw internalError('failed to allocate a serviceIP: range is full');
        spec.clusterIP = net.ipAt(at);
        spec.clusterIPs = [spec.clusterIP];
      } else if (!keptIPs.has(spec.clusterIP)) {
        const ip = spec.clusterIP;
        const at = net.offsetOf(ip);
        const failed = (why: string) => refuse(fieldError.invalid('spec.clusterIPs', spec.clusterIPs ?? [ip], `failed to allocate IP ${ip}: ${why}`));
        if (at === undefined) throw failed(`the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${net.cidr}`);
        if (!(await claim(ranges.ips, at, had.ips, taken.ips))) throw failed('provided IP is already allocated');
      }
    }
    // Ports that share a port number (53/TCP and 53/UDP) share one node port, as in the reference.
    const byPort = new Map<unknown, number>();
    const ports = objects(spec.ports);
    for (const [i, p] of ports.entries()) {
      if (!given(p.nodePort) && !needsNodePorts(spec)) continue;
      const shared = byPort.get(p.port);
      if (shared === undefined) {
        const requested = given(p.nodePort) ? p.nodePort : ports.find((q) => q.port === p.port && given(q.nodePort))?.nodePort;
        p.nodePort = await nodePort(requested, `spec.ports[${i}].nodePort`);
        byPort.set(p.port, p.nodePort as number);
      } else if (!given(p.nodePort)) p.nodePort = shared;
      else if (p.nodePort !== shared) await nodePort(p.nodePort, `spec.ports[${i}].nodePort`);
    }
    if (typeOf(spec) === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local') {
      const requested = spec.healthCheckNodePort;
      spec.healthCheckNodePort = await nodePort(requested, 'spec.healthCheckNodePort', given(requested) ? `failed to allocate requested HealthCheck NodePort ${requested}: ` : '');
    }
  } catch (e) {
    await giveBack(backend, ranges, taken, owner);
    throw e;
  }
  return {
    async commit() {
      if (!old) return;
      // Values the old object held and the stored one no longer does (a type change, a dropped port).
      const now = heldBy(spec, net);
      const dropped = { ips: [...had.ips].filter((o) => !now.ips.has(o)), ports: [...had.ports].filter((o) => !now.ports.has(o)) };
      if (dropped.ips.length + dropped.ports.length > 0) await giveBack(backend, ranges, dropped, ownerOf(old));
    },
    revert: () => giveBack(backend, ranges, taken, owner),
  };
}
