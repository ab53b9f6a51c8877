/**
 * Pieces the namespace and pod-placement plugins (NamespaceExists, NamespaceAutoProvision, PodNodeSelector,
 * PodTolerationRestriction, ...) share: the reference's two ways of naming the object in a Forbidden, and
 * reading the request's namespace the way those plugins do (watch cache first, storage when it misses).
 */
import type { ApiObject } from '../../api/types.js';
import { forbidden, notFound, StatusError } from '../../errors/index.js';
import type { AdmissionRequest, ObjectReader } from '../types.js';

/** `<resource>[.<group>] "<name>" is forbidden: <why>` for an explicit name, details as the reference's. */
export function forbiddenNamed(req: AdmissionRequest, name: string, why: string): StatusError {
  const r = req.resource;
  const qualified = r.group ? `${r.resource}.${r.group}` : r.resource;
  return forbidden(`${qualified} "${name}" is forbidden: ${why}`, { name, resource: r.resource, ...(r.group ? { group: r.group } : {}) });
}

/** The object's own name ('' when it has none yet). */
export const objectName = (o: ApiObject | undefined): string => (typeof o?.metadata?.name === 'string' ? o.metadata.name : '');

/**
 * The reference's generic admission Forbidden: named after the object, else its generateName, else
 * "Unknown"; an error that already is a Forbidden passes through unchanged.
 */
export function admissionForbidden(req: AdmissionRequest, why: string | StatusError): StatusError {
  if (why instanceof StatusError && why.code === 403) return why;
  const meta = req.object?.metadata;
  const name = objectName(req.object) || (typeof meta?.generateName === 'string' && meta.generateName) || 'Unknown';
  return forbiddenNamed(req, name, typeof why === 'string' ? why : why.message);
}

/**
 * The namespace `name`: from the watch cache when it holds it (no await on a hot write), else from storage;
 * a namespace that does not exist is the reference's 404 (`namespaces "<name>" not found`).
 */
export function namespaceNamed(objects: ObjectReader, name: string): ApiObject | Promise<ApiObject> {
  const cached = objects.peek?.('', 'namespaces', undefined, name);
  if (cached) return cached;
  return objects.get('', 'namespaces', undefined, name).then((ns) => {
    if (!ns) throw notFound({ kind: 'namespaces', resource: 'namespaces', name });
    return ns;
  });
}

/** A namespace's annotation, or undefined when it is not set. */
export function annotationOf(ns: ApiObject, key: string): string | undefined {
  const annotations = ns.metadata?.annotations;
  if (!annotations || typeof annotations !== 'object') return undefined;
  const v = (annotations as Record<string, unknown>)[key];
  return typeof v === 'string' ? v : undefined;
}
