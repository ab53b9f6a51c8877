/**
 * NamespaceAutoProvision (reference plugin, off by default): a create of a namespaced object in a namespace
 * that does not exist first creates that namespace, as the server itself (so the new namespace passes
 * admission like any other write). Dry runs create nothing. A namespace created meanwhile by someone else
 * is fine; any other failure refuses the request with a Forbidden naming the object.
 */
import { StatusError } from '../../errors/index.js';
import { noConfiguration, PluginConfigurationError } from './common.js';
import { isNamespaceKind } from './namespace-exists.js';
import { admissionForbidden } from './placement-common.js';
import type { AdmissionDeps, AdmissionOperation, AdmissionPlugin, AdmissionRequest, ObjectReader } from '../types.js';

export const NAMESPACE_AUTO_PROVISION = 'NamespaceAutoProvision';

export class NamespaceAutoProvisionPlugin implements AdmissionPlugin {
  readonly name = NAMESPACE_AUTO_PROVISION;

  constructor(
    private readonly objects: ObjectReader,
    private readonly createNamespace: (name: string) => Promise<void>,
  ) {}

  handles(op: AdmissionOperation): boolean {
    return op === 'CREATE';
  }

  admit(req: AdmissionRequest): Promise<void> | void {
    if (req.dryRun || req.namespace === '' || isNamespaceKind(req)) return;
    // The cache is enough here: a namespace it has not seen yet makes the create answer AlreadyExists.
    if (this.objects.peek?.('', 'namespaces', undefined, req.namespace)) return;
    return this.provision(req);
  }

  private async provision(req: AdmissionRequest): Promise<void> {
    // Without a watch cache to ask, storage answers whether the namespace is there.
    if (!this.objects.peek && (await this.objects.get('', 'namespaces', undefined, req.namespace))) return;
    try {
      await this.createNamespace(req.namespace);
    } catch (e) {
      if (e instanceof StatusError && e.code === 409 && e.reason === 'AlreadyExists') return;
      throw admissionForbidden(req, e instanceof StatusError ? e : (e as Error).message);
    }
  }
}

export function namespaceAutoProvisionPlugin(deps: AdmissionDeps, configuration: unknown): AdmissionPlugin {
  noConfiguration(NAMESPACE_AUTO_PROVISION, configuration);
  if (!deps.createNamespace) throw new PluginConfigurationError('this server offers the plugin no way to create namespaces');
  return new NamespaceAutoProvisionPlugin(deps.objects, deps.createNamespace);
}
