/**
 * `get --sort-by` over server tables, the way the reference client ends up ordering them. It receives one
 * Table per collection and one per named object (its "infos"); then:
 * - with several of them, it sorts those Table objects themselves by the field (a Table rarely has it:
 *   usually this fails as "no object has the field", and nothing is printed);
 * - each table of more than one row then has its rows sorted by the row's full object; a table none of
 *   whose rows has the field is left out of the output without an error (the reference's printer drops
 *   its error), except while watching, where the error stands.
 * Pure: the command prints what this returns.
 */
import type { Table } from '../../client/index.js';
import { SortFieldNotFound, type SortBy } from '../output/sort-by.js';

type Row = Table['rows'][number];

/** One type's fetched table; `named` when it was built from GETs of named objects, one row each. */
export interface SortableTable<T> {
  of: T;
  table: Table;
  named: boolean;
}

/** A table as the reference decodes it from the wire: what a field path sees on it. */
function tableObject(t: Table): Record<string, unknown> {
  return { apiVersion: 'meta.k8s.io/v1', kind: 'Table', metadata: t.metadata ?? {}, columnDefinitions: t.columnDefinitions, rows: t.rows };
}

/**
 * The tables to print, in order: consecutive pieces of the same type joined again (the reference prints
 * them under one header). Throws for a field none of several tables has, and for values that cannot be
 * ordered.
 */
export function sortTables<T>(tables: readonly SortableTable<T>[], sortBy: SortBy, o: { watching: boolean }): { of: T; table: Table }[] {
  let infos = tables.flatMap((t) => (t.named ? t.table.rows.map((row) => ({ of: t.of, table: { ...t.table, rows: [row] } })) : [{ of: t.of, table: t.table }]));
  if (infos.length > 1) infos = sortBy.sort(infos, (i) => tableObject(i.table));
  const out: { of: T; table: Table }[] = [];
  for (const info of infos) {
    const rows = sortRows(info.table.rows, sortBy, o.watching);
    const last = out.at(-1);
    if (last && last.of === info.of) last.table.rows.push(...rows);
    else out.push({ of: info.of, table: { ...info.table, rows: [...rows] } });
  }
  return out;
}

function sortRows(rows: Row[], sortBy: SortBy, watching: boolean): Row[] {
  if (rows.length <= 1) return rows;
  try {
    return sortBy.sort(rows, (r) => r.object);
  } catch (e) {
    if (e instanceof SortFieldNotFound && !watching) return [];
    throw e;
  }
}
