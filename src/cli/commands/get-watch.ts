/**
 * `get -w` / `--watch-only`: follows one collection (or one object) and prints each change as it comes:
 * a table row (asked from the server as a Table, as the reference does), or the object in the `-o` format.
 * A watch the server ends is resumed from the last resourceVersion seen; it runs until interrupted.
 */
import { TABLE_ACCEPT, watchEvents, type Client, type KubeObject, type ResourceClient, type ResourceInfo, type Table } from '../../client/index.js';
import type { CliContext, OutputFormat } from '../contract.js';
import { formatObjects } from '../output/print.js';
import { alignRows, fromServerTable, type TabWriter } from '../output/table.js';
import { kindPrefix } from './get-args.js';

export interface WatchSettings {
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  /** Print the table header before the first row (`--watch-only`). */
  header: boolean;
  allNamespaces: boolean;
  /** The writer the list was printed with (its column widths carry over). */
  writer: TabWriter;
  showManagedFields?: boolean;
}

const rvOf = (o: { metadata?: { resourceVersion?: string } } | undefined): string | undefined => o?.metadata?.resourceVersion || undefined;

export async function watchResource(ctx: CliContext, client: Client, rc: ResourceClient, info: ResourceInfo, format: OutputFormat, s: WatchSettings): Promise<void> {
  let resourceVersion = s.resourceVersion;
  if (!resourceVersion) {
    // Start from now: the list's version (one item is enough to learn it).
    const page = await rc.list({ limit: 1, ...(s.labelSelector ? { labelSelector: s.labelSelector } : {}), ...(s.fieldSelector ? { fieldSelector: s.fieldSelector } : {}) });
    resourceVersion = page.metadata.resourceVersion;
  }
  let header = s.header;
  let printedObjects = 0;
  for (;;) {
    const query = {
      watch: true,
      labelSelector: s.labelSelector,
      fieldSelector: s.fieldSelector,
      resourceVersion,
      allowWatchBookmarks: true,
      ...(format.kind === 'table' ? { includeObject: 'Metadata' } : {}),
    };
    const { stream } = await client.transport.open({ method: 'GET', path: rc.path(), query, ...(format.kind === 'table' ? { accept: TABLE_ACCEPT } : {}) });
    for await (const event of watchEvents<KubeObject>(stream)) {
      if (event.type === 'BOOKMARK') {
        resourceVersion = rvOf(event.object) ?? resourceVersion;
        continue;
      }
      if (format.kind === 'table') {
        const table = event.object as unknown as Table;
        resourceVersion = rvOf(table.rows[0]?.object as KubeObject | undefined) ?? resourceVersion;
        const text = fromServerTable(table, {
          wide: format.wide,
          withNamespace: s.allNamespaces && info.namespaced,
          ...(format.showLabels ? { showLabels: true } : {}),
          ...(format.labelColumns ? { labelColumns: format.labelColumns } : {}),
        });
        ctx.io.out(alignRows(header ? [text.header, ...text.rows] : text.rows, s.writer));
        header = false;
        continue;
      }
      resourceVersion = rvOf(event.object) ?? resourceVersion;
      const obj = event.object;
      if (!s.showManagedFields) delete obj.metadata.managedFields;
      if (format.kind === 'name') ctx.io.out(`${kindPrefix(info)}${obj.metadata.name ?? ''}\n`);
      else ctx.io.out(`${format.kind === 'yaml' && printedObjects > 0 ? '---\n' : ''}${formatObjects([obj], format)}`);
      printedObjects++;
    }
  }
}
