/**
 * The Table form of objects (spec 2.6, 4.4): what `kubectl get` asks for with
 * `Accept: application/json;as=Table;g=meta.orch.io;v=v1`.
 *
 * This layer may not import the registry (architecture: encoding -> api, errors), so the type is described
 * structurally; a registry `ResourceType` satisfies `TableSource` as is.
 */
import { META_GROUP } from '../api/naming.js';
import { isObject, type ApiObject, type WatchEventObject } from '../api/types.js';

/** One column as a resource type defines it (structurally the registry's `TableColumn`). */
export interface TableColumnSource {
  name: string;
  type: string;
  format?: string;
  description: string;
  priority: number;
  value(obj: ApiObject): string | number | boolean | null;
}

/** What the renderer needs from a resource type; `schema` only supplies column descriptions. */
export interface TableSource {
  tableColumns: readonly TableColumnSource[];
  /** A custom resource: its printer columns are the whole table after Name (the reference adds no Age). */
  custom?: boolean;
  schema?: { properties?: Record<string, { description?: string; properties?: Record<string, { description?: string }> }> };
}

export interface TableColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface TableRow {
  cells: unknown[];
  object?: unknown;
}

export interface TableListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface Table {
  apiVersion: string;
  kind: 'Table';
  metadata: TableListMeta;
  columnDefinitions: TableColumnDefinition[];
  rows: TableRow[];
}

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface TableOptions {
  /** What each row carries besides its cells (the reference's `includeObject`; default Metadata). */
  includeObject?: IncludeObject;
  listMeta?: TableListMeta;
  /** Clock for the Age column, in epoch milliseconds (default: Date.now()). */
  now?: number;
  /** The negotiated Table version; the rows' PartialObjectMetadata uses the same one. */
  version?: 'v1' | 'v1beta1';
}

/** The `as=Table` forms offered to `negotiate(...)`. */
export const TABLE_ALTERNATIVES = [
  { kind: 'Table', group: META_GROUP, version: 'v1' },
  { kind: 'Table', group: META_GROUP, version: 'v1beta1' },
] as const;

// Fallback descriptions (the reference's ObjectMeta docs) when the type's schema has none.
const NAME_DOC =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Cannot be updated.';
const CREATED_DOC =
  'CreationTimestamp is a timestamp representing the server time when this object was created. Read-only.';

function metaDoc(type: TableSource, field: 'name' | 'creationTimestamp', fallback: string): string {
  return type.schema?.properties?.metadata?.properties?.[field]?.description || fallback;
}

