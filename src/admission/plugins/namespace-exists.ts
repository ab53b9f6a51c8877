/**
 * NamespaceExists (reference plugin, off by default): a create, update or delete of a namespaced object in
 * a namespace that does not exist is refused with the namespace's 404. Unlike NamespaceLifecycle it says
 * nothing about terminating namespaces, and it runs in the validating stage (after the object's own
 * validation). The watch cache answers the common case; a miss is confirmed with a consistent read.
 */
import { noConfiguration } from './common.js';
import { namespaceNamed } from './placement-common.js';
import type { AdmissionDeps, AdmissionOperation, AdmissionPlugin, AdmissionRequest, ObjectReader } from '../types.js';

export const NAMESPACE_EXISTS = 'NamespaceExists';

/** Namespaces themselves (and their subresources) are not inside a namespace. */
export const isNamespaceKind = (req: AdmissionRequest): boolean => req.kind.group === '' && req.kind.kind === 'Namespace';

export class NamespaceExistsPlugin implements AdmissionPlugin {
  readonly name = NAMESPACE_EXISTS;

  constructor(private readonly objects: ObjectReader) {}

  handles(op: AdmissionOperation): boolean {
    return op === 'CREATE' || op === 'UPDATE' || op === 'DELETE';
  }

  validate(req: AdmissionRequest): Promise<void> | void {
    if (req.namespace === '' || isNamespaceKind(req)) return;
    const ns = namespaceNamed(this.objects, req.namespace);
    if (ns instanceof Promise) return ns.then(() => undefined);
  }
}

export function namespaceExistsPlugin(deps: AdmissionDeps, configuration: unknown): AdmissionPlugin {
  noConfiguration(NAMESPACE_EXISTS, configuration);
  return new NamespaceExistsPlugin(deps.objects);
}
