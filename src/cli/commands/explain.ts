/**
 * `orchctl explain TYPE[.field.path]`: a resource's or field's documentation from the OpenAPI v3 document
 * the server serves for its group version (the reference client's source too), laid out as its plaintext
 * output: kind header, the field's type, description, and the fields below it (`--recursive`: the tree).
 */
import type { Command } from 'commander';
import { parseApiVersion, type ResourceInfo } from '../../client/index.js';
import { pick } from '../../client/discovery.js';
import type { CliContext, RegisterCommand } from '../contract.js';
import { UsageError } from '../errors.js';

export interface Schema {
  type?: string | string[];
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  additionalProperties?: Schema | boolean;
  $ref?: string;
  allOf?: Schema[];
  'x-kubernetes-group-version-kind'?: { group: string; version: string; kind: string }[];
}

export type Schemas = Record<string, Schema>;

/** Follows `$ref` (also the one-element `allOf` the v3 documents wrap references in); the name when referenced. */
export function deref(s: Schema, schemas: Schemas): { schema: Schema; name?: string } {
  let cur = s;
  let name: string | undefined;
  for (let hops = 0; hops < 32; hops++) {
    const ref = cur.$ref ?? (cur.allOf?.length === 1 ? cur.allOf[0]!.$ref : undefined);
    if (!ref) break;
    name = ref.slice(ref.lastIndexOf('/') + 1);
    const next = schemas[name];
    if (!next) break;
    // A description next to the reference describes this use of it: keep it.
    cur = cur.description && !next.description ? { ...next, description: cur.description } : next;
  }
  return { schema: cur, ...(name ? { name } : {}) };
}

/** The type as the reference shows it: `<string>`, `<[]Container>`, `<map[string]string>`, `<ObjectMeta>`, `<Object>`. */
export function typeName(s: Schema, schemas: Schemas): string {
  const { schema, name } = deref(s, schemas);
  const short = name ? name.slice(name.lastIndexOf('.') + 1) : undefined;
  const t = Array.isArray(schema.type) ? schema.type.find((x) => x !== 'null') : schema.type;
  if (t === 'array' && schema.items) return `[]${typeName(schema.items, schemas)}`;
  if (t === 'object' || (!t && (schema.properties || schema.additionalProperties))) {
    if (short) return short;
    if (schema.additionalProperties && typeof schema.additionalProperties === 'object' && !schema.properties) return `map[string]${typeName(schema.additionalProperties, schemas)}`;
    return 'Object';
  }
  return short ?? t ?? 'Object';
}

/** The schema of `kind` in a document's schemas. */
export function kindSchema(schemas: Schemas, group: string, version: string, kind: string): Schema | undefined {
  return Object.values(schemas).find((s) => s['x-kubernetes-group-version-kind']?.some((g) => g.group === group && g.version === version && g.kind === kind));
}

/** Walks `path` (field names) from `root`; an unknown field is an error naming it. */
export function fieldAt(root: Schema, path: readonly string[], schemas: Schemas, resource: string): { schema: Schema; field: Schema } {
  let field: Schema = root;
  let schema = deref(root, schemas).schema;
  for (const [i, name] of path.entries()) {
    let container = schema;
    const t = Array.isArray(container.type) ? container.type[0] : container.type;
    if (t === 'array' && container.items) container = deref(container.items, schemas).schema;
    const next = container.properties?.[name];
    if (!next) throw new Error(`field "${name}" does not exist in ${[resource, ...path.slice(0, i)].join('.')}`);
    field = next;
    schema = deref(next, schemas).schema;
    if (Array.isArray(schema.type) ? schema.type.includes('array') : schema.type === 'array') {
      if (schema.items) schema = { ...deref(schema.items, schemas).schema, description: schema.description ?? '' };
    }
  }
  return { schema, field };
}

const indentText = (text: string, spaces: number): string =>
  text
    .split('\n')
    .map((l) => (l === '' ? '' : `${' '.repeat(spaces)}${l}`))
    .join('\n');

