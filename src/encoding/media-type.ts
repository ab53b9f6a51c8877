import { notAcceptable } from '../errors/index.js';
import { TextMemo } from '../util/text-memo.js';

export const JSON_MEDIA = 'application/json';
export const YAML_MEDIA = 'application/yaml';

/** One entry of an Accept header: `type/subtype;param=value;q=0.5`. */
export interface MediaRange {
  type: string;
  subtype: string;
  params: Record<string, string>;
  q: number;
}

export function parseMediaType(value: string): MediaRange {
  const [essence = '', ...rest] = value.split(';');
  const [type = '', subtype = ''] = essence.trim().toLowerCase().split('/');
  const params: Record<string, string> = {};
  let q = 1;
  for (const p of rest) {
    const i = p.indexOf('=');
    if (i < 0) continue;
    const k = p.slice(0, i).trim().toLowerCase();
    const v = p.slice(i + 1).trim().replace(/^"(.*)"$/, '$1');
    if (k === 'q') q = Number(v);
    else params[k] = v;
  }
  return { type, subtype, params, q: Number.isFinite(q) ? q : 0 };
}

/**
 * The `type/subtype` of a Content-Type value, lower case, without parameters. Remembered per header text
 * like Accept headers (every write asks, and clients send the same few values).
 */
export function mediaTypeOf(contentType: string): string {
  const known = mediaTypes.get(contentType);
  if (known !== undefined) return known;
  const { type, subtype } = parseMediaType(contentType);
  return mediaTypes.set(contentType, `${type}/${subtype}`);
}
const mediaTypes = new TextMemo<string>();

/**
 * An Accept header's media ranges, best first. Clients send the same few headers on every request, so
 * results are remembered per header text (a small table, emptied when full; long headers are not kept).
 * The ranges are shared: callers only read them.
 */
export function parseAccept(header: string | undefined): readonly MediaRange[] {
  const key = header ?? '';
  return acceptRanges.get(key) ?? acceptRanges.set(key, parseAcceptUncached(header));
}
const acceptRanges = new TextMemo<readonly MediaRange[]>();

/** Splits an Accept header on commas that are not inside quotes. */
function parseAcceptUncached(header: string | undefined): MediaRange[] {
  if (!header || !header.trim()) return [{ type: '*', subtype: '*', params: {}, q: 1 }];
  const parts: string[] = [];
  let cur = '';
  let quoted = false;
  for (const ch of header) {
    if (ch === '"') quoted = !quoted;
    if (ch === ',' && !quoted) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  return parts
    .filter((p) => p.trim())
    .map(parseMediaType)
    .filter((r) => r.q > 0)
    .map((r, i) => ({ r, i }))
    .sort((a, b) => b.r.q - a.r.q || a.i - b.i) // stable: header order breaks ties
    .map((x) => x.r);
}

/** What a response can be rendered as. `as` is set for alternative representations (e.g. Table). */
export interface Representation {
  mediaType: string;
  as?: { kind: string; group: string; version: string };
}

/**
 * Picks the first acceptable representation. `offers` lists the media types the handler can render, and
 * `alternatives` the `as=<Kind>;g=<group>;v=<version>` forms it supports (none yet: those arrive with tables).
 * An Accept entry asking for an alternative we do not offer is skipped, so clients' fallbacks work (spec 4.4).
 */
export function negotiate(
  accept: string | undefined,
  offers: readonly string[],
  alternatives: readonly { kind: string; group: string; version: string }[] = NO_ALTERNATIVES,
): Representation {
  // The answer depends only on the header and the offers, which callers keep in constants: remembered
  // per (offers, alternatives) array and header text.
  let byAlternatives = negotiated.get(offers);
  if (!byAlternatives) negotiated.set(offers, (byAlternatives = new WeakMap()));
  let byAccept = byAlternatives.get(alternatives);
  if (!byAccept) byAlternatives.set(alternatives, (byAccept = new TextMemo()));
  const key = accept ?? '';
  return byAccept.get(key) ?? byAccept.set(key, Object.freeze(negotiateUncached(accept, offers, alternatives)));
}
const NO_ALTERNATIVES: readonly { kind: string; group: string; version: string }[] = [];
const negotiated = new WeakMap<readonly string[], WeakMap<object, TextMemo<Representation>>>();

function negotiateUncached(
  accept: string | undefined,
  offers: readonly string[],
  alternatives: readonly { kind: string; group: string; version: string }[],
): Representation {
  for (const r of parseAccept(accept)) {
    const candidates = offers.filter(
      (o) =>
        (r.type === '*' || o.startsWith(`${r.type}/`)) && (r.subtype === '*' || o.endsWith(`/${r.subtype}`)),
    );
    if (candidates.length === 0) continue;
    if (r.params.as) {
      const alt = alternatives.find(
        (a) => a.kind === r.params.as && a.group === (r.params.g ?? '') && a.version === (r.params.v ?? ''),
      );
      if (!alt) continue;
      return { mediaType: candidates[0] as string, as: alt };
    }
    return { mediaType: candidates[0] as string };
  }
  throw notAcceptable(`only the following media types are accepted: ${offers.join(', ')}`);
}
