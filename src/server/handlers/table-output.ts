import { REFERENCE_META_GROUP_ALIAS } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { negotiate, renderTable, TABLE_ALTERNATIVES, type Representation } from '../../encoding/index.js';
import { badRequest } from '../../errors/index.js';
import type { ResourceType } from '../../registry/index.js';

/** Table forms offered (spec 2.6), plus the reference's own meta group for real kubectl. */
export const TABLE_OFFERS = [
  ...TABLE_ALTERNATIVES,
  { kind: 'Table', group: REFERENCE_META_GROUP_ALIAS, version: 'v1' },
  { kind: 'Table', group: REFERENCE_META_GROUP_ALIAS, version: 'v1beta1' },
];

export function negotiateWithTables(accept: string | undefined, offers: readonly string[]): Representation {
  return negotiate(accept, offers, TABLE_OFFERS);
}

/** Renders objects as the negotiated Table, in the group and version the client asked for. */
export function tableFor(type: ResourceType, rep: Representation, objects: ApiObject[], q: URLSearchParams, listMeta?: object): object {
  const include = q.get('includeObject') ?? 'Metadata';
  if (!['None', 'Metadata', 'Object'].includes(include)) {
    throw badRequest(`includeObject: Unsupported value: "${include}": supported values: "None", "Metadata", "Object"`);
  }
  const version = rep.as?.version === 'v1beta1' ? 'v1beta1' : 'v1';
  const table = renderTable(type, objects, { includeObject: include as 'None' | 'Metadata' | 'Object', version, ...(listMeta ? { listMeta } : {}) }) as unknown as Record<string, unknown>;
  const apiVersion = `${rep.as?.group}/${version}`;
  table.apiVersion = apiVersion;
  for (const row of (table.rows as { object?: Record<string, unknown> }[]) ?? []) {
    if (row.object?.kind === 'PartialObjectMetadata') row.object.apiVersion = apiVersion;
  }
  return table;
}
