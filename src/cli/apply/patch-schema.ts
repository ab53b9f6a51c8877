/**
 * Patch metadata of one kind, read from the server's OpenAPI v3 document of its group version: which lists
 * merge (and by which key) and which maps retain only the keys they are given. Client-side apply and edit
 * build strategic merge patches from it, so they must read lists exactly as this server merges them.
 */
import {
  OPENAPI_GVK_EXTENSION,
  OPENAPI_LIST_MAP_KEYS,
  OPENAPI_LIST_TYPE,
  OPENAPI_PATCH_MERGE_KEY,
  OPENAPI_PATCH_STRATEGY,
} from '../../api/naming.js';
import type { Client } from '../../client/index.js';
import { parseApiVersion } from '../../client/index.js';

type Raw = Record<string, unknown>;

const isMap = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);

/** How a list field merges in a strategic merge patch. */
export interface ListMode {
  merge: boolean;
  /** The merge key of a list of maps; absent for a list of primitives. */
  key?: string;
}

/** One node of a kind's schema, with references resolved on demand. */
export class SchemaNode {
  private readonly node: Raw;

  constructor(
    raw: Raw,
    private readonly components: Record<string, Raw>,
  ) {
    this.node = resolve(raw, components);
  }

  /** The schema of a map's field (a named property, else the schema of free-form values). */
  child(key: string): SchemaNode | undefined {
    const props = this.node.properties;
    if (isMap(props) && Object.hasOwn(props, key) && isMap(props[key])) return new SchemaNode(props[key], this.components);
    const extra = this.node.additionalProperties;
    return isMap(extra) ? new SchemaNode(extra, this.components) : undefined;
  }

  /** The schema of a list's items. */
  items(): SchemaNode | undefined {
    const items = this.node.items;
    return isMap(items) ? new SchemaNode(items, this.components) : undefined;
  }

  strategies(): string[] {
    const s = this.node[OPENAPI_PATCH_STRATEGY];
    return typeof s === 'string' ? s.split(',').map((x) => x.trim()).filter(Boolean) : [];
  }

  /** True when the maps here (or the items of the list here) keep only the keys a patch lists. */
  retainsKeys(): boolean {
    return this.strategies().includes('retainKeys');
  }

  /**
   * The server's rule (src/patch/strategic-merge.ts): an explicit strategy decides; otherwise a `set` of
   * primitives merges, and a `map` list with one key merges by it. Everything else is replaced whole.
   */
  listMode(): ListMode {
    const mapKeys = this.node[OPENAPI_LIST_MAP_KEYS];
    const explicitKey = this.node[OPENAPI_PATCH_MERGE_KEY];
    const key = typeof explicitKey === 'string' ? explicitKey : Array.isArray(mapKeys) && mapKeys.length === 1 ? String(mapKeys[0]) : undefined;
    const base: ListMode = key === undefined ? { merge: false } : { merge: false, key };
    const explicit = this.strategies();
    const listType = this.node[OPENAPI_LIST_TYPE];
    if (explicit.length > 0) return { ...base, merge: explicit.includes('merge') };
    if (listType === 'set') return { ...base, merge: this.items()?.type() !== 'object' };
    if (listType === 'map') return { ...base, merge: key !== undefined };
    return base;
  }

  type(): string | undefined {
    const t = this.node.type;
    if (typeof t === 'string') return t;
    return isMap(this.node.properties) ? 'object' : undefined;
  }
}

const REF_PREFIX = '#/components/schemas/';

/** Follows `$ref` and single-entry `allOf` wrappers; the wrapper's own patch extensions win. */
function resolve(raw: Raw, components: Record<string, Raw>, depth = 0): Raw {
  if (depth > 32) return raw;
  let target: Raw | undefined;
  const ref = raw.$ref;
  if (typeof ref === 'string' && ref.startsWith(REF_PREFIX)) target = components[ref.slice(REF_PREFIX.length)];
  const allOf = raw.allOf;
  if (!target && Array.isArray(allOf) && allOf.length === 1 && isMap(allOf[0])) target = allOf[0];
  if (!target) return raw;
  const { $ref: _ref, allOf: _all, ...own } = raw;
  return { ...resolve(target, components, depth + 1), ...own };
}

interface GvkEntry {
  group?: string;
  version?: string;
  kind?: string;
}

/**
 * Loads and caches the OpenAPI v3 documents of group versions for one client. A kind the server publishes
 * no schema for has none: the caller then patches as for a custom resource (JSON merge patch).
 */
export class PatchSchemas {
  private readonly docs = new Map<string, Promise<Record<string, Raw> | undefined>>();

  constructor(private readonly client: Client) {}

  async forKind(apiVersion: string, kind: string): Promise<SchemaNode | undefined> {
    const components = await this.document(apiVersion);
    if (!components) return undefined;
    const { group, version } = parseApiVersion(apiVersion);
    for (const schema of Object.values(components)) {
      const gvks = schema[OPENAPI_GVK_EXTENSION];
      if (!Array.isArray(gvks)) continue;
      const hit = gvks.some((g: GvkEntry) => (g.group ?? '') === group && g.version === version && g.kind === kind);
      if (hit) return new SchemaNode(schema, components);
    }
    return undefined;
  }

  private document(apiVersion: string): Promise<Record<string, Raw> | undefined> {
    let doc = this.docs.get(apiVersion);
    if (!doc) {
      const { group } = parseApiVersion(apiVersion);
      const path = group ? `/openapi/v3/apis/${apiVersion}` : `/openapi/v3/api/${apiVersion}`;
      doc = this.client.transport
        .json<{ components?: { schemas?: Record<string, Raw> } }>({ method: 'GET', path })
        .then((d) => d.components?.schemas)
        // A server without this document (or refusing it) leaves the kind without patch metadata.
        .catch(() => undefined);
      this.docs.set(apiVersion, doc);
    }
    return doc;
  }
}
