/**
 * `orchctl get`: server-side tables (or any `-o` format) of one or several types, by name or whole
 * collections (label and field selectors, all namespaces, paged by `--chunk-size`), then `-w` to follow.
 * Names not found are reported after what was found, and the exit code is 1, as the reference does.
 */
import type { Command } from 'commander';
import { isNotFound, TABLE_ACCEPT, type Client, type KubeObject, type ResourceClient, type Table } from '../../client/index.js';
import type { CliContext, OutputFormat, RegisterCommand } from '../contract.js';
import { errorText, ExitCode, UsageError } from '../errors.js';
import { formatObjects } from '../output/print.js';
import { SortBy } from '../output/sort-by.js';
import { fromServerTable, renderTables, TabWriter, type TextTable } from '../output/table.js';
import { kindPrefix, parseResourceArgs, resolveRequests, type ResolvedRequest } from './get-args.js';
import { sortTables } from './get-sort.js';
import { watchResource } from './get-watch.js';

export interface GetFlags {
  output?: string;
  selector?: string;
  fieldSelector?: string;
  allNamespaces?: boolean;
  watch?: boolean;
  watchOnly?: boolean;
  chunkSize: string;
  showLabels?: boolean;
  labelColumns?: string[];
  noHeaders?: boolean;
  ignoreNotFound?: boolean;
  showManagedFields?: boolean;
  sortBy?: string;
}

/** What one type contributed: objects (or a table) and the errors of names not found. */
interface Fetched {
  req: ResolvedRequest;
  client: ResourceClient;
  objects: KubeObject[];
  table?: Table;
  errors: unknown[];
  /** The list's resourceVersion (to start a watch from). */
  resourceVersion?: string;
}

export function parseChunkSize(text: string): number {
  if (!/^\d+$/.test(text)) throw new UsageError(`--chunk-size: invalid value "${text}": give a whole number (0 = no paging)`, 'get');
  return Number(text);
}

type IncludeObject = 'None' | 'Metadata' | 'Object';

/** A named object's Table row (one row), with its metadata for namespace and label columns. */
async function namedTable(client: Client, rc: ResourceClient, name: string, includeObject: string): Promise<Table> {
  return client.transport.json<Table>({ method: 'GET', path: rc.path(name), query: { includeObject }, accept: TABLE_ACCEPT });
}

/** Every page of a collection's Table, rows joined. */
async function listTable(rc: ResourceClient, f: GetFlags, limit: number, includeObject: IncludeObject): Promise<Table> {
  let next: string | undefined;
  let all: Table | undefined;
  do {
    const page = await rc.table({
      ...(f.selector ? { labelSelector: f.selector } : {}),
      ...(f.fieldSelector ? { fieldSelector: f.fieldSelector } : {}),
      ...(limit > 0 ? { limit } : {}),
      ...(next ? { continue: next } : {}),
      includeObject,
    });
    if (all) all.rows.push(...page.rows);
    else all = page;
    next = page.metadata?.continue || undefined;
  } while (next);
  return all!;
}

/** Objects of a collection (every page); items get the kind and apiVersion lists leave out. */
async function listObjects(rc: ResourceClient, req: ResolvedRequest, f: GetFlags, limit: number): Promise<{ items: KubeObject[]; resourceVersion: string }> {
  const o = { ...(f.selector ? { labelSelector: f.selector } : {}), ...(f.fieldSelector ? { fieldSelector: f.fieldSelector } : {}) };
  const { items, resourceVersion } = limit > 0 ? await rc.listAll({ ...o, limit }) : await rc.list(o).then((l) => ({ items: l.items, resourceVersion: l.metadata.resourceVersion ?? '' }));
  const apiVersion = req.info.group ? `${req.info.group}/${req.info.version}` : req.info.version;
  for (const item of items) {
    item.apiVersion ??= apiVersion;
    item.kind ??= req.info.kind;
  }
  return { items, resourceVersion };
}

