/** Service validation with the reference's rules, field paths and wording. */
import { isObject, type ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { isDNS1123Label, isDNS1123Subdomain, isIP, isQualifiedName, isValidPortNum, validateLabels } from '../../validation/index.js';
import { isValidPortName, PROTOCOLS } from '../pods/ports.js';
import { eachObject, oneOf } from '../pods/validation.js';
import { typeOf } from './defaults.js';
import type { IPFamily } from './network.js';

type Obj = Record<string, unknown>;

export const SERVICE_TYPES = ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'];
const absent = (v: unknown): v is undefined | null | '' => v === undefined || v === null || v === '';
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map((x) => String(x)) : []);

function validatePorts(spec: Obj, type: string, errs: FieldError[]): void {
  const ports = Array.isArray(spec.ports) ? spec.ports : [];
  const headless = spec.clusterIP === 'None';
  if (ports.length === 0 && type !== 'ExternalName' && !headless) errs.push(fieldError.required('spec.ports'));
  const names = new Set<string>();
  const keys = new Set<string>();
  const nodePorts = new Set<string>();
  eachObject(spec.ports, 'spec.ports', errs, (p, path) => {
    if (absent(p.name)) {
      // Names tell multiple ports apart (endpoints and named target ports refer to them).
      if (ports.length > 1) errs.push(fieldError.required(`${path}.name`));
    } else {
      const name = String(p.name);
      for (const msg of isDNS1123Label(name)) errs.push(fieldError.invalid(`${path}.name`, p.name, msg));
      if (names.has(name)) errs.push(fieldError.duplicate(`${path}.name`, p.name));
      names.add(name);
    }
    if (absent(p.port)) errs.push(fieldError.required(`${path}.port`));
    else for (const msg of isValidPortNum(p.port as number)) errs.push(fieldError.invalid(`${path}.port`, p.port, msg));
    oneOf(errs, `${path}.protocol`, p.protocol, PROTOCOLS, true);
    const key = `${String(p.port)}/${String(p.protocol)}`;
    if (keys.has(key)) errs.push(fieldError.duplicate(path, key));
    keys.add(key);
    if (typeof p.targetPort === 'string') {
      for (const msg of isValidPortName(p.targetPort)) errs.push(fieldError.invalid(`${path}.targetPort`, p.targetPort, msg));
    } else if (!absent(p.targetPort)) {
      for (const msg of isValidPortNum(p.targetPort as number)) errs.push(fieldError.invalid(`${path}.targetPort`, p.targetPort, msg));
    }
    if (!absent(p.appProtocol)) {
      for (const msg of isQualifiedName(String(p.appProtocol))) errs.push(fieldError.invalid(`${path}.appProtocol`, p.appProtocol, msg));
    }
    if (!absent(p.nodePort) && p.nodePort !== 0) {
      if (type === 'ClusterIP' || type === 'ExternalName') {
        errs.push(fieldError.forbidden(`${path}.nodePort`, `may not be used when \`type\` is '${type}'`));
      } else {
        // Whether the port is in the server's node port range is the allocator's check.
        for (const msg of isValidPortNum(p.nodePort as number)) errs.push(fieldError.invalid(`${path}.nodePort`, p.nodePort, msg));
      }
      const np = `${String(p.nodePort)}/${String(p.protocol)}`;
      if (nodePorts.has(np)) errs.push(fieldError.duplicate(`${path}.nodePort`, p.nodePort));
      nodePorts.add(np);
    }
  });
}

function validateClusterIPs(spec: Obj, type: string, errs: FieldError[]): void {
  const ips = strings(spec.clusterIPs);
  if (type === 'ExternalName') {
    if (!absent(spec.clusterIP) || ips.length > 0) errs.push(fieldError.forbidden('spec.clusterIPs', 'may not be set for ExternalName services'));
    if (!absent(spec.ipFamilyPolicy)) errs.push(fieldError.forbidden('spec.ipFamilyPolicy', 'may not be set for ExternalName services'));
    if (strings(spec.ipFamilies).length > 0) errs.push(fieldError.forbidden('spec.ipFamilies', 'may not be set for ExternalName services'));
    return;
  }
  if (!absent(spec.clusterIP) && ips.length > 0 && ips[0] !== spec.clusterIP) {
    errs.push(fieldError.invalid('spec.clusterIPs', spec.clusterIPs, 'first value must match `clusterIP`'));
  }
  if (ips.length > 1) errs.push(fieldError.invalid('spec.clusterIPs', spec.clusterIPs, 'this cluster is not configured for dual-stack services'));
  ips.forEach((ip, i) => {
    const path = `spec.clusterIPs[${i}]`;
    if (ip === 'None') {
      if (type === 'NodePort' || type === 'LoadBalancer') errs.push(fieldError.invalid(path, ip, `may not be set to 'None' for ${type} services`));
      return;
    }
    // Whether the address is in the server's range (and free) is the allocator's check.
    for (const msg of isIP(ip)) errs.push(fieldError.invalid(path, ip, msg));
  });
  oneOf(errs, 'spec.ipFamilyPolicy', spec.ipFamilyPolicy, ['SingleStack', 'PreferDualStack', 'RequireDualStack']);
  if (spec.ipFamilyPolicy === 'RequireDualStack') {
    errs.push(fieldError.invalid('spec.ipFamilyPolicy', spec.ipFamilyPolicy, 'this cluster is not configured for dual-stack services'));
  }
  strings(spec.ipFamilies).forEach((f, i) => oneOf(errs, `spec.ipFamilies[${i}]`, f, ['IPv4', 'IPv6']));
}

