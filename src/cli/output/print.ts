/**
 * Printing objects a command already holds in any `-o` format (the `print` and `printAction` of
 * CliContext). `get` asks the server for its tables itself (commands/get.ts); here a table is built from
 * metadata (NAME, AGE), as the reference does for objects it has no server table for.
 */
import type { KubeObject } from '../../client/index.js';
import type { OutputFormat } from '../contract.js';
import { asList, customColumns, jsonpathText, objectName, toJson, toYaml } from './formats.js';
import { alignRows, humanAge, labelColumnHeader, labelsText } from './table.js';

export interface PrintTarget {
  asList?: boolean;
  resource?: { plural: string; group: string; kind?: string };
  /** For ages; Date.now by default. */
  now?: number;
}

/** The text of `objects` in `format` (empty when there is nothing to print in a table). */
export function formatObjects(objects: readonly KubeObject[], format: OutputFormat, t: PrintTarget = {}): string {
  const single = objects.length === 1 && !t.asList ? objects[0] : undefined;
  switch (format.kind) {
    case 'yaml':
      return toYaml(single ?? asList(objects));
    case 'json':
      return toJson(single ?? asList(objects));
    case 'name':
      return objects.map((o) => `${objectName(o, t.resource ? { group: t.resource.group, ...(o.kind ? {} : { kind: kindFromPlural(t.resource) }) } : undefined)}\n`).join('');
    case 'jsonpath':
      return jsonpathText(single ?? asList(objects), format.template);
    case 'custom-columns':
      return customColumns(objects, format.spec, false);
    case 'table':
      return metadataTable(objects, format, t.now ?? Date.now());
  }
}

/** Without a kind on the object, the reference's `-o name` falls back to the resource's singular; we have the plural. */
function kindFromPlural(r: { plural: string; kind?: string }): string {
  return r.kind ?? r.plural;
}

function metadataTable(objects: readonly KubeObject[], f: Extract<OutputFormat, { kind: 'table' }>, now: number): string {
  if (objects.length === 0) return '';
  const namespaces = new Set(objects.map((o) => o.metadata?.namespace ?? ''));
  const withNamespace = namespaces.size > 1;
  const header = [...(withNamespace ? ['NAMESPACE'] : []), 'NAME', 'AGE', ...(f.labelColumns ?? []).map(labelColumnHeader), ...(f.showLabels ? ['LABELS'] : [])];
  const rows = objects.map((o) => {
    const m = o.metadata ?? {};
    const created = m.creationTimestamp ? Date.parse(m.creationTimestamp) : NaN;
    return [
      ...(withNamespace ? [m.namespace ?? ''] : []),
      m.name ?? '',
      Number.isNaN(created) ? '<unknown>' : humanAge(now - created),
      ...(f.labelColumns ?? []).map((k) => m.labels?.[k] ?? ''),
      ...(f.showLabels ? [labelsText(m.labels)] : []),
    ];
  });
  return alignRows(f.noHeaders ? rows : [header, ...rows]);
}

/** `configmap/a created` (or, with `-o name`, just `configmap/a`); other formats print the object. */
export function actionText(obj: KubeObject, action: string, resource: { plural: string; group: string }, format?: OutputFormat): string {
  const name = objectName(obj, { group: resource.group, ...(obj.kind ? {} : { kind: resource.plural }) });
  if (!format || format.kind === 'table') return `${name} ${action}\n`;
  if (format.kind === 'name') return `${name}\n`;
  return formatObjects([obj], format, { resource });
}
