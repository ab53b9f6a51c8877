/**
 * A loaded configuration made usable: for every resource, the provider that seals writes and the ordered
 * providers that may open reads. Lookup follows the reference: the exact name, then `*.<group>`, then `*.*`;
 * a resource no entry names is stored in plain, and a read of an encrypted value for it fails.
 */
import { AesCbcProvider, AesGcmProvider, IdentityProvider, SecretboxProvider } from './providers.js';
import { groupResourceText, parseGroupResource, type EncryptionConfiguration, type ProviderSpec } from './config.js';
import type { EncryptionProvider, KmsProviderFactory } from './types.js';

export interface ResourceTransformer {
  /** Seals every write; an IdentityProvider writes plain bytes. */
  readonly writer: EncryptionProvider;
  /** Tried in order on reads whose value starts with their prefix (the writer comes first). */
  readonly readers: readonly EncryptionProvider[];
}

const PLAIN: ResourceTransformer = (() => {
  const identity = new IdentityProvider();
  return { writer: identity, readers: [identity] };
})();

export class EncryptionTransformers {
  /** Per resource as the configuration writes it; kept per name, so a lookup allocates nothing new. */
  private readonly resolved = new Map<string, ResourceTransformer>();

  constructor(
    private readonly byResource: ReadonlyMap<string, ResourceTransformer>,
    /** The KMS providers, in the order of the configuration (health checks are named after the index). */
    readonly kms: readonly EncryptionProvider[],
  ) {}

  /** `resource` as in the file: `secrets`, `deployments.apps`. */
  forResource(resource: string): ResourceTransformer {
    let t = this.resolved.get(resource);
    if (t) return t;
    const { group } = parseGroupResource(resource);
    t =
      this.byResource.get(resource) ??
      this.byResource.get(groupResourceText({ group, resource: '*' })) ??
      this.byResource.get('*.*') ??
      PLAIN;
    this.resolved.set(resource, t);
    return t;
  }

  /** The transformer of keys that belong to no resource: plain, refusing encrypted values. */
  static get plain(): ResourceTransformer {
    return PLAIN;
  }

  close(): void {
    for (const p of this.kms) p.close?.();
  }
}

/**
 * Builds the providers of every entry. A resource named by several entries gets the providers of all of
 * them, earlier entries first (the reference appends them), so the first entry's first provider writes.
 * A KMS provider without a factory is a start-up error naming its field.
 */
export async function buildTransformers(config: EncryptionConfiguration, kmsFactory?: KmsProviderFactory): Promise<EncryptionTransformers> {
  const lists = new Map<string, EncryptionProvider[]>();
  const kms: EncryptionProvider[] = [];
  try {
    for (const [i, rule] of config.resources.entries()) {
      const providers: EncryptionProvider[] = [];
      for (const [j, spec] of rule.providers.entries()) {
        providers.push(...(await providersOf(spec, `resources[${i}].providers[${j}]`, kmsFactory, kms)));
      }
      for (const name of rule.resources) {
        const key = groupResourceText(parseGroupResource(name));
        lists.set(key, [...(lists.get(key) ?? []), ...providers]);
      }
    }
  } catch (e) {
    for (const p of kms) p.close?.();
    throw e;
  }
  const byResource = new Map<string, ResourceTransformer>();
  for (const [name, readers] of lists) byResource.set(name, { writer: readers[0] as EncryptionProvider, readers });
  return new EncryptionTransformers(byResource, kms);
}

async function providersOf(spec: ProviderSpec, at: string, kmsFactory: KmsProviderFactory | undefined, kms: EncryptionProvider[]): Promise<EncryptionProvider[]> {
  switch (spec.type) {
    case 'identity':
      return [new IdentityProvider()];
    case 'aesgcm':
      return spec.keys.map((k) => new AesGcmProvider(k.name, k.secret));
    case 'aescbc':
      return spec.keys.map((k) => new AesCbcProvider(k.name, k.secret));
    case 'secretbox':
      return spec.keys.map((k) => new SecretboxProvider(k.name, k.secret));
    case 'kms': {
      if (!kmsFactory) throw new Error(`${at}.kms: Invalid value ${JSON.stringify(spec.kms.name)}: KMS providers are not available in this build`);
      try {
        const p = await kmsFactory(spec.kms);
        kms.push(p);
        return [p];
      } catch (e) {
        throw new Error(`${at}.kms: KMS provider ${JSON.stringify(spec.kms.name)} cannot be set up: ${(e as Error).message}`);
      }
    }
  }
}
