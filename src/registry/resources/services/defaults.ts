/**
 * Service defaults, and what an update keeps of the values allocated before. Cluster IPs and node ports
 * themselves are taken from the server's ranges in storage (allocations.ts), after validation.
 */
import { isObject, type ApiObject } from '../../../api/types.js';
import type { IPFamily } from './network.js';

type Obj = Record<string, unknown>;

const objects = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObject) : []);
const absent = (v: unknown) => v === undefined || v === null || v === '';
const setDefault = (o: Obj, key: string, value: unknown) => {
  if (absent(o[key])) o[key] = value;
};

export const typeOf = (spec: Obj): string => (typeof spec.type === 'string' && spec.type !== '' ? spec.type : 'ClusterIP');
export const needsClusterIP = (spec: Obj) => typeOf(spec) !== 'ExternalName';
export const needsNodePorts = (spec: Obj) =>
  typeOf(spec) === 'NodePort' || (typeOf(spec) === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts !== false);
const needsHealthCheckPort = (spec: Obj) => typeOf(spec) === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local';

export function specOf(o: ApiObject): Obj {
  if (o.spec === undefined || o.spec === null) o.spec = {};
  return isObject(o.spec) ? o.spec : {};
}

/**
 * The reference's v1 defaults plus the clusterIP/clusterIPs mirroring done on decode; the IP family is the
 * one of the server's service range.
 */
export function applyServiceDefaults(spec: Obj, family: IPFamily = 'IPv4'): void {
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
    if (!Array.isArray(spec.ipFamilies) || spec.ipFamilies.length === 0) spec.ipFamilies = [family];
    setDefault(spec, 'internalTrafficPolicy', 'Cluster');
  }
  if (type === 'NodePort' || type === 'LoadBalancer') setDefault(spec, 'externalTrafficPolicy', 'Cluster');
  if (type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts === undefined) spec.allocateLoadBalancerNodePorts = true;
  // clusterIPs is the source of truth; clusterIP mirrors its first entry.
  if (Array.isArray(spec.clusterIPs) && spec.clusterIPs.length > 0) spec.clusterIP = spec.clusterIPs[0];
  else if (!absent(spec.clusterIP)) spec.clusterIPs = [spec.clusterIP];
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