/**
 * The reference's HumanDuration (apimachinery util/duration): short, coarser with age, and never more than
 * two units. A clock skew of up to one second in the future still reads "0s".
 */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) return hours % 24 === 0 ? `${days}d` : `${days}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) return days % 365 === 0 ? `${years}y` : `${years}y${days % 365}d`;
  return `${years}y`;
}

/** "<unknown>" for a missing or unreadable timestamp, as the reference prints a zero time. */
function age(obj: ApiObject, now: number): string {
  const ts = obj.metadata?.creationTimestamp;
  const t = typeof ts === 'string' ? Date.parse(ts) : NaN;
  return Number.isNaN(t) ? '<unknown>' : humanDuration(now - t);
}

const definition = (c: { name: string; type: string; format?: string; description: string; priority: number }): TableColumnDefinition => ({
  name: c.name,
  type: c.type,
  format: c.format ?? '',
  description: c.description,
  priority: c.priority,
});

/** A column as rendered: its definition and how a cell is computed. */
interface RenderColumn {
  def: TableColumnDefinition;
  cell(obj: ApiObject, now: number): unknown;
}

/**
 * Name first; with custom columns, Age goes after the last default (priority 0) column, so wide columns stay
 * at the end as in the reference printers (pods: NAME READY STATUS RESTARTS AGE IP NODE ...). Without
 * custom columns it is the reference's default table: Name and Created At (spec 2.6).
 */
function columnsOf(type: TableSource): RenderColumn[] {
  const name: RenderColumn = {
    def: definition({ name: 'Name', type: 'string', format: 'name', description: metaDoc(type, 'name', NAME_DOC), priority: 0 }),
    cell: (o) => o.metadata?.name ?? '',
  };
  const created = metaDoc(type, 'creationTimestamp', CREATED_DOC);
  if (type.tableColumns.length === 0) {
    return [
      name,
      {
        def: definition({ name: 'Created At', type: 'date', description: created, priority: 0 }),
        cell: (o) => o.metadata?.creationTimestamp ?? null,
      },
    ];
  }
  const own: RenderColumn[] = type.tableColumns.map((c) => ({ def: definition(c), cell: (o) => c.value(o) }));
  // A type that lists its own Age column places it itself (the quota table shows it first); a CRD's
  // printer columns are taken as they are.
  if (type.custom || own.some((c) => c.def.name === 'Age')) return [name, ...own];
  const ageColumn: RenderColumn = {
    def: definition({ name: 'Age', type: 'string', description: created, priority: 0 }),
    cell: age,
  };
  let at = 0;
  own.forEach((c, i) => {
    if (c.def.priority === 0) at = i + 1;
  });
  return [name, ...own.slice(0, at), ageColumn, ...own.slice(at)];
}

function rowObject(obj: ApiObject, include: IncludeObject, version: string): unknown {
  if (include === 'Object') return obj;
  return { apiVersion: `${META_GROUP}/${version}`, kind: 'PartialObjectMetadata', metadata: obj.metadata ?? {} };
}

function buildTable(columns: RenderColumn[], objects: readonly ApiObject[], opts: TableOptions, withColumns: boolean): Table {
  const now = opts.now ?? Date.now();
  const include = opts.includeObject ?? 'Metadata';
  const version = opts.version ?? 'v1';
  return {
    apiVersion: `${META_GROUP}/${version}`,
    kind: 'Table',
    metadata: { ...(opts.listMeta ?? {}) },
    columnDefinitions: withColumns ? columns.map((c) => c.def) : [],
    rows: objects.map((o) => {
      const row: TableRow = { cells: columns.map((c) => c.cell(o, now)) };
      if (include !== 'None') row.object = rowObject(o, include, version);
      return row;
    }),
  };
}

/** The Table of a list (or of one object: pass its resourceVersion as `listMeta`, as the reference does). */
export function renderTable(type: TableSource, objects: readonly ApiObject[], opts: TableOptions = {}): Table {
  return buildTable(columnsOf(type), objects, opts, true);
}

/**
 * The one-row Table of a watch event's object. Only the first table of a stream carries the column
 * definitions (the reference sends them once; clients print the header once).
 */
export function tableForEvent(type: TableSource, obj: ApiObject, first: boolean, opts: TableOptions = {}): Table {
  const rv = obj.metadata?.resourceVersion;
  return buildTable(columnsOf(type), [obj], { ...opts, listMeta: rv === undefined ? {} : { resourceVersion: rv } }, first);
}

/** Per-stream state of `renderWatchEventTable`: whether a table with column definitions went out yet. */
export interface WatchTableState {
  columnsSent: boolean;
}

export interface TableWatchEvent {
  type: WatchEventObject['type'];
  object: Table | ApiObject;
}

/**
 * A watch event in Table form. ERROR events carry a Status and pass unchanged; a BOOKMARK becomes an empty
 * Table that keeps its resourceVersion (so clients can resume) and does not use up the column definitions.
 */
export function renderWatchEventTable(
  type: TableSource,
  event: WatchEventObject,
  state: WatchTableState,
  opts: TableOptions = {},
): TableWatchEvent {
  if (event.type === 'ERROR' || !isObject(event.object)) return event;
  if (event.type === 'BOOKMARK') {
    const table = tableForEvent(type, event.object, false, opts);
    return { type: event.type, object: { ...table, rows: [] } };
  }
  const table = tableForEvent(type, event.object, !state.columnsSent, opts);
  state.columnsSent = true;
  return { type: event.type, object: table };
}
