/**
 * The `-o` formats other than tables, as pure functions of objects: YAML and JSON (keys sorted, as the
 * reference client prints decoded objects), `-o name`, JSONPath and custom columns.
 */
import { stringify } from 'yaml';
import { parseApiVersion, type KubeObject } from '../../client/index.js';
import { parseJsonPath, JsonPathError } from '../../util/jsonpath.js';
import type { OutputFormat } from '../contract.js';
import { UsageError } from '../errors.js';
import { alignRows } from './table.js';

/** Parses `-o` into a format; the table flags ride along. Unknown formats are a usage error. */
export function parseOutputFormat(o: string | undefined, extra: { noHeaders?: boolean; showLabels?: boolean; labelColumns?: string[] } = {}): OutputFormat {
  const table = (wide: boolean): OutputFormat => {
    const f: OutputFormat = { kind: 'table', wide };
    if (extra.noHeaders) f.noHeaders = true;
    if (extra.showLabels) f.showLabels = true;
    if (extra.labelColumns && extra.labelColumns.length > 0) f.labelColumns = extra.labelColumns;
    return f;
  };
  if (o === undefined || o === '') return table(false);
  if (o === 'wide') return table(true);
  if (o === 'yaml' || o === 'json' || o === 'name') return { kind: o };
  const eq = o.indexOf('=');
  const name = eq < 0 ? o : o.slice(0, eq);
  const arg = eq < 0 ? '' : o.slice(eq + 1);
  if (name === 'jsonpath' || name === 'jsonpath-as-json') {
    if (arg === '') throw new UsageError('a template is required for -o jsonpath (e.g. -o jsonpath={.metadata.name})');
    if (name === 'jsonpath-as-json') throw new UsageError('-o jsonpath-as-json is not supported; use -o json or -o jsonpath=...');
    const template = jsonpathTemplate(arg);
    compileTemplate(template);
    return { kind: 'jsonpath', template };
  }
  if (name === 'custom-columns') {
    if (arg === '') throw new UsageError('custom-columns needs a spec: -o custom-columns=HEADER:.json.path,...');
    parseColumns(arg);
    return { kind: 'custom-columns', spec: arg };
  }
  throw new UsageError(`unable to match a printer suitable for the output format "${o}", allowed formats are: custom-columns,json,jsonpath,name,wide,yaml`);
}

/** The reference accepts a bare path (`.metadata.name`) and wraps it in braces; strip quoting shells left. */
function jsonpathTemplate(arg: string): string {
  const t = arg.length >= 2 && ((arg.startsWith("'") && arg.endsWith("'")) || (arg.startsWith('"') && arg.endsWith('"'))) ? arg.slice(1, -1) : arg;
  return t.includes('{') ? t : `{${t}}`;
}

function compileTemplate(template: string) {
  try {
    return parseJsonPath(template);
  } catch (e) {
    throw new UsageError(`error parsing jsonpath ${template}: ${(e as Error).message}`);
  }
}

/** Keys sorted at every level (what the reference's decode-then-encode does). */
export function sortedKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedKeys);
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) out[k] = sortedKeys((v as Record<string, unknown>)[k]);
  return out;
}

export function toYaml(v: unknown): string {
  return stringify(sortedKeys(v), { lineWidth: 0, version: '1.1', indentSeq: false, aliasDuplicateObjects: false });
}

export function toJson(v: unknown): string {
  return `${JSON.stringify(sortedKeys(v), null, 4)}\n`;
}

/** The reference's aggregate of several objects: a `v1` `List`. */
export function asList(objects: readonly KubeObject[]): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'List', items: objects, metadata: { resourceVersion: '' } };
}

/** `<kind>[.<group>]/<name>` (the kind lower-cased, as the reference prints `-o name`). */
export function objectName(obj: KubeObject, resource?: { kind?: string; group: string }): string {
  const kind = (resource?.kind ?? obj.kind ?? '').toLowerCase();
  const group = resource ? resource.group : parseApiVersion(obj.apiVersion ?? '').group;
  return `${kind}${group ? `.${group}` : ''}/${obj.metadata?.name ?? ''}`;
}

export interface Column {
  header: string;
  path: string;
}

/** `HEADER:.path,HEADER2:{.path}` into columns. */
export function parseColumns(spec: string): Column[] {
  return spec.split(',').map((part) => {
    const colon = part.indexOf(':');
    if (colon <= 0 || colon === part.length - 1) throw new UsageError(`custom-columns: "${part}" must be HEADER:JSONPATH`);
    const header = part.slice(0, colon);
    let path = part.slice(colon + 1).trim();
    if (path.startsWith('{') && path.endsWith('}')) path = path.slice(1, -1);
    if (!path.startsWith('.') && !path.startsWith('$')) path = `.${path}`;
    compileTemplate(`{${path}}`);
    return { header, path };
  });
}

/** A value the way the reference's custom-columns printer shows it (Go's formatting of maps and lists). */
export function goValue(v: unknown): string {
  if (v === null || v === undefined) return '<none>';
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `map[${Object.keys(o).sort().map((k) => `${k}:${goValue(o[k])}`).join(' ')}]`;
  }
  return String(v);
}

export function customColumns(objects: readonly KubeObject[], spec: string, noHeaders = false): string {
  const columns = parseColumns(spec).map((c) => ({ ...c, compiled: compileTemplate(`{${c.path}}`) }));
  const rows = objects.map((obj) =>
    columns.map((c) => {
      const values = c.compiled.results(obj).flat();
      return values.length === 0 ? '<none>' : values.map(goValue).join(',');
    }),
  );
  return alignRows(noHeaders ? rows : [columns.map((c) => c.header), ...rows]);
}

/** `-o jsonpath=`: applied to the object, or to the `List` when there are several. */
export function jsonpathText(target: unknown, template: string): string {
  try {
    return parseJsonPath(template).print(target, { allowMissingKeys: true });
  } catch (e) {
    if (e instanceof JsonPathError) throw new Error(`error executing jsonpath ${JSON.stringify(template)}: ${e.message}`);
    throw e;
  }
}
