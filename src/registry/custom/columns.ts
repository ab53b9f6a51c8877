/**
 * Table columns and selectable fields of a custom resource version, from the CRD's
 * `additionalPrinterColumns` and `selectableFields` (JSON paths such as `.spec.replicas`).
 */
import type { ApiObject } from '../../api/types.js';
import { humanDuration } from '../../encoding/table.js';
import { evaluateColumnPath } from '../../util/jsonpath.js';
import type { TableColumn } from '../types.js';
import type { CrdColumn } from './crd.js';

type Cell = string | number | boolean | null;

/** A cell as the reference renders it: typed, or null when the value is missing or of another type. */
export function columnCell(type: string, value: unknown, now = Date.now()): Cell {
  if (value === undefined || value === null) return null;
  switch (type) {
    case 'integer':
      return typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date': {
      // Shown as an age, like every timestamp column of the built-in tables.
      if (typeof value !== 'string') return null;
      const t = Date.parse(value);
      return Number.isNaN(t) ? '<invalid>' : humanDuration(now - t);
    }
    default:
      // Strings as they are; other JSON (numbers, objects, lists) as its JSON text.
      return typeof value === 'string' ? value : JSON.stringify(value);
  }
}

const COLUMN_TYPES = new Set(['integer', 'number', 'string', 'boolean', 'date']);

export function printerColumns(columns: readonly CrdColumn[] | undefined): TableColumn[] {
  return (columns ?? []).map((c) => {
    const type = (COLUMN_TYPES.has(c.type) ? c.type : 'string') as TableColumn['type'];
    return {
      name: c.name,
      type,
      ...(c.format ? { format: c.format } : {}),
      description: c.description ?? `Custom resource definition column (in JSONPath format): ${c.jsonPath}`,
      priority: c.priority ?? 0,
      value: (obj: ApiObject) => columnCell(type, evaluateColumnPath(c.jsonPath, obj)),
    };
  });
}

/** A selectable field's value as field selectors compare it: text, '' when missing. */
function fieldText(v: unknown): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v : typeof v === 'object' ? '' : String(v);
}

/** `spec.color` for `.spec.color`: field selectors name the field without the leading dot. */
export const selectableFieldName = (jsonPath: string): string => jsonPath.replace(/^\./, '');

/** The function giving every selectable field's value (every field is present, '' when missing). */
export function selectableFieldsOf(fields: readonly { jsonPath: string }[] | undefined): ((obj: ApiObject) => Record<string, string>) | undefined {
  if (!fields || fields.length === 0) return undefined;
  const named = fields.map((f) => [selectableFieldName(f.jsonPath), f.jsonPath] as const);
  return (obj) => {
    const out: Record<string, string> = {};
    for (const [name, path] of named) out[name] = fieldText(evaluateColumnPath(path, obj));
    return out;
  };
}
