/**
 * Where a webhook is reached. A `url` is used as written. A `service` is reached at one of the ready
 * addresses its Endpoints list for the service port (the endpoint routing of the reference), else at its
 * cluster IP, or its external name; the certificate is checked against `<name>.<namespace>.svc`.
 */
import { isObject } from '../../api/types.js';
import type { ObjectReader } from '../types.js';
import type { Target } from './client.js';
import type { ClientConfig, ServiceRef } from './compile.js';

/** The service cannot be routed to: a call error handled by failurePolicy. */
export class ResolveFailed extends Error {}

export function targetForURL(url: string, cc: ClientConfig, timeoutParam: string): Target {
  const u = new URL(url);
  const host = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
  const query = u.search ? `${u.search}&${timeoutParam}` : `?${timeoutParam}`;
  const path = `${u.pathname || '/'}${query}`;
  return { host, port: u.port ? Number(u.port) : 443, path, serverName: host, ca: cc.ca, poolKey: cc.key, url: `https://${u.host}${path}` };
}

interface ServicePort {
  name: string;
  port: number;
}

function servicePorts(spec: Record<string, unknown>): ServicePort[] {
  const ports = Array.isArray(spec.ports) ? spec.ports.filter(isObject) : [];
  return ports.map((p) => ({ name: typeof p.name === 'string' ? p.name : '', port: typeof p.port === 'number' ? p.port : 0 }));
}

/** A ready address and port from the Endpoints subsets that serve the service port's name. */
function endpointAddress(endpoints: Record<string, unknown> | undefined, portName: string): { ip: string; port: number } | undefined {
  const subsets = endpoints && Array.isArray(endpoints.subsets) ? endpoints.subsets.filter(isObject) : [];
  for (const ss of subsets) {
    const addresses = Array.isArray(ss.addresses) ? ss.addresses.filter((a) => isObject(a) && typeof a.ip === 'string') : [];
    if (addresses.length === 0) continue;
    const ports = Array.isArray(ss.ports) ? ss.ports.filter(isObject) : [];
    for (const p of ports) {
      if ((typeof p.name === 'string' ? p.name : '') !== portName || typeof p.port !== 'number') continue;
      const pick = addresses[Math.floor(Math.random() * addresses.length)] as { ip: string };
      return { ip: pick.ip, port: p.port };
    }
  }
  return undefined;
}

export async function targetForService(objects: ObjectReader, s: ServiceRef, cc: ClientConfig, timeoutParam: string): Promise<Target> {
  const svc = await objects.get('', 'services', s.namespace, s.name);
  if (!svc) throw new ResolveFailed(`service "${s.name}" not found`);
  const spec = isObject(svc.spec) ? svc.spec : {};
  const type = typeof spec.type === 'string' ? spec.type : 'ClusterIP';
  const path = `${s.path || '/'}?${timeoutParam}`;
  const serverName = `${s.name}.${s.namespace}.svc`;
  const base = { path, serverName, ca: cc.ca, poolKey: cc.key, url: `https://${serverName}:${s.port}${path}` };
  if (type === 'ExternalName') {
    const host = typeof spec.externalName === 'string' ? spec.externalName : '';
    if (host === '') throw new ResolveFailed(`service ${s.namespace}/${s.name} has no externalName`);
    return { ...base, host, port: s.port };
  }
  if (type !== 'ClusterIP' && type !== 'NodePort' && type !== 'LoadBalancer') throw new ResolveFailed(`unsupported service type ${JSON.stringify(type)}`);
  const svcPort = servicePorts(spec).find((p) => p.port === s.port);
  if (!svcPort) throw new ResolveFailed(`no service port ${s.port} found for service ${JSON.stringify(s.name)}`);
  const endpoints = await objects.get('', 'endpoints', s.namespace, s.name);
  const ep = endpointAddress(endpoints as Record<string, unknown> | undefined, svcPort.name);
  if (ep) return { ...base, host: ep.ip, port: ep.port };
  const clusterIP = typeof spec.clusterIP === 'string' ? spec.clusterIP : '';
  if (clusterIP === '' || clusterIP === 'None') throw new ResolveFailed(`service ${s.namespace}/${s.name} has no endpoints`);
  return { ...base, host: clusterIP, port: svcPort.port };
}
