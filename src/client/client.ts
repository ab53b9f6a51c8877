/**
 * The client: one transport (HTTP/2, or direct into a server in this process), discovery, and resource clients made from a group/version/plural or
 * from an object's `apiVersion` and `kind` (what `apply -f` needs).
 */
import type { ClusterConnection } from './contract.js';
import { Discovery, type ResourceInfo } from './discovery.js';
import { InformerFactory, type InformerOptions } from './informer.js';
import { ResourceClient, type DeleteOptions, type PatchOptions, type WriteOptions } from './resource.js';
import { DirectTransport } from './direct-transport.js';
import { Http2Transport, type Transport } from './transport.js';
import type { GroupVersionResource, KubeObject } from './types.js';

export interface ObjectOptions {
  /** Used for a namespaced object without `metadata.namespace`; default `default`. */
  defaultNamespace?: string;
}

export class Client {
  readonly transport: Transport;
  readonly discovery: Discovery;

  constructor(readonly connection: ClusterConnection) {
    this.transport = connection.direct ? new DirectTransport(connection, connection.direct) : new Http2Transport(connection);
    this.discovery = new Discovery(this.transport);
  }

  /** A client for one resource; `namespace` absent = cluster-scoped, or all namespaces for list/watch. */
  resource<T extends KubeObject = KubeObject>(gvr: GroupVersionResource, namespace?: string): ResourceClient<T> {
    return new ResourceClient<T>(this.transport, gvr, namespace);
  }

  /** A resource named as users write it (`deploy`, `deployments.apps`, `pods`), through discovery. */
  async resourceNamed<T extends KubeObject = KubeObject>(spelling: string, namespace?: string): Promise<{ info: ResourceInfo; client: ResourceClient<T> }> {
    const info = await this.discovery.find(spelling);
    return { info, client: this.resource<T>(info, info.namespaced ? namespace : undefined) };
  }

  /** The resource client an object belongs to (its kind via discovery, its namespace or the default). */
  async forObject<T extends KubeObject = KubeObject>(obj: KubeObject, o: ObjectOptions = {}): Promise<{ info: ResourceInfo; client: ResourceClient<T> }> {
    if (!obj.apiVersion || !obj.kind) throw new Error('the object needs apiVersion and kind');
    const info = await this.discovery.forKind(obj.apiVersion, obj.kind);
    // A namespace on a cluster-scoped object is not part of its path (the reference CLI ignores it too).
    const namespace = info.namespaced ? (obj.metadata?.namespace ?? o.defaultNamespace ?? 'default') : undefined;
    return { info, client: this.resource<T>(info, namespace) };
  }

  /** Server-side apply of a whole object (the `apply -f` path). */
  async applyObject<T extends KubeObject>(obj: T, o: PatchOptions & ObjectOptions & { fieldManager: string }): Promise<T> {
    const { client } = await this.forObject<T>(obj, o);
    return client.apply(obj, o);
  }

  async createObject<T extends KubeObject>(obj: T, o: WriteOptions & ObjectOptions = {}): Promise<T> {
    return (await this.forObject<T>(obj, o)).client.create(obj, o);
  }

  async replaceObject<T extends KubeObject>(obj: T, o: WriteOptions & ObjectOptions = {}): Promise<T> {
    return (await this.forObject<T>(obj, o)).client.update(obj, o);
  }

  async getObject<T extends KubeObject>(obj: KubeObject, o: ObjectOptions = {}): Promise<T> {
    return (await this.forObject<T>(obj, o)).client.get(obj.metadata.name ?? '');
  }

  async deleteObject(obj: KubeObject, o: DeleteOptions & ObjectOptions = {}): Promise<unknown> {
    return (await this.forObject(obj, o)).client.delete(obj.metadata.name ?? '', o);
  }

  /** An informer factory over this client (one shared informer per resource). */
  informerFactory(defaults: Omit<InformerOptions<KubeObject>, 'indexers' | 'labelSelector' | 'fieldSelector'> = {}): InformerFactory {
    return new InformerFactory(this, defaults);
  }

  close(): void {
    this.transport.close();
  }
}
