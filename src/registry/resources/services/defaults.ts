/**
 * Service defaults and allocation. The reference allocates cluster IPs and node ports from bitmaps in storage;
 * a strategy hook cannot see other objects, so values are drawn at random from the ranges (collisions in
 * 2^20 addresses are rare; a real allocator belongs to the service REST layer).
 */
import { randomInt } from 'node:crypto';
import { isObject, type ApiObject } from '../../../api/types.js';

type Obj = Record<string, unknown>;

export const SERVICE_CIDR = '10.96.0.0/12';
const CIDR_BASE = (10 << 24) | (96 << 16);
const CIDR_SIZE = 1 << 20;
export const NODE_PORT_MIN = 30000;
export const NODE_PORT_MAX = 32767;

const objects = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObject) : []);
const absent = (v: unknown) => v === undefined || v === null || v === '';
const setDefault = (o: Obj, key: string, value: unknown) => {
  if (absent(o[key])) o[key] = value;
};

const ipv4ToInt = (ip: string) => ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
const intToIPv4 = (n: number) => [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');

/** Whether `ip` is an IPv4 address inside the service range. */
export function inServiceRange(ip: string): boolean {
  if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(ip)) return false;
  const offset = ipv4ToInt(ip) - CIDR_BASE;
  return offset >= 0 && offset < CIDR_SIZE;
}

/** Network and broadcast addresses are never handed out; .1 is kept for the API server's own service. */
export const randomClusterIP = () => intToIPv4(CIDR_BASE + randomInt(2, CIDR_SIZE - 1));

export function randomNodePort(used: Set<number>): number {
  for (;;) {
    const p = randomInt(NODE_PORT_MIN, NODE_PORT_MAX + 1);
    if (!used.has(p)) return p;
  }
}

export const typeOf = (spec: Obj): string => (typeof spec.type === 'string' && spec.type !== '' ? spec.type : 'ClusterIP');
export const needsClusterIP = (spec: Obj) => typeOf(spec) !== 'ExternalName';
export const needsNodePorts = (spec: Obj) =>
  typeOf(spec) === 'NodePort' || (typeOf(spec) === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts !== false);
const needsHealthCheckPort = (spec: Obj) => typeOf(spec) === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local';

export function specOf(o: ApiObject): Obj {
  if (o.spec === undefined || o.spec === null) o.spec = {};
  return isObject(o.spec) ? o.spec : {};
}

/** The reference's v1 defaults plus the clusterIP/clusterIPs mirroring done on decode. */
export function applyServiceDefaults(spec: Obj): void {
  setDefault(spec, 'type', 'ClusterIP');
  setDefault(spec, 'sessionAffinity', 'None');
  if (spec.sessionAffinity === 'ClientIP') {
    const cfg: Obj = isObject(spec.sessionAffinityConfig) ? spec.sessionAffinityConfig : {};
    const clientIP: Obj = isObject(cfg.clientIP) ? cfg.clientIP : {};
    setDefault(clientIP, 'timeoutSeconds', 10800);
    spec.sessionAffinityConfig = { ...cfg, clientIP };
  }
  for (const p of objects(spec.ports)) {
    setDefault(p, 'protocol', 'TCP');
    if (absent(p.targetPort) || p.targetPort === 0) p.targetPort = p.port;
  }
  const type = typeOf(spec);
  if (type !== 'ExternalName') {
    setDefault(spec, 'ipFamilyPolicy', 'SingleStack');
    if (!Array.isArray(spec.ipFamilies) || spec.ipFamilies.length === 0) spec.ipFamilies = ['IPv4'];
    setDefault(spec, 'internalTrafficPolicy', 'Cluster');
  }
  if (type === 'NodePort' || type === 'LoadBalancer') setDefault(spec, 'externalTrafficPolicy', 'Cluster');
  if (type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts === undefined) spec.allocateLoadBalancerNodePorts = true;
  // clusterIPs is the source of truth; clusterIP mirrors its first entry.
  if (Array.isArray(spec.clusterIPs) && spec.clusterIPs.length > 0) spec.clusterIP = spec.clusterIPs[0];
  else if (!absent(spec.clusterIP)) spec.clusterIPs = [spec.clusterIP];
}

/** Fills a cluster IP and node ports where the type needs them and none were given. */
export function allocate(spec: Obj): void {
  if (needsClusterIP(spec) && absent(spec.clusterIP)) {
    const ip = randomClusterIP();
    spec.clusterIP = ip;
    spec.clusterIPs = [ip];
  }
  const used = new Set(objects(spec.ports).map((p) => p.nodePort).filter((n): n is number => typeof n === 'number'));
  if (needsNodePorts(spec)) {
    for (const p of objects(spec.ports)) {
      if (absent(p.nodePort) || p.nodePort === 0) {
        p.nodePort = randomNodePort(used);
        used.add(p.nodePort as number);
      }
    }
  }
  if (needsHealthCheckPort(spec) && (absent(spec.healthCheckNodePort) || spec.healthCheckNodePort === 0)) {
    spec.healthCheckNodePort = randomNodePort(used);
  }
}

/**
 * On update a client often sends the manifest it created from, without the allocated values: keep them from
 * the stored object when the type still needs them, and drop them when the type changed and no longer does.
 */
export function carryAllocations(spec: Obj, oldSpec: Obj): void {
  if (needsClusterIP(spec) && needsClusterIP(oldSpec) && absent(spec.clusterIP) && !absent(oldSpec.clusterIP)) {
    spec.clusterIP = oldSpec.clusterIP;
    spec.clusterIPs = oldSpec.clusterIPs;
  }
  if (!needsClusterIP(spec) && needsClusterIP(oldSpec)) {
    for (const k of ['clusterIP', 'clusterIPs', 'ipFamilies', 'ipFamilyPolicy', 'internalTrafficPolicy']) {
      if (JSON.stringify(spec[k]) === JSON.stringify(oldSpec[k])) delete spec[k];
    }
  }
  const oldByName = new Map(objects(oldSpec.ports).map((p) => [String(p.name ?? ''), p.nodePort]));
  if (needsNodePorts(spec) && needsNodePorts(oldSpec)) {
    const taken = new Set(objects(spec.ports).map((p) => p.nodePort));
    for (const p of objects(spec.ports)) {
      const old = oldByName.get(String(p.name ?? ''));
      if ((absent(p.nodePort) || p.nodePort === 0) && old !== undefined && !taken.has(old)) p.nodePort = old;
    }
  } else if (!needsNodePorts(spec) && needsNodePorts(oldSpec)) {
    for (const p of objects(spec.ports)) if (p.nodePort === oldByName.get(String(p.name ?? ''))) delete p.nodePort;
  }
  const externallyReachable = (sp: Obj) => typeOf(sp) === 'NodePort' || typeOf(sp) === 'LoadBalancer';
  if (!externallyReachable(spec) && externallyReachable(oldSpec) && spec.externalTrafficPolicy === oldSpec.externalTrafficPolicy) {
    delete spec.externalTrafficPolicy;
  }
  if (typeOf(spec) !== 'LoadBalancer' && spec.allocateLoadBalancerNodePorts === oldSpec.allocateLoadBalancerNodePorts) {
    delete spec.allocateLoadBalancerNodePorts;
  }
  if (needsHealthCheckPort(spec) && absent(spec.healthCheckNodePort)) {
    if (!absent(oldSpec.healthCheckNodePort)) spec.healthCheckNodePort = oldSpec.healthCheckNodePort;
  }
  else if (!needsHealthCheckPort(spec) && spec.healthCheckNodePort === oldSpec.healthCheckNodePort) delete spec.healthCheckNodePort;
}
