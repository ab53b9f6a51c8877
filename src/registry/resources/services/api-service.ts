/**
 * The `kubernetes` Service in `default`: how workloads find the API server. It takes the first address of
 * the service range and sends port 443 to the server's secure port, as the reference's bootstrap does;
 * a server started on another port brings the stored ports up to date.
 */
import { API_SERVICE_PROVIDER, DEFAULT_NAMESPACE } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import { jsonEqual } from '../../../patch/index.js';
import type { Registry } from '../../registry.js';
import type { ServiceNetwork } from './network.js';

/** The reference's name, which in-cluster clients look up; it carries no maker token to translate. */
export const API_SERVICE_NAME = 'kubernetes';

export function apiServicePorts(securePort: number) {
  return [{ name: 'https', protocol: 'TCP', port: 443, targetPort: securePort }];
}

export function apiService(net: ServiceNetwork, securePort: number): ApiObject {
  const ip = net.ipAt(0);
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: API_SERVICE_NAME, namespace: DEFAULT_NAMESPACE, labels: { component: 'apiserver', provider: API_SERVICE_PROVIDER } },
    spec: { type: 'ClusterIP', clusterIP: ip, clusterIPs: [ip], sessionAffinity: 'None', ports: apiServicePorts(securePort) },
  };
}

/** Creates the Service when missing, or updates its ports; problems are logged (the server serves anyway). */
export async function ensureApiService(registry: Registry, net: ServiceNetwork, securePort: number, log: (m: string) => void): Promise<void> {
  const store = registry.store('', 'v1', 'services');
  if (!store) return;
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      const existing = await store.get(DEFAULT_NAMESPACE, API_SERVICE_NAME).catch((e: { code?: number }) => {
        if (e.code === 404) return undefined;
        throw e;
      });
      try {
        if (!existing) {
          await store.create(DEFAULT_NAMESPACE, apiService(net, securePort));
          return;
        }
        const spec = (existing.spec ?? {}) as Record<string, unknown>;
        const ports = apiServicePorts(securePort);
        if (jsonEqual(spec.ports, ports)) return;
        // Conditional on the version read: a concurrent change by another server is looked at again.
        await store.update(DEFAULT_NAMESPACE, API_SERVICE_NAME, { ...existing, spec: { ...spec, ports } });
        return;
      } catch (e) {
        if ((e as { code?: number }).code !== 409) throw e;
      }
    }
  } catch (e) {
    log(`bootstrap: cannot ensure service ${DEFAULT_NAMESPACE}/${API_SERVICE_NAME}: ${(e as Error).message ?? String(e)}`);
  }
}
