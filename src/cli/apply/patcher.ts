/**
 * Sending a computed patch: strategic merge where the server has the kind's patch metadata, JSON merge
 * otherwise. Custom resources refuse strategic merge (415); such a kind is then patched with a JSON merge
 * patch, recomputed without the schema, and remembered for the rest of the run.
 */
import { StatusError } from '../../errors/index.js';
import type { Client, KubeObject, PatchOptions, PatchType, ResourceClient } from '../../client/index.js';
import { PatchSchemas, type SchemaNode } from './patch-schema.js';

type JsonMap = Record<string, unknown>;

export class Patcher {
  private readonly schemas: PatchSchemas;
  private readonly custom = new Set<string>();

  constructor(client: Client) {
    this.schemas = new PatchSchemas(client);
  }

  /** The schema to diff `obj`'s kind with; undefined = JSON merge patch. */
  async schemaFor(obj: KubeObject): Promise<SchemaNode | undefined> {
    const key = `${obj.apiVersion}/${obj.kind}`;
    if (this.custom.has(key) || !obj.apiVersion || !obj.kind) return undefined;
    return this.schemas.forKind(obj.apiVersion, obj.kind);
  }

  /**
   * Computes the patch with `compute(schema)` and sends it to `name`; undefined when the patch is empty.
   * The result is the patched object as the server answered.
   */
  async send(rc: ResourceClient, name: string, obj: KubeObject, compute: (schema: SchemaNode | undefined) => JsonMap, o: PatchOptions): Promise<KubeObject | undefined> {
    const schema = await this.schemaFor(obj);
    const patch = compute(schema);
    if (Object.keys(patch).length === 0) return undefined;
    const type: PatchType = schema ? 'strategic' : 'merge';
    try {
      return await rc.patch(name, type, patch, o);
    } catch (e) {
      if (type !== 'strategic' || !(e instanceof StatusError) || e.code !== 415) throw e;
      this.custom.add(`${obj.apiVersion}/${obj.kind}`);
      const merge = compute(undefined);
      return Object.keys(merge).length === 0 ? undefined : await rc.patch(name, 'merge', merge, o);
    }
  }
}
