/**
 * Human-readable tables as the reference client prints them: the server's Table (its columns, `-o wide`
 * adding the priority > 0 ones), a NAMESPACE column for `-A`, `kind/name` names when several kinds are
 * shown, LABELS (`--show-labels`) and label columns (`-L`), cells padded by three spaces like Go's tabwriter.
 */
import type { Table } from '../../client/index.js';
import type { ObjectMeta } from '../../client/index.js';

export interface TableOptions {
  wide: boolean;
  /** Add NAMESPACE first (objects from several namespaces). */
  withNamespace?: boolean;
  /** `kind[.group]/` put before every name (several kinds in one command). */
  namePrefix?: string;
  showLabels?: boolean;
  labelColumns?: string[];
  noHeaders?: boolean;
}

/** One table ready to print: header and cell text. */
export interface TextTable {
  header: string[];
  rows: string[][];
}

const width = (s: string): number => [...s].length;

/**
 * The tab writer the reference prints its tables with (Go's text/tabwriter as the reference's printers
 * configure it): lines are split into cells at tabs; a column's width is set per block of consecutive lines
 * that have a cell in it (so a cell holding a line break ends the block), at least `minWidth`, plus
 * `padding`. With `remember`, a column never gets narrower than it was in an earlier block or write, which
 * keeps `get -w` rows aligned with the table printed before them.
 */
export class TabWriter {
  private remembered: number[] = [];

  constructor(
    private readonly padding = 3,
    private readonly minWidth = 6,
    private readonly remember = true,
  ) {}

  /** Forgets remembered widths (the reference does so between the tables of different kinds). */
  resetWidths(): void {
    this.remembered = [];
  }

  /** The aligned form of `text` (cells separated by tabs, lines by newlines). */
  write(text: string): string {
    const lines = text.split('\n').map((l) => l.split('\t'));
    const widths: number[] = [];
    let out = '';
    const writeLines = (from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const line = lines[i]!;
        let s = '';
        line.forEach((cell, j) => {
          s += cell;
          if (j < widths.length) s += ' '.repeat(Math.max(0, widths[j]! - width(cell)));
        });
        out += i < lines.length - 1 ? `${s}\n` : s;
      }
    };
    const format = (line0: number, line1: number) => {
      const column = widths.length;
      for (let cur = line0; cur < line1; cur++) {
        if (column >= lines[cur]!.length - 1) continue;
        writeLines(line0, cur);
        line0 = cur;
        let w = this.minWidth;
        for (; cur < line1 && column < lines[cur]!.length - 1; cur++) w = Math.max(w, width(lines[cur]![column]!) + this.padding);
        if (this.remember) {
          w = Math.max(w, this.remembered[column] ?? 0);
          this.remembered[column] = w;
        }
        widths.push(w);
        format(line0, cur);
        widths.pop();
        // The line that ended the block has no cell in this column: the loop may step past it.
        line0 = cur;
      }
      writeLines(line0, line1);
    };
    format(0, lines.length);
    return out;
  }
}

/** Rows as the reference's table printers align them (a fresh writer: padding 3, columns at least 6 wide). */
export function alignRows(rows: readonly (readonly string[])[], writer: TabWriter = new TabWriter()): string {
  if (rows.length === 0) return '';
  return writer.write(`${rows.map((r) => r.join('\t')).join('\n')}\n`);
}

/** Text of one cell: strings cut at the first line break (with `...`), nothing for null, JSON for structures. */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') {
    const cut = v.search(/[\n\r\f]/);
    return cut < 0 ? v : `${v.slice(0, cut)}...`;
  }
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** `k=v,k2=v2` sorted by key, or `<none>`. */
export function labelsText(labels: Record<string, string> | undefined): string {
  const keys = Object.keys(labels ?? {}).sort();
  return keys.length === 0 ? '<none>' : keys.map((k) => `${k}=${labels![k]}`).join(',');
}

/** The header of a `-L key` column: the part after the last `/`, upper-cased. */
export const labelColumnHeader = (key: string): string => key.slice(key.lastIndexOf('/') + 1).toUpperCase();

/**
 * The text table of a server Table. `metaOf(i)` gives row i's metadata (from the rows' `object`), needed for
 * the namespace and label columns.
 */
export function fromServerTable(table: Pick<Table, 'columnDefinitions' | 'rows'>, o: TableOptions): TextTable {
  const shown = table.columnDefinitions.map((c, i) => ({ c, i })).filter(({ c }) => o.wide || !c.priority);
  const nameAt = table.columnDefinitions.findIndex((c) => c.format === 'name' || c.name === 'Name');
  const header: string[] = [];
  if (o.withNamespace) header.push('NAMESPACE');
  for (const { c } of shown) header.push(c.name.toUpperCase());
  for (const key of o.labelColumns ?? []) header.push(labelColumnHeader(key));
  if (o.showLabels) header.push('LABELS');
  const rows = table.rows.map((r) => {
    const meta = metaOfRow(r.object);
    const row: string[] = [];
    if (o.withNamespace) row.push(meta.namespace ?? '');
    for (const { i } of shown) {
      const text = cellText(r.cells[i]);
      row.push(i === nameAt && o.namePrefix ? `${o.namePrefix}${text}` : text);
    }
    for (const key of o.labelColumns ?? []) row.push(meta.labels?.[key] ?? '');
    if (o.showLabels) row.push(labelsText(meta.labels));
    return row;
  });
  return { header, rows };
}

function metaOfRow(object: unknown): ObjectMeta {
  const meta = (object as { metadata?: ObjectMeta } | undefined)?.metadata;
  return meta ?? {};
}

/**
 * The text of several tables (several kinds): each aligned on its own, separated by a blank line. The
 * last one's widths stay in `writer`, so watched rows printed after it line up.
 */
export function renderTables(tables: readonly TextTable[], noHeaders = false, writer: TabWriter = new TabWriter()): string {
  return tables
    .filter((t) => t.rows.length > 0)
    .map((t) => {
      writer.resetWidths();
      return alignRows(noHeaders ? t.rows : [t.header, ...t.rows], writer);
    })
    .join('\n');
}

/** Age as the reference prints it (`45s`, `3m20s`, `5h`, `2d3h`, `400d`): two units up to a point, then one. */
export function humanAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  if (d < 8) return h % 24 === 0 ? `${d}d` : `${d}d${h % 24}h`;
  if (d < 365 * 2) return `${d}d`;
  const y = Math.floor(d / 365);
  if (y < 8) return d % 365 === 0 ? `${y}y` : `${y}y${d % 365}d`;
  return `${y}y`;
}
