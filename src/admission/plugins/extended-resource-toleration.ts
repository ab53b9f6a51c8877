/**
 * ExtendedResourceToleration (reference plugin, off by default): a pod whose containers or init containers
 * request an extended resource (`example.com/gpu`) tolerates the NoSchedule taint of that name, so nodes
 * that offer such a resource can be tainted to keep other pods away. Pod creates and updates.
 */
import { LABEL_DOMAIN } from '../../api/naming.js';
import { isObject } from '../../api/types.js';
import { noConfiguration } from './common.js';
import { forEachContainer, isPodWrite, objectsIn, specOf, type Obj } from './pod-request.js';
import type { AdmissionDeps, AdmissionOperation, AdmissionPlugin, AdmissionRequest } from '../types.js';

export const EXTENDED_RESOURCE_TOLERATION = 'ExtendedResourceToleration';
const REQUESTS_PREFIX = 'requests.';
const NATIVE_DOMAIN = `${LABEL_DOMAIN}/`;
/** `requests.<domain>/<name>` must be a qualified name: a DNS subdomain prefix and a 63-character name. */
const QUALIFIED_PREFIXED = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

/** A vendor resource: domain-qualified, outside the maker's domain, and valid as a quota name. */
export function isExtendedResourceName(name: string): boolean {
  if (!name.includes('/') || name.includes(NATIVE_DOMAIN) || name.startsWith(REQUESTS_PREFIX)) return false;
  const quotaName = REQUESTS_PREFIX + name;
  const slash = quotaName.indexOf('/');
  return quotaName.slice(0, slash).length <= 253 && quotaName.length - slash - 1 <= 63 && QUALIFIED_PREFIXED.test(quotaName);
}

/** The extended resources the pod's containers and init containers request, sorted. */
export function requestedExtendedResources(spec: Obj): string[] {
  const names = new Set<string>();
  forEachContainer(spec, (c) => {
    const requests = isObject(c.resources) && isObject(c.resources.requests) ? c.resources.requests : {};
    for (const name of Object.keys(requests)) if (isExtendedResourceName(name)) names.add(name);
  }, ['containers', 'initContainers']);
  return [...names].sort();
}

const text = (v: unknown) => (typeof v === 'string' ? v : '');

/**
 * Adds `t` to the tolerations as the reference does: a toleration with the same key, effect, operator and
 * value is replaced by `t` (left alone when already identical), else `t` is appended.
 */
export function addOrUpdateToleration(spec: Obj, t: { key: string; operator: string; effect: string }): void {
  const list = objectsIn(spec.tolerations);
  const matches = (x: Obj) => text(x.key) === t.key && text(x.effect) === t.effect && text(x.operator) === t.operator && text(x.value) === '';
  // One identical toleration anywhere in the list means there is nothing to do.
  if (list.some((x) => matches(x) && (x.tolerationSeconds === undefined || x.tolerationSeconds === null))) return;
  let replaced = false;
  const next = list.map((x) => {
    if (!matches(x)) return x;
    replaced = true;
    return { ...t };
  });
  if (!replaced) next.push({ ...t });
  spec.tolerations = next;
}

export class ExtendedResourceTolerationPlugin implements AdmissionPlugin {
  readonly name = EXTENDED_RESOURCE_TOLERATION;

  handles(op: AdmissionOperation): boolean {
    return op === 'CREATE' || op === 'UPDATE';
  }

  admit(req: AdmissionRequest): void {
    if (!isPodWrite(req)) return;
    const spec = specOf(req.object);
    if (!spec) return;
    for (const key of requestedExtendedResources(spec)) addOrUpdateToleration(spec, { key, operator: 'Exists', effect: 'NoSchedule' });
  }
}

export function extendedResourceTolerationPlugin(_deps: AdmissionDeps, configuration: unknown): AdmissionPlugin {
  noConfiguration(EXTENDED_RESOURCE_TOLERATION, configuration);
  return new ExtendedResourceTolerationPlugin();
}
