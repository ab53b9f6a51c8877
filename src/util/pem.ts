/** PEM text split into its blocks; shared by the authenticators and the configuration documents that hold PEM. */
export interface PemBlock {
  /** The word(s) between BEGIN and END, e.g. `CERTIFICATE`, `EC PRIVATE KEY`. */
  label: string;
  /** The whole block, headers included, as node:crypto wants it. */
  text: string;
}

/** Every `-----BEGIN x-----` … `-----END x-----` block in order; text between blocks (comments) is ignored. */
export function pemBlocks(text: string): PemBlock[] {
  const out: PemBlock[] = [];
  for (const m of text.matchAll(/-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g)) {
    out.push({ label: m[1]!, text: `${m[0]}\n` });
  }
  return out;
}
