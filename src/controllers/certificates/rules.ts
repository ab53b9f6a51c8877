/**
 * What the built-in signers accept and what the approver recognizes, as pure functions of a request's
 * parsed facts and `spec.usages` (the reference's rules for node client, node serving and API client
 * certificates), plus the validity window and key usages of an issued certificate.
 */
import { KUBE_APISERVER_CLIENT_KUBELET_SIGNER, KUBE_APISERVER_CLIENT_SIGNER, KUBELET_SERVING_SIGNER } from '../../api/naming.js';

/** The parts of a PKCS#10 request the rules look at. */
export interface RequestFacts {
  commonName: string;
  organizations: string[];
  dnsNames: string[];
  ipAddresses: string[];
  emailAddresses: string[];
  uris: string[];
}

export const NODE_USER_PREFIX = 'system:node:';
export const NODES_GROUP = 'system:nodes';

const sameSet = (a: readonly string[], b: readonly string[]) => {
  const s = new Set(a);
  return s.size === new Set(b).size && b.every((x) => s.has(x));
};

/** Why a request is not a node client certificate request; undefined when it is one. */
export function kubeletClientProblem(r: RequestFacts, usages: readonly string[]): string | undefined {
  if (r.organizations.length !== 1 || r.organizations[0] !== NODES_GROUP) return `subject organization is not ${NODES_GROUP}`;
  if (r.dnsNames.length > 0) return 'DNS subjectAltNames are not allowed';
  if (r.emailAddresses.length > 0) return 'Email subjectAltNames are not allowed';
  if (r.ipAddresses.length > 0) return 'IP subjectAltNames are not allowed';
  if (r.uris.length > 0) return 'URI subjectAltNames are not allowed';
  if (!r.commonName.startsWith(NODE_USER_PREFIX)) return `subject common name does not begin with ${NODE_USER_PREFIX}`;
  if (!sameSet(usages, ['digital signature', 'key encipherment', 'client auth']) && !sameSet(usages, ['digital signature', 'client auth'])) {
    return 'usages did not match [client auth digital signature key encipherment]';
  }
  return undefined;
}

/** Why a request is not a node serving certificate request; undefined when it is one. */
export function kubeletServingProblem(r: RequestFacts, usages: readonly string[]): string | undefined {
  if (r.organizations.length !== 1 || r.organizations[0] !== NODES_GROUP) return `subject organization is not ${NODES_GROUP}`;
  if (r.dnsNames.length === 0 && r.ipAddresses.length === 0) return 'DNS or IP subjectAltName is required';
  if (r.emailAddresses.length > 0) return 'Email subjectAltNames are not allowed';
  if (r.uris.length > 0) return 'URI subjectAltNames are not allowed';
  if (!sameSet(usages, ['digital signature', 'key encipherment', 'server auth']) && !sameSet(usages, ['digital signature', 'server auth'])) {
    return 'usages did not match [digital signature key encipherment server auth]';
  }
  if (!r.commonName.startsWith(NODE_USER_PREFIX)) return `subject common name does not begin with ${NODE_USER_PREFIX}`;
  return undefined;
}

/** API client certificates: `client auth` required; `digital signature` and `key encipherment` allowed. */
export function apiClientUsagesProblem(usages: readonly string[]): string | undefined {
  for (const u of usages) {
    if (u !== 'digital signature' && u !== 'key encipherment' && u !== 'client auth') return `invalid usage for client certificate: ${u}`;
  }
  return usages.includes('client auth') ? undefined : 'missing required usage for client certificate: client auth';
}

/** The signers the signing controller serves, each with its acceptance rule. */
export const BUILT_IN_SIGNERS: ReadonlyMap<string, (r: RequestFacts, usages: readonly string[]) => string | undefined> = new Map([
  [KUBE_APISERVER_CLIENT_SIGNER, (_r: RequestFacts, u: readonly string[]) => apiClientUsagesProblem(u)],
  [KUBE_APISERVER_CLIENT_KUBELET_SIGNER, kubeletClientProblem],
  [KUBELET_SERVING_SIGNER, kubeletServingProblem],
]);

