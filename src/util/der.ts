/** One DER element: its tag, where it starts, where its content starts and where it ends. */
export interface DerElement {
  tag: number;
  start: number;
  content: number;
  end: number;
}

/** Reads the DER element at `at`, which must end by `limit`; throws on truncated or malformed lengths. */
export function readDerElement(buf: Buffer, at: number, limit = buf.length): DerElement {
  const tag = buf[at];
  let len = buf[at + 1];
  if (tag === undefined || len === undefined) throw new Error('truncated');
  let content = at + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4) throw new Error('bad length');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + (buf[content + i] ?? NaN);
    content += n;
  }
  const end = content + len;
  if (!Number.isFinite(end) || end > limit) throw new Error('truncated');
  return { tag, start: at, content, end };
}
