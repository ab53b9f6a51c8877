/** The service table as kubectl prints it. */
import { isObject, type ApiObject } from '../../../api/types.js';
import { column } from '../../schema.js';
import type { TableColumn } from '../../types.js';
import { typeOf } from './defaults.js';

type Obj = Record<string, unknown>;
const rec = (v: unknown): Obj => (isObject(v) ? v : {});
const objects = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObject) : []);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** The reference printer: external IPs, load-balancer ingress (or <pending>), or the external name. */
export function externalIP(o: ApiObject): string {
  const spec = rec(o.spec);
  const externalIPs = strings(spec.externalIPs);
  switch (typeOf(spec)) {
    case 'LoadBalancer': {
      const ingress = objects(rec(rec(o.status).loadBalancer).ingress)
        .map((i) => (typeof i.ip === 'string' && i.ip ? i.ip : typeof i.hostname === 'string' ? i.hostname : ''))
        .filter((s) => s !== '');
      const all = [...ingress, ...externalIPs];
      return all.length > 0 ? all.join(',') : '<pending>';
    }
    case 'ExternalName':
      return typeof spec.externalName === 'string' ? spec.externalName : '<none>';
    default:
      return externalIPs.length > 0 ? externalIPs.join(',') : '<none>';
  }
}

/** "80/TCP,443:30443/TCP"; the node port appears between port and protocol. */
export function portsText(o: ApiObject): string {
  const ports = objects(rec(o.spec).ports).map((p) => {
    const protocol = typeof p.protocol === 'string' ? p.protocol : 'TCP';
    const nodePort = typeof p.nodePort === 'number' && p.nodePort !== 0 ? `:${p.nodePort}` : '';
    return `${String(p.port)}${nodePort}/${protocol}`;
  });
  return ports.length > 0 ? ports.join(',') : '<none>';
}

function selectorText(o: ApiObject): string {
  const sel = rec(rec(o.spec).selector);
  const parts = Object.keys(sel)
    .sort()
    .map((k) => `${k}=${String(sel[k])}`);
  return parts.length > 0 ? parts.join(',') : '<none>';
}

export const serviceColumns: TableColumn[] = [
  column('Type', 'string', 'How the service is exposed.', (o) => typeOf(rec(o.spec))),
  column('Cluster-IP', 'string', 'The virtual address inside the cluster.', (o) => {
    const ip = rec(o.spec).clusterIP;
    return typeof ip === 'string' && ip !== '' ? ip : '<none>';
  }),
  column('External-IP', 'string', 'Addresses reachable from outside.', externalIP),
  column('Port(s)', 'string', 'Exposed ports.', portsText),
  column('Selector', 'string', 'Labels of the pods that receive traffic.', selectorText, 1),
];
