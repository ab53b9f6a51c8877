/**
 * Which custom resource types this process serves, from the CRDs it sees (every process follows them
 * through its watch cache, so a CRD written through any server on the store is served everywhere).
 * A CRD is served once Established; while Terminating its resources are still read and deleted, but
 * creates are refused; once it leaves storage its types go.
 */
import { StatusError } from '../../errors/index.js';
import type { Registry, ResourceType } from '../../registry/index.js';
import type { CompileCustomSchema } from '../../registry/custom/contract.js';
import type { CustomTypeOptions } from '../../registry/custom/resource-types.js';
import { isTrue, servedNames, type Crd } from '../../registry/custom/crd.js';
import { customResourceTypes, customStorageKey } from '../../registry/custom/resource-types.js';

export interface ServingOptions {
  compile: CompileCustomSchema;
  fieldSelectors: boolean;
  webhookConversion?: CustomTypeOptions['webhookConversion'];
  log(msg: string): void;
}

interface Served {
  /** What the types were built from: a CRD event that leaves it unchanged changes nothing. */
  signature: string;
  types: ResourceType[];
}

/** Creates of a terminating CRD's resources are refused as the reference refuses them. */
function refusingCreates(t: ResourceType): ResourceType {
  return {
    ...t,
    strategy: {
      ...t.strategy,
      prepareForCreate() {
        throw new StatusError(405, 'MethodNotAllowed', 'create not allowed while custom resource definition is terminating', { group: t.group, kind: t.plural });
      },
    },
  };
}

export class CustomTypeServing {
  private readonly served = new Map<string, Served>();

  constructor(private readonly registry: Registry, private readonly opts: ServingOptions) {}

  /** The served types of a CRD (by CRD name); empty when it is not served here. */
  typesOf(name: string): readonly ResourceType[] {
    return this.served.get(name)?.types ?? [];
  }

  /** Brings the served types of many CRDs up to date in one registry change (start-up, relist). */
  syncAll(crds: readonly Crd[]): void {
    const seen = new Set<string>();
    const add: ResourceType[] = [];
    const remove: ResourceType[] = [];
    for (const crd of crds) {
      const name = crd.metadata?.name ?? '';
      seen.add(name);
      this.plan(name, crd, add, remove);
    }
    for (const name of [...this.served.keys()]) if (!seen.has(name)) this.plan(name, undefined, add, remove);
    this.registry.changeTypes({ add, remove });
  }

  /** One CRD changed (`crd`) or left storage (undefined). */
  sync(name: string, crd: Crd | undefined): void {
    const add: ResourceType[] = [];
    const remove: ResourceType[] = [];
    this.plan(name, crd, add, remove);
    this.registry.changeTypes({ add, remove });
  }

  stop(): void {
    this.registry.changeTypes({ remove: [...this.served.values()].flatMap((s) => s.types) });
    this.served.clear();
  }

  private plan(name: string, crd: Crd | undefined, add: ResourceType[], remove: ResourceType[]): void {
    const before = this.served.get(name);
    const signature = crd && isTrue(crd, 'Established') ? this.signatureOf(crd) : '';
    if ((before?.signature ?? '') === signature) return;
    if (before) remove.push(...before.types);
    this.served.delete(name);
    if (!crd || signature === '') return;
    const types = this.build(crd);
    if (types.length > 0) {
      this.served.set(name, { signature, types });
      add.push(...types);
    }
  }

  private signatureOf(crd: Crd): string {
    const terminating = isTrue(crd, 'Terminating') || Boolean(crd.metadata?.deletionTimestamp);
    return JSON.stringify([crd.metadata?.uid, crd.spec, crd.status?.acceptedNames, crd.status?.storedVersions, terminating]);
  }

  private build(crd: Crd): ResourceType[] {
    const name = crd.metadata?.name ?? '';
    const names = servedNames(crd);
    // A built-in resource keeps its URL and its storage: a CRD cannot take them over.
    const builtin = this.registry.typesOf(crd.spec.group, names.plural).some((t) => !t.custom) || this.registry.typesOfStorage(customStorageKey(crd.spec.group, names.plural)).some((t) => !t.custom);
    if (builtin) {
      this.opts.log(`CustomResourceDefinition ${name}: ${names.plural}.${crd.spec.group} is a built-in resource; not served`);
      return [];
    }
    let result: ReturnType<typeof customResourceTypes>;
    try {
      const { compile, fieldSelectors, webhookConversion } = this.opts;
      result = customResourceTypes(crd, { compile, fieldSelectors, ...(webhookConversion ? { webhookConversion } : {}) });
    } catch (e) {
      this.opts.log(`CustomResourceDefinition ${name}: cannot serve it: ${(e as Error).message}`);
      return [];
    }
    if (result.errors.length > 0) {
      this.opts.log(`CustomResourceDefinition ${name}: invalid schema, not served: ${result.errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`);
      return [];
    }
    const terminating = isTrue(crd, 'Terminating') || Boolean(crd.metadata?.deletionTimestamp);
    return terminating ? result.types.map(refusingCreates) : result.types;
  }
}
