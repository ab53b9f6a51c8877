/**
 * The text of `describe` for any object, as the reference's generic describer lays it out: name,
 * namespace, labels and annotations first, then every other field as indented `Title Case:` lines, then
 * the object's recent Events. Pure (the time is passed in).
 */
import type { KubeObject } from '../../client/index.js';
import { alignRows, humanAge, TabWriter } from '../output/table.js';

/** The reference's describe output is aligned by a plain tab writer with two spaces of padding. */
const describeWriter = () => new TabWriter(2, 0, false);

/** Words the reference prints in capitals when turning field names into labels. */
const ACRONYMS = new Set(['api', 'uid', 'url', 'ip', 'ips', 'id', 'cidr', 'dns', 'tls', 'http', 'https', 'tcp', 'udp', 'sctp', 'cpu', 'os', 'json', 'ca', 'csi', 'fs']);

/** `creationTimestamp` → `Creation Timestamp`, `apiVersion` → `API Version`; keys that are no field names unchanged. */
export function fieldLabel(name: string): string {
  // Map keys (data keys, label keys) are not field names: shown as they are.
  if (/[^A-Za-z-]/.test(name)) return name;
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_-]+/)
    .filter((w) => w !== '');
  return words
    .map((w) => (ACRONYMS.has(w.toLowerCase()) ? w.toUpperCase() : w[0]!.toUpperCase() + w.slice(1)))
    .join(' ');
}

const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

const scalar = (v: unknown): string => (v === null || v === undefined ? '<nil>' : typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** Lines of one map at `indent`: scalars aligned in a block, maps and lists nested below their label. */
function mapLines(m: Record<string, unknown>, indent: number): string[] {
  const pad = ' '.repeat(indent);
  const out: string[] = [];
  let block: string[][] = [];
  const flush = () => {
    if (block.length === 0) return;
    for (const line of alignRows(block, describeWriter()).split('\n')) if (line !== '') out.push(`${pad}${line.replace(/\s+$/, '')}`);
    block = [];
  };
  for (const key of Object.keys(m).sort()) {
    const v = m[key];
    const label = `${fieldLabel(key)}:`;
    if (isMap(v)) {
      flush();
      if (Object.keys(v).length === 0) out.push(`${pad}${label}`);
      else out.push(`${pad}${label}`, ...mapLines(v, indent + 2));
    } else if (Array.isArray(v)) {
      flush();
      out.push(`${pad}${label}`, ...listLines(v, indent + 2));
    } else if (typeof v === 'string' && v.includes('\n')) {
      // A text block: its lines under the label, indented, as the reference prints multi-line values.
      flush();
      out.push(`${pad}${label}`, ...v.replace(/\n$/, '').split('\n').map((l) => `${pad}    ${l}`));
    } else block.push([label, scalar(v)]);
  }
  flush();
  return out;
}

function listLines(list: unknown[], indent: number): string[] {
  const pad = ' '.repeat(indent);
  const out: string[] = [];
  for (const item of list) {
    if (isMap(item)) out.push(...mapLines(item, indent));
    else if (Array.isArray(item)) out.push(...listLines(item, indent + 2));
    else out.push(`${pad}${scalar(item)}`);
  }
  return out;
}

/** `k=v` lines for labels and annotations, the first after the label, the rest under it; `<none>` when empty. */
function keyValueBlock(label: string, kv: Record<string, string> | undefined, width: number): string[] {
  const keys = Object.keys(kv ?? {}).sort();
  const head = label.padEnd(width);
  if (keys.length === 0) return [`${head}<none>`];
  return keys.map((k, i) => `${i === 0 ? head : ' '.repeat(width)}${k}=${kv![k]}`);
}

export interface EventLike {
  type?: string;
  reason?: string;
  message?: string;
  count?: number;
  firstTimestamp?: string | null;
  lastTimestamp?: string | null;
  eventTime?: string | null;
  source?: { component?: string; host?: string };
  reportingComponent?: string;
  reportingController?: string;
  series?: { count?: number; lastObservedTime?: string };
  metadata?: { creationTimestamp?: string };
}

const since = (now: number, t: string | null | undefined): number | undefined => {
  const ms = t ? Date.parse(t) : NaN;
  return Number.isNaN(ms) ? undefined : now - ms;
};

/** The Age cell of an event: `10s`, or `3m (x4 over 10m)` for a repeated one. */
export function eventAge(e: EventLike, now: number): string {
  const last = since(now, e.lastTimestamp ?? e.series?.lastObservedTime ?? e.eventTime ?? e.metadata?.creationTimestamp);
  const first = since(now, e.firstTimestamp ?? e.eventTime ?? e.metadata?.creationTimestamp);
  const count = e.series?.count ?? e.count ?? 1;
  const lastText = last === undefined ? '<unknown>' : humanAge(last);
  if (count > 1 && first !== undefined) return `${lastText} (x${count} over ${humanAge(first)})`;
  return lastText;
}

export function eventsLines(events: readonly EventLike[], now: number): string[] {
  if (events.length === 0) return ['Events:  <none>'];
  const sorted = [...events].sort((a, b) => (since(now, a.lastTimestamp ?? a.eventTime ?? a.metadata?.creationTimestamp) ?? 0) > (since(now, b.lastTimestamp ?? b.eventTime ?? b.metadata?.creationTimestamp) ?? 0) ? -1 : 1);
  const rows = [
    ['Type', 'Reason', 'Age', 'From', 'Message'],
    ['----', '------', '----', '----', '-------'],
    ...sorted.map((e) => {
      const from = e.source?.component ? [e.source.component, e.source.host].filter(Boolean).join(', ') : (e.reportingController ?? e.reportingComponent ?? '');
      return [e.type ?? '', e.reason ?? '', eventAge(e, now), from, (e.message ?? '').trim()];
    }),
  ];
  return ['Events:', ...alignRows(rows, describeWriter()).split('\n').filter((l) => l !== '').map((l) => `  ${l}`)];
}

const HEAD_WIDTH = 14;

/** The whole text for one object (without a trailing blank line). `events` undefined = not looked up. */
export function describeText(obj: KubeObject, events: readonly EventLike[] | undefined, now: number): string {
  const meta = obj.metadata ?? {};
  const lines: string[] = [`${'Name:'.padEnd(HEAD_WIDTH)}${meta.name ?? ''}`];
  if (meta.namespace) lines.push(`${'Namespace:'.padEnd(HEAD_WIDTH)}${meta.namespace}`);
  lines.push(...keyValueBlock('Labels:', meta.labels, HEAD_WIDTH), ...keyValueBlock('Annotations:', meta.annotations, HEAD_WIDTH));
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (k !== 'metadata') rest[k] = v;
  const shownMeta: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(meta)) if (!['name', 'namespace', 'labels', 'annotations', 'managedFields'].includes(k)) shownMeta[k] = v;
  if (Object.keys(shownMeta).length > 0) rest.metadata = shownMeta;
  lines.push(...mapLines(rest, 0));
  if (events !== undefined) lines.push(...eventsLines(events, now));
  return `${lines.join('\n')}\n`;
}