async function fetch(client: Client, req: ResolvedRequest, f: GetFlags, format: OutputFormat, namespace: string | undefined, sortBy: SortBy | undefined): Promise<Fetched> {
  const rc = client.resource(req.info, req.info.namespaced ? namespace : undefined);
  // Sorting needs every object at once (the reference then lists without paging) and, in tables, whole objects.
  const limit = sortBy ? 0 : parseChunkSize(f.chunkSize);
  const out: Fetched = { req, client: rc, objects: [], errors: [] };
  const wantTable = format.kind === 'table';
  const includeObject: IncludeObject = sortBy ? 'Object' : f.allNamespaces || f.showLabels || (f.labelColumns?.length ?? 0) > 0 ? 'Metadata' : 'None';
  if (req.names.length === 0) {
    if (wantTable) {
      out.table = await listTable(rc, f, limit, includeObject);
      out.resourceVersion = out.table.metadata?.resourceVersion;
    } else {
      const l = await listObjects(rc, req, f, limit);
      out.objects = l.items;
      out.resourceVersion = l.resourceVersion;
    }
    return out;
  }
  for (const name of req.names) {
    try {
      if (wantTable) {
        const t = await namedTable(client, rc, name, includeObject);
        if (out.table) out.table.rows.push(...t.rows);
        else out.table = t;
      } else {
        out.objects.push(await rc.get(name));
      }
    } catch (e) {
      if (f.ignoreNotFound && isNotFound(e)) continue;
      out.errors.push(e);
    }
  }
  return out;
}

export async function runGet(ctx: CliContext, args: string[], f: GetFlags): Promise<void> {
  const format = ctx.outputFormat(f.output, { ...(f.noHeaders ? { noHeaders: true } : {}), ...(f.showLabels ? { showLabels: true } : {}), ...(f.labelColumns ? { labelColumns: f.labelColumns } : {}) });
  const sortBy = f.sortBy ? SortBy.parse(f.sortBy) : undefined;
  const requests = parseResourceArgs(args, 'get');
  const client = await ctx.client();
  const resolved = await resolveRequests(client, requests);
  const namespace = f.allNamespaces ? undefined : await ctx.namespace();
  if (f.allNamespaces && resolved.some((r) => r.names.length > 0 && r.info.namespaced)) {
    throw new UsageError('a resource cannot be retrieved by name across all namespaces', 'get');
  }
  if ((f.watch || f.watchOnly) && (resolved.length !== 1 || resolved[0]!.names.length > 1)) {
    throw new UsageError('watch is only supported on one resource type: one collection or one object', 'get');
  }
  if (sortBy && f.watch) ctx.io.err('warning: --watch requested, --sort-by will be ignored for watch events received\n');
  if (sortBy && f.watchOnly) ctx.io.err('warning: --watch-only requested, --sort-by will be ignored\n');
  const fetched: Fetched[] = [];
  // One writer for the list and the watched rows after it, so they line up as the reference's do.
  const writer = new TabWriter();
  if (!f.watchOnly) {
    for (const r of resolved) fetched.push(await fetch(client, r, f, format, namespace, sortBy));
    printFetched(ctx, fetched, format, f, namespace, resolved, writer, sortBy && { sortBy, watching: Boolean(f.watch) });
  }
  const errors = fetched.flatMap((x) => x.errors);
  for (const e of errors) ctx.io.err(`${errorText(e)}\n`);
  if (f.watch || f.watchOnly) {
    const only = resolved[0]!;
    const rc = client.resource(only.info, only.info.namespaced ? namespace : undefined);
    const sel: { labelSelector?: string; fieldSelector?: string } = {};
    if (f.selector) sel.labelSelector = f.selector;
    if (only.names.length === 1) sel.fieldSelector = [f.fieldSelector, `metadata.name=${only.names[0]}`].filter(Boolean).join(',');
    else if (f.fieldSelector) sel.fieldSelector = f.fieldSelector;
    await watchResource(ctx, client, rc, only.info, format, {
      ...sel,
      ...(fetched[0]?.resourceVersion ? { resourceVersion: fetched[0].resourceVersion } : {}),
      header: Boolean(f.watchOnly) && !f.noHeaders,
      allNamespaces: Boolean(f.allNamespaces),
      writer,
      ...(f.showManagedFields ? { showManagedFields: true } : {}),
    });
  }
  if (errors.length > 0) throw new ExitCode(1);
}

