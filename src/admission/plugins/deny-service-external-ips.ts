/**
 * DenyServiceExternalIPs (reference plugin, off by default): no Service may start using `spec.externalIPs`.
 * A create with any, or an update that adds an address the stored Service did not have, is refused; an
 * update that keeps or removes addresses is allowed, so existing Services can be cleaned up.
 */
import { isObject, type ApiObject } from '../../api/types.js';
import { noConfiguration } from './common.js';
import { admissionForbidden } from './placement-common.js';
import type { AdmissionDeps, AdmissionOperation, AdmissionPlugin, AdmissionRequest } from '../types.js';

export const DENY_SERVICE_EXTERNAL_IPS = 'DenyServiceExternalIPs';

const externalIPsOf = (svc: ApiObject | undefined): unknown[] =>
  svc && isObject(svc.spec) && Array.isArray(svc.spec.externalIPs) ? svc.spec.externalIPs : [];

/** Whether every external IP of `next` was already on `old` (no IPs at all always is). */
export function onlyExistingExternalIPs(next: ApiObject | undefined, old: ApiObject | undefined): boolean {
  const ips = externalIPsOf(next);
  if (ips.length === 0) return true;
  if (!old) return false;
  const had = new Set(externalIPsOf(old));
  return ips.every((ip) => had.has(ip));
}

export class DenyServiceExternalIPsPlugin implements AdmissionPlugin {
  readonly name = DENY_SERVICE_EXTERNAL_IPS;

  handles(op: AdmissionOperation): boolean {
    return op === 'CREATE' || op === 'UPDATE';
  }

  validate(req: AdmissionRequest): void {
    if (req.resource.group !== '' || req.resource.resource !== 'services' || req.subResource !== '') return;
    if (onlyExistingExternalIPs(req.object, req.oldObject)) return;
    throw admissionForbidden(req, 'Use of external IPs is denied by admission control');
  }
}

export function denyServiceExternalIPsPlugin(_deps: AdmissionDeps, configuration: unknown): AdmissionPlugin {
  noConfiguration(DENY_SERVICE_EXTERNAL_IPS, configuration);
  return new DenyServiceExternalIPsPlugin();
}
