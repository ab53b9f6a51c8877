/**
 * `spec.trustBundle` of a ClusterTrustBundle: PEM text of CERTIFICATE blocks, each an X.509 CA certificate,
 * with the reference's problems (bad block type, headers, unparsable, not a CA, duplicates, none at all)
 * reported per block index. The CA test reads basicConstraints itself: node's `X509Certificate.ca` also
 * weighs key usage, which Go's `IsCA` does not.
 */
import { X509Certificate } from 'node:crypto';
import { readDerElement, type DerElement } from '../../../util/der.js';
import { children, pemBlocks } from './pem.js';

/** The reference's cap on the bundle text, in bytes (the same as a Secret's). */
export const MAX_TRUST_BUNDLE_SIZE = 1024 * 1024;

/** OBJECT IDENTIFIER 2.5.29.19 (basicConstraints), as its DER content bytes. */
const BASIC_CONSTRAINTS_OID = Buffer.from([0x55, 0x1d, 0x13]);
const TAG = { boolean: 0x01, octetString: 0x04, oid: 0x06, sequence: 0x30, extensions: 0xa3 } as const;

export interface BasicConstraints {
  /** Whether the certificate carries the extension at all (Go's BasicConstraintsValid). */
  present: boolean;
  isCA: boolean;
}

/**
 * The basicConstraints of a DER certificate; throws when the certificate's structure or the extension is
 * malformed (the reference's parser rejects such a certificate).
 */
export function basicConstraintsOf(der: Buffer): BasicConstraints {
  const cert = readDerElement(der, 0);
  const tbs = children(der, cert)[0];
  if (cert.tag !== TAG.sequence || !tbs || tbs.tag !== TAG.sequence) throw new Error('not a certificate');
  const wrapper = children(der, tbs).find((d) => d.tag === TAG.extensions);
  const list = wrapper ? children(der, wrapper)[0] : undefined;
  if (!list) return { present: false, isCA: false };
  for (const ext of children(der, list)) {
    const [id, ...rest] = children(der, ext);
    if (!id || id.tag !== TAG.oid || !der.subarray(id.content, id.end).equals(BASIC_CONSTRAINTS_OID)) continue;
    const value = rest.find((d) => d.tag === TAG.octetString);
    if (!value) throw new Error('basicConstraints without a value');
    return { present: true, isCA: caFlag(der, readDerElement(der, value.content, value.end)) };
  }
  return { present: false, isCA: false };
}

/** BasicConstraints ::= SEQUENCE { cA BOOLEAN DEFAULT FALSE, pathLenConstraint INTEGER OPTIONAL } */
function caFlag(der: Buffer, seq: DerElement): boolean {
  if (seq.tag !== TAG.sequence) throw new Error('basicConstraints is not a sequence');
  const first = children(der, seq)[0];
  return first?.tag === TAG.boolean && first.end - first.content === 1 && der[first.content] !== 0;
}

/** Why one CERTIFICATE block is not a usable trust anchor, or undefined when it is. */
function anchorProblem(der: Buffer, i: number): string | undefined {
  let constraints: BasicConstraints;
  try {
    new X509Certificate(der);
    constraints = basicConstraintsOf(der);
  } catch {
    return `entry ${i} does not parse as X.509`;
  }
  if (!constraints.isCA) return `entry ${i} does not have the CA bit set`;
  if (!constraints.present) return `entry ${i} has invalid basic constraints`;
  return undefined;
}

/**
 * Problems of a trust bundle text, each a message for an Invalid error on the field, or `tooLong` when the
 * text is over the size limit (then nothing else is checked). A malformed block suppresses the "none" and
 * duplicate reports, which would only repeat it.
 */
export function trustBundleProblems(text: string): { tooLong: boolean; problems: string[] } {
  if (Buffer.byteLength(text) > MAX_TRUST_BUNDLE_SIZE) return { tooLong: true, problems: [] };
  const problems: string[] = [];
  const seen = new Map<string, number[]>();
  pemBlocks(text).forEach((b, i) => {
    const problem =
      b.type !== 'CERTIFICATE' ? `entry ${i} has bad block type: ${b.type}` : b.headers ? `entry ${i} has PEM block headers` : anchorProblem(b.der, i);
    if (problem) {
      problems.push(problem);
      return;
    }
    const key = b.der.toString('base64');
    seen.set(key, [...(seen.get(key) ?? []), i]);
  });
  if (problems.length > 0) return { tooLong: false, problems };
  if (seen.size === 0) problems.push('at least one trust anchor must be provided');
  // Go prints the index list as `[0 2]`; listed in order of first appearance so messages are stable.
  for (const indices of seen.values()) if (indices.length > 1) problems.push(`duplicate trust anchor (indices [${indices.join(' ')}])`);
  return { tooLong: false, problems };
}