function fieldLines(schema: Schema, schemas: Schemas, recursive: boolean, depth: number, seen: Set<Schema>): string[] {
  const out: string[] = [];
  const required = new Set(schema.required ?? []);
  for (const name of Object.keys(schema.properties ?? {}).sort()) {
    const prop = schema.properties![name]!;
    const pad = ' '.repeat(2 + depth * 2);
    out.push(`${pad}${name}\t<${typeName(prop, schemas)}>${required.has(name) ? ' -required-' : ''}`);
    if (recursive) {
      let inner = deref(prop, schemas).schema;
      if (inner.type === 'array' && inner.items) inner = deref(inner.items, schemas).schema;
      if (inner.properties && !seen.has(inner)) {
        seen.add(inner);
        out.push(...fieldLines(inner, schemas, true, depth + 1, seen));
        seen.delete(inner);
      }
    } else {
      const desc = deref(prop, schemas).schema.description ?? prop.description;
      out.push(indentText(desc || '<no description>', 4), '');
    }
  }
  return out;
}

/** The whole text for a resource (path empty) or one of its fields. */
export function explainText(info: Pick<ResourceInfo, 'group' | 'version' | 'kind'>, root: Schema, path: readonly string[], schemas: Schemas, recursive: boolean, resource: string): string {
  const { schema, field } = path.length === 0 ? { schema: deref(root, schemas).schema, field: root } : fieldAt(root, path, schemas, resource);
  const lines: string[] = [];
  if (info.group) lines.push(`GROUP:      ${info.group}`);
  lines.push(`KIND:       ${info.kind}`, `VERSION:    ${info.version}`, '');
  if (path.length > 0) lines.push(`FIELD: ${path[path.length - 1]} <${typeName(field, schemas)}>`, '');
  const description = field.description ?? schema.description;
  lines.push('DESCRIPTION:', indentText(description || '<empty>', 4), '');
  if (schema.properties && Object.keys(schema.properties).length > 0) {
    lines.push('FIELDS:', ...fieldLines(schema, schemas, recursive, 0, new Set([schema])));
  }
  return `${lines.join('\n')}\n`;
}

export const registerExplain: RegisterCommand = (program: Command, ctx: CliContext) => {
  program
    .command('explain')
    .description('Document a resource type or one of its fields, from the OpenAPI schema the server serves')
    .argument('<TYPE[.field.path]>')
    .option('--api-version <group/version>', 'the group version to explain (default: the preferred one)')
    .option('--recursive', 'list every field below, without descriptions')
    .action(async (what: string, _o: unknown, cmd: Command) => {
      const o = cmd.opts<{ apiVersion?: string; recursive?: boolean }>();
      const [typeName_, ...path] = what.split('.');
      if (!typeName_ || path.some((p) => p === '')) throw new UsageError(`invalid field path "${what}"`, 'explain');
      const client = await ctx.client();
      const all = await client.discovery.resources();
      let info: ResourceInfo | undefined;
      if (o.apiVersion) {
        const { group, version } = parseApiVersion(o.apiVersion);
        info = pick(all.filter((r) => r.group === group && r.version === version), typeName_);
        if (!info) throw new Error(`the server doesn't have a resource type "${typeName_}" in ${o.apiVersion}`);
      } else {
        info = await client.discovery.find(typeName_).catch((e: unknown) => {
          throw new Error((e as Error).message);
        });
      }
      const key = info.group ? `apis/${info.group}/${info.version}` : `api/${info.version}`;
      const index = await client.transport.json<{ paths: Record<string, { serverRelativeURL: string }> }>({ method: 'GET', path: '/openapi/v3' });
      const entry = index.paths[key];
      if (!entry) throw new Error(`the server publishes no OpenAPI v3 document for ${key}`);
      const url = new URL(entry.serverRelativeURL, 'https://server.invalid');
      const query: Record<string, string> = {};
      for (const [k, v] of url.searchParams) query[k] = v;
      const doc = await client.transport.json<{ components?: { schemas?: Schemas } }>({ method: 'GET', path: url.pathname, query });
      const schemas = doc.components?.schemas ?? {};
      const root = kindSchema(schemas, info.group, info.version, info.kind);
      if (!root) throw new Error(`the OpenAPI document of ${key} has no schema for ${info.kind}`);
      ctx.io.out(explainText(info, root, path, schemas, Boolean(o.recursive), typeName_));
    });
};