/**
 * The approver's recognizers, in the order tried: a node asking for its own client certificate
 * (`selfnodeclient`), then anyone asking for a node client certificate (`nodeclient`). Returns the
 * subresources whose `create` permission would approve the request.
 */
export function approvalPermissions(signerName: string, username: string, r: RequestFacts, usages: readonly string[]): string[] {
  if (signerName !== KUBE_APISERVER_CLIENT_KUBELET_SIGNER || kubeletClientProblem(r, usages) !== undefined) return [];
  return username === r.commonName ? ['selfnodeclient', 'nodeclient'] : ['nodeclient'];
}

/** Key usage bits in X.509 order (digitalSignature = 0x80 of the first byte, as @peculiar/x509 numbers them). */
export const KEY_USAGE_BITS: Readonly<Record<string, number>> = {
  signing: 1,
  'digital signature': 1,
  'content commitment': 2,
  'key encipherment': 4,
  'key agreement': 16,
  'data encipherment': 8,
  'cert sign': 32,
  'crl sign': 64,
  'encipher only': 128,
  'decipher only': 256,
};

/** Extended key usage OIDs. */
export const EXT_KEY_USAGE_OIDS: Readonly<Record<string, string>> = {
  any: '2.5.29.37.0',
  'server auth': '1.3.6.1.5.5.7.3.1',
  'client auth': '1.3.6.1.5.5.7.3.2',
  'code signing': '1.3.6.1.5.5.7.3.3',
  'email protection': '1.3.6.1.5.5.7.3.4',
  's/mime': '1.3.6.1.5.5.7.3.4',
  'ipsec end system': '1.3.6.1.5.5.7.3.5',
  'ipsec tunnel': '1.3.6.1.5.5.7.3.6',
  'ipsec user': '1.3.6.1.5.5.7.3.7',
  timestamping: '1.3.6.1.5.5.7.3.8',
  'ocsp signing': '1.3.6.1.5.5.7.3.9',
  'microsoft sgc': '1.3.6.1.4.1.311.10.3.3',
  'netscape sgc': '2.16.840.1.113730.4.1',
};

/** The key usage flags and extended key usage OIDs of `usages`; throws on a usage it does not know. */
export function mapUsages(usages: readonly string[]): { keyUsage: number; extKeyUsages: string[] } {
  let keyUsage = 0;
  const extKeyUsages: string[] = [];
  for (const u of usages) {
    const bit = KEY_USAGE_BITS[u];
    const oid = EXT_KEY_USAGE_OIDS[u];
    if (bit !== undefined) keyUsage |= bit;
    else if (oid !== undefined) {
      if (!extKeyUsages.includes(oid)) extKeyUsages.push(oid);
    } else throw new Error(`unrecognized usage: ${u}`);
  }
  return { keyUsage, extKeyUsages };
}

const MINUTE = 60_000;
/** Backdating covers clock skew; short certificates keep their full length after now instead. */
const BACKDATE_MS = 5 * MINUTE;
const SHORT_MS = 8 * 60 * MINUTE;
/** Below this a requested duration is raised (twice the backdate). */
const MIN_DURATION_MS = 10 * MINUTE;

/** The certificate's lifetime: the signer's duration, or the requested one when shorter (10 minutes at least). */
export function certificateDurationMs(signerDurationMs: number, expirationSeconds: unknown): number {
  if (typeof expirationSeconds !== 'number') return signerDurationMs;
  const requested = expirationSeconds * 1000;
  if (requested > signerDurationMs) return signerDurationMs;
  return Math.max(requested, MIN_DURATION_MS);
}

/** NotBefore / NotAfter of an issued certificate, never past the signing certificate's own NotAfter. */
export function validityWindow(now: number, durationMs: number, caNotAfter: number): { notBefore: number; notAfter: number } {
  const notBefore = now - BACKDATE_MS;
  let notAfter = durationMs < SHORT_MS ? now + durationMs : notBefore + durationMs;
  if (notAfter >= caNotAfter) notAfter = caNotAfter;
  if (notBefore >= caNotAfter || now >= caNotAfter) throw new Error('the signing certificate has expired');
  return { notBefore, notAfter };
}