function printFetched(
  ctx: CliContext,
  fetched: Fetched[],
  format: OutputFormat,
  f: GetFlags,
  namespace: string | undefined,
  resolved: ResolvedRequest[],
  writer: TabWriter,
  sorting: { sortBy: SortBy; watching: boolean } | undefined,
): void {
  const several = resolved.length > 1;
  if (format.kind === 'table') {
    const pieces = fetched.filter((x) => x.table).map((x) => ({ of: x, table: x.table!, named: x.req.names.length > 0 }));
    const tables: TextTable[] = (sorting ? sortTables(pieces, sorting.sortBy, sorting) : pieces).map(({ of: x, table }) =>
      fromServerTable(table, {
        wide: format.wide,
        withNamespace: Boolean(f.allNamespaces) && x.req.info.namespaced,
        ...(several ? { namePrefix: kindPrefix(x.req.info) } : {}),
        ...(format.showLabels ? { showLabels: true } : {}),
        ...(format.labelColumns ? { labelColumns: format.labelColumns } : {}),
      }),
    );
    const text = renderTables(tables, format.noHeaders, writer);
    if (text) ctx.io.out(text);
    const anyErrors = fetched.some((x) => x.errors.length > 0);
    if (!text && !anyErrors && !f.ignoreNotFound) {
      const scoped = namespace !== undefined && resolved.some((r) => r.info.namespaced);
      ctx.io.err(scoped ? `No resources found in ${namespace} namespace.\n` : 'No resources found\n');
    }
    return;
  }
  const oneByName = resolved.length === 1 && resolved[0]!.names.length === 1;
  let entries = fetched.flatMap((x) => x.objects.map((o) => ({ o, prefix: kindPrefix(x.req.info) })));
  // Every object of every kind is one list, sorted as a whole; a single object named alone is not a list.
  if (sorting && !oneByName) entries = sorting.sortBy.sort(entries, (e) => e.o);
  const objects = entries.map((e) => e.o);
  // As the reference: managedFields are noise in printed objects unless asked for.
  if (!f.showManagedFields) for (const o of objects) delete o.metadata.managedFields;
  if (objects.length === 0 && oneByName) return; // the error says it all
  if (format.kind === 'name') {
    ctx.io.out(entries.map((e) => `${e.prefix}${e.o.metadata.name ?? ''}\n`).join(''));
    return;
  }
  const text = formatObjects(objects, format, { asList: !oneByName });
  if (text) ctx.io.out(text);
}

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), ...value.split(',').filter((v) => v !== '')];

export const registerGet: RegisterCommand = (program: Command, ctx: CliContext) => {
  program
    .command('get')
    .description('Show one or many objects: a table by default, or any -o format')
    .argument('[args...]', 'TYPE[,TYPE...] [NAME...], or TYPE/NAME...')
    .option('-o, --output <format>', 'json, yaml, name, wide, jsonpath=TEMPLATE, custom-columns=SPEC')
    .option('-l, --selector <selector>', 'label selector (e.g. app=web,tier!=db)')
    .option('--field-selector <selector>', 'field selector (e.g. metadata.name=a)')
    .option('-A, --all-namespaces', 'list across every namespace')
    .option('-w, --watch', 'after listing, keep printing changes')
    .option('--watch-only', 'print changes only, without listing first')
    .option('--chunk-size <n>', 'objects per page when listing (0 = all at once)', '500')
    .option('--show-labels', 'add a LABELS column')
    .option('-L, --label-columns <keys>', 'add a column per label key (comma-separated, repeatable)', collect)
    .option('--no-headers', 'leave out the header line of tables')
    .option('--ignore-not-found', 'print nothing for names that do not exist')
    .option('--sort-by <jsonpath>', 'sort lists by the value at this field path (e.g. .metadata.name)')
    .option('--show-managed-fields', 'keep metadata.managedFields in -o yaml, json, jsonpath and custom-columns output')
    .action(async (args: string[], _o: unknown, cmd: Command) => {
      const opts = cmd.opts<GetFlags & { headers?: boolean }>();
      await runGet(ctx, args, { ...opts, noHeaders: opts.headers === false });
    });
};