export function validateService(o: ApiObject): FieldError[] {
  if (!isObject(o.spec)) return [o.spec === undefined ? fieldError.required('spec') : fieldError.typeInvalid('spec', o.spec, 'must be an object')];
  const spec = o.spec;
  const errs: FieldError[] = [];
  oneOf(errs, 'spec.type', spec.type, SERVICE_TYPES);
  const type = typeOf(spec);
  if (type === 'ExternalName') {
    if (absent(spec.externalName)) errs.push(fieldError.required('spec.externalName'));
    else {
      // A trailing dot marks an absolute DNS name and is allowed.
      const cname = String(spec.externalName).replace(/\.$/, '');
      for (const msg of isDNS1123Subdomain(cname)) errs.push(fieldError.invalid('spec.externalName', spec.externalName, msg));
    }
  }
  validatePorts(spec, type, errs);
  validateClusterIPs(spec, type, errs);
  errs.push(...validateLabels(spec.selector, 'spec.selector'));
  oneOf(errs, 'spec.sessionAffinity', spec.sessionAffinity, ['ClientIP', 'None']);
  if (spec.sessionAffinity === 'ClientIP') {
    const t = isObject(spec.sessionAffinityConfig) && isObject(spec.sessionAffinityConfig.clientIP) ? spec.sessionAffinityConfig.clientIP.timeoutSeconds : undefined;
    if (typeof t === 'number' && (t <= 0 || t > 86400)) {
      errs.push(fieldError.invalid('spec.sessionAffinityConfig.clientIP.timeoutSeconds', t, 'must be greater than 0 and less than 86400'));
    }
  } else if (!absent(spec.sessionAffinityConfig)) {
    errs.push(fieldError.invalid('spec.sessionAffinityConfig', spec.sessionAffinityConfig, `must not be set when session affinity is ${String(spec.sessionAffinity ?? 'None')}`));
  }
  oneOf(errs, 'spec.internalTrafficPolicy', spec.internalTrafficPolicy, ['Cluster', 'Local']);
  const external = type === 'NodePort' || type === 'LoadBalancer' || strings(spec.externalIPs).length > 0;
  if (!absent(spec.externalTrafficPolicy)) {
    if (!external) errs.push(fieldError.invalid('spec.externalTrafficPolicy', spec.externalTrafficPolicy, 'may only be set for externally-accessible services'));
    else oneOf(errs, 'spec.externalTrafficPolicy', spec.externalTrafficPolicy, ['Cluster', 'Local']);
  }
  if (spec.allocateLoadBalancerNodePorts !== undefined && spec.allocateLoadBalancerNodePorts !== null && type !== 'LoadBalancer') {
    errs.push(fieldError.forbidden('spec.allocateLoadBalancerNodePorts', "may only be used when `type` is 'LoadBalancer'"));
  }
  strings(spec.externalIPs).forEach((ip, i) => {
    for (const msg of isIP(ip)) errs.push(fieldError.invalid(`spec.externalIPs[${i}]`, ip, msg));
  });
  return errs;
}

/** A cluster IP is fixed for the life of the service, unless the type leaves or enters ExternalName. */
export function validateServiceUpdate(o: ApiObject, old: ApiObject): FieldError[] {
  const spec: Obj = isObject(o.spec) ? o.spec : {};
  const oldSpec: Obj = isObject(old.spec) ? old.spec : {};
  if (typeOf(spec) === 'ExternalName' || typeOf(oldSpec) === 'ExternalName' || absent(oldSpec.clusterIP)) return [];
  if (spec.clusterIP !== oldSpec.clusterIP) return [fieldError.invalid('spec.clusterIP', spec.clusterIP ?? '', 'field is immutable')];
  return [];
}

/** A single-stack server serves one IP family: a Service may not ask for the other. */
export function validateFamilies(o: ApiObject, family: IPFamily): FieldError[] {
  const spec: Obj = isObject(o.spec) ? o.spec : {};
  const errs: FieldError[] = [];
  strings(spec.ipFamilies).forEach((f, i) => {
    if ((f === 'IPv4' || f === 'IPv6') && f !== family) errs.push(fieldError.invalid(`spec.ipFamilies[${i}]`, f, 'not configured on this cluster'));
  });
  return errs;
}
