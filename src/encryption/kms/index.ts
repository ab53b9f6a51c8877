/**
 * The `kms` provider of encryption at rest: envelope encryption with data keys protected by an external
 * plugin reached over gRPC on a Unix socket (KMS v1 or v2, as the entry's `apiVersion` says).
 */
import { ENCRYPTED_VALUE_PREFIX } from '../../api/naming.js';
import type { EncryptionProvider, KmsProviderConfig } from '../types.js';
import { kmsV1Client, kmsV2Client } from './service.js';
import { KmsV1Provider } from './v1-provider.js';
import { KmsV2Provider } from './v2-provider.js';

/** The reference's v1 DEK cache size when the entry sets none (the configuration loader normally fills it). */
const V1_DEFAULT_CACHE_SIZE = 1000;

export { KmsV1Provider } from './v1-provider.js';
export { KmsV2Provider, keyIdHash } from './v2-provider.js';
export { KMS_V1_SERVICE, KMS_V2_SERVICE, KMS_V1_API_VERSION, socketTarget } from './service.js';

/** `<maker>:enc:kms:<v1|v2>:<name>:`, what every value a KMS provider writes starts with. */
export function kmsPrefix(apiVersion: 'v1' | 'v2', name: string): Uint8Array {
  return new TextEncoder().encode(`${ENCRYPTED_VALUE_PREFIX}kms:${apiVersion}:${name}:`);
}

/**
 * Builds the provider for one validated kms entry. A v2 provider asks the plugin's Status once before it is
 * returned (bounded by the entry's timeout) so that writes can start at once; a plugin that is down then
 * does not stop start-up: the provider reports it through healthCheck() and keeps polling.
 */
export async function createKmsProvider(config: KmsProviderConfig, log: (msg: string) => void = () => undefined): Promise<EncryptionProvider> {
  if (!config.endpoint) throw new Error(`KMS provider "${config.name}": the endpoint has no socket path`);
  if (!(config.timeoutMs > 0)) throw new Error(`KMS provider "${config.name}": the timeout must be positive, not ${config.timeoutMs}ms`);
  const ctx = { providerName: config.name, socketPath: config.endpoint, timeoutMs: config.timeoutMs };
  if (config.apiVersion === 'v1') {
    return new KmsV1Provider(kmsV1Client(ctx), { name: config.name, prefix: kmsPrefix('v1', config.name), cacheSize: config.cachesize ?? V1_DEFAULT_CACHE_SIZE });
  }
  if (config.apiVersion === 'v2') {
    const provider = new KmsV2Provider(kmsV2Client(ctx), { name: config.name, prefix: kmsPrefix('v2', config.name), log });
    await provider.start();
    return provider;
  }
  throw new Error(`KMS provider "${config.name}": unsupported apiVersion ${JSON.stringify(config.apiVersion)} (v1 and v2 are supported)`);
}
