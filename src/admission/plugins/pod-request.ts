/**
 * Pieces the pod plugins (ServiceAccount, AlwaysPullImages, DefaultTolerationSeconds, RuntimeClass) share:
 * which requests are pod writes, the pod's spec, its containers with their field paths, and running a step on
 * a value that may or may not still be pending (so the common case stays free of awaits).
 */
import type { ApiObject } from '../../api/types.js';
import { isObject } from '../../api/types.js';
import type { AdmissionRequest } from '../types.js';

export type Obj = Record<string, unknown>;

/** A write of a core/v1 pod, on the pod itself (`subResource` '') or on one of its subresources. */
export const isPodWrite = (req: AdmissionRequest, subResource = ''): boolean =>
  req.resource.group === '' && req.resource.resource === 'pods' && req.subResource === subResource;

/** The object's spec when it is an object (a spec of another shape is the type validation's to refuse). */
export const specOf = (o: ApiObject | undefined): Obj | undefined => (o && isObject(o.spec) ? o.spec : undefined);

export const objectsIn = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObject) : []);

/** The three container lists, in the order the reference visits them. */
export const CONTAINER_LISTS = ['initContainers', 'containers', 'ephemeralContainers'] as const;

/** Calls `fn` with each container and its path (`spec.containers[0]`), init containers first. */
export function forEachContainer(spec: Obj, fn: (c: Obj, path: string) => void, lists: readonly string[] = CONTAINER_LISTS): void {
  for (const list of lists) {
    const items = spec[list];
    if (!Array.isArray(items)) continue;
    items.forEach((c: unknown, i) => {
      if (isObject(c)) fn(c, `spec.${list}[${i}]`);
    });
  }
}

/** `fn(v)`, after `v` settles when it is a promise; synchronous otherwise. */
export function andThen<T>(v: T | Promise<T>, fn: (x: T) => void | Promise<void>): void | Promise<void> {
  return v instanceof Promise ? v.then(fn) : fn(v);
}
