/**
 * `Warning: 299 - "<text>"` response headers (RFC 7234 section 5.5) built from texts that may quote request
 * input (unknown field names, values). A header value must be bytes a client can read back: node refuses
 * characters past U+00FF on HTTP/1.1 (the request then failed after its write was stored) and sends U+0080
 * to U+00FF as Latin-1, which UTF-8 clients misread. So everything but printable ASCII is escaped, and the
 * whole set is bounded. These functions never throw, whatever the text.
 */

/** The reference's limits: past 4096 characters in all, each warning is cut to 256 and later ones dropped. */
export const WARNING_TOTAL_CHARS = 4096;
export const WARNING_ITEM_CHARS = 256;
/**
 * Our own bound on the escaped header lines, which can be up to 12 times the text: below node clients'
 * default 16 KiB for all response headers (HTTP/1.1) and 128 header fields (HTTP/2).
 */
export const WARNING_HEADER_BYTES = 8 * 1024;
export const WARNING_HEADER_LINES = 100;

const NAMED: Record<string, string> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');

/**
 * Printable ASCII as it is; any other character as Go's `%q` spells it (`\n`, `\x01`, `\u00e4`, `\U0001f600`),
 * so the text stays readable and any header accepts it. A lone surrogate becomes `\ufffd`.
 */
export function asciiEscaped(text: string): string {
  if (/^[\x20-\x7e]*$/.test(text)) return text;
  let out = '';
  for (const ch of text) {
    const c = ch.codePointAt(0) as number;
    if (c >= 0x20 && c <= 0x7e) out += ch;
    else if (NAMED[ch]) out += NAMED[ch];
    else if (c < 0x80) out += `\\x${hex(c, 2)}`;
    else if (c >= 0xd800 && c <= 0xdfff) out += '\\ufffd';
    else if (c <= 0xffff) out += `\\u${hex(c, 4)}`;
    else out += `\\U${hex(c, 8)}`;
  }
  return out;
}

/** The text's first `max` characters (code points, as the reference counts runes). */
function firstChars(text: string, max: number): string {
  if (text.length <= max) return text;
  let out = '';
  let n = 0;
  for (const ch of text) {
    if (n++ === max) break;
    out += ch;
  }
  return out;
}

const charCount = (text: string): number => {
  let n = 0;
  for (const _ of text) n++;
  return n;
};

/** RFC 7230 quoted-string, as the reference quotes warning text: `"` and `\` get a backslash. */
const quoted = (text: string) => `"${text.replace(/["\\]/g, '\\$&')}"`;

/**
 * The `Warning` header lines for `texts`, in order: empty and repeated texts are skipped; past
 * `WARNING_TOTAL_CHARS` characters the reference's truncation applies (each cut to `WARNING_ITEM_CHARS`, later
 * ones dropped); a text too long to fit `WARNING_HEADER_BYTES` once escaped is cut the same way, and lines
 * past that size or past `WARNING_HEADER_LINES` are dropped.
 */
export function warningHeaderValues(texts: readonly string[]): string[] {
  const kept: string[] = [];
  const seen = new Set<string>();
  let total = 0;
  let truncating = false;
  for (const text of texts) {
    if (typeof text !== 'string' || text === '' || seen.has(text)) continue;
    seen.add(text);
    kept.push(text);
    // Counting stops early: a huge text needs no full count to know it is over the limit.
    total += charCount(firstChars(text, WARNING_TOTAL_CHARS + 1));
    if (total > WARNING_TOTAL_CHARS) {
      truncating = true;
      break;
    }
  }
  const line = (text: string) => `299 - ${quoted(asciiEscaped(text))}`;
  const lines: string[] = [];
  let bytes = 0;
  for (const text of kept) {
    if (lines.length === WARNING_HEADER_LINES) break;
    let next = line(truncating ? firstChars(text, WARNING_ITEM_CHARS) : text);
    // A text that escapes long is cut as the reference cuts it, to fit (the first always fits then).
    if (bytes + next.length > WARNING_HEADER_BYTES) next = line(firstChars(text, WARNING_ITEM_CHARS));
    if (bytes + next.length > WARNING_HEADER_BYTES) break;
    bytes += next.length;
    lines.push(next);
  }
  return lines;
}
