/**
 * NamespaceLifecycle (reference plugin, on by default): nothing is created in a namespace that is being
 * deleted, nothing is written into a namespace that does not exist, and the server's own namespaces
 * (`default`, `orch-system`, `orch-public`) cannot be deleted. Namespaces are read from the watch cache;
 * only a namespace the cache does not show as active is confirmed with a consistent read.
 */
import { DEFAULT_NAMESPACE, PUBLIC_NAMESPACE, SYSTEM_NAMESPACE } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { forbidden, notFound, type StatusError } from '../../errors/index.js';
import { forbiddenFor, noConfiguration } from './common.js';
import type { AdmissionDeps, AdmissionOperation, AdmissionPlugin, AdmissionRequest, ObjectReader } from '../types.js';

export const NAMESPACE_LIFECYCLE = 'NamespaceLifecycle';
export const IMMORTAL_NAMESPACES: ReadonlySet<string> = new Set([DEFAULT_NAMESPACE, SYSTEM_NAMESPACE, PUBLIC_NAMESPACE]);

const isTerminating = (ns: ApiObject): boolean =>
  Boolean(ns.metadata?.deletionTimestamp) || (ns.status as { phase?: unknown } | undefined)?.phase === 'Terminating';

const isNamespace = (req: AdmissionRequest): boolean => req.resource.group === '' && req.resource.resource === 'namespaces';

export class NamespaceLifecyclePlugin implements AdmissionPlugin {
  readonly name = NAMESPACE_LIFECYCLE;

  constructor(private readonly objects: ObjectReader) {}

  handles(op: AdmissionOperation): boolean {
    return op === 'CREATE' || op === 'UPDATE' || op === 'DELETE';
  }

  admit(req: AdmissionRequest): Promise<void> | void {
    if (isNamespace(req)) {
      if (req.operation === 'DELETE' && IMMORTAL_NAMESPACES.has(req.name)) {
        throw forbidden(`namespaces "${req.name}" is forbidden: this namespace may not be deleted`, { kind: 'namespaces', name: req.name });
      }
      return;
    }
    // Cluster-scoped objects, and deletions anywhere, are not this plugin's business.
    if (req.namespace === '' || req.operation === 'DELETE') return;
    const cached = this.objects.peek?.('', 'namespaces', undefined, req.namespace);
    if (cached && !isTerminating(cached)) return;
    return this.confirm(req);
  }

  /** The cache does not show the namespace as active: ask again, consistently, before refusing. */
  private async confirm(req: AdmissionRequest): Promise<void> {
    const ns = await this.objects.get('', 'namespaces', undefined, req.namespace);
    if (!ns) throw notFound({ kind: 'namespaces', resource: 'namespaces', name: req.namespace });
    if (req.operation === 'CREATE' && isTerminating(ns)) throw terminating(req);
  }
}

function terminating(req: AdmissionRequest): StatusError {
  return forbiddenFor(req, `unable to create new content in namespace ${req.namespace} because it is being terminated`, [
    { reason: 'NamespaceTerminating', message: `namespace ${req.namespace} is being terminated`, field: 'metadata.namespace' },
  ]);
}

export function namespaceLifecyclePlugin(deps: AdmissionDeps, configuration: unknown): AdmissionPlugin {
  noConfiguration(NAMESPACE_LIFECYCLE, configuration);
  return new NamespaceLifecyclePlugin(deps.objects);
}
