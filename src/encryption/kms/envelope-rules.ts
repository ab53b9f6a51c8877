/**
 * The reference's checks on a KMS v2 envelope and on what a plugin returns (key id, encrypted DEK source,
 * annotations), and the DEK cache key. Pure functions: the provider calls them on every read and write.
 */
import { DEK_SOURCE_AES_GCM_KEY, DEK_SOURCE_HKDF_SHA256_XNONCE_AES_GCM_SEED, type Annotations, type EncryptedObject } from './messages.js';

/** Size limits of the reference. */
export const KEY_ID_MAX_SIZE = 1024;
export const ENCRYPTED_DEK_SOURCE_MAX_SIZE = 1024;
export const ANNOTATIONS_MAX_SIZE = 32 * 1024;

const utf8 = new TextEncoder();
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Returns why a key id is unusable, or undefined. */
export function keyIdProblem(keyID: string): string | undefined {
  if (keyID.length === 0) return 'the key ID is empty';
  const size = utf8.encode(keyID).length;
  if (size > KEY_ID_MAX_SIZE) return `the key ID is ${size} bytes, more than the limit of ${KEY_ID_MAX_SIZE}`;
  return undefined;
}

/** An annotation key must be a fully qualified domain name: two or more DNS labels, 253 characters at most. */
export function annotationKeyProblem(key: string): string | undefined {
  const name = key.endsWith('.') ? key.slice(0, -1) : key;
  if (name.length === 0) return 'an annotation key is empty';
  if (name.length > 253) return `annotation key "${key}" is longer than 253 characters`;
  const labels = name.split('.');
  if (labels.length < 2) return `annotation key "${key}" should be a domain with at least two dot-separated segments`;
  const bad = labels.find((l) => l.length > 63 || !DNS_LABEL.test(l));
  if (bad !== undefined) return `annotation key "${key}" has segment "${bad}", which is not a lowercase DNS label`;
  return undefined;
}

export function annotationsProblem(annotations: Annotations): string | undefined {
  let total = 0;
  for (const [k, v] of Object.entries(annotations)) {
    const problem = annotationKeyProblem(k);
    if (problem) return problem;
    total += utf8.encode(k).length + v.length;
  }
  if (total > ANNOTATIONS_MAX_SIZE) return `the annotations are ${total} bytes in total, more than the limit of ${ANNOTATIONS_MAX_SIZE}`;
  return undefined;
}

export function encryptedDekSourceProblem(source: Uint8Array): string | undefined {
  if (source.length === 0) return 'the encrypted DEK source is empty';
  if (source.length > ENCRYPTED_DEK_SOURCE_MAX_SIZE) return `the encrypted DEK source is ${source.length} bytes, more than the limit of ${ENCRYPTED_DEK_SOURCE_MAX_SIZE}`;
  return undefined;
}

/** Every rule an envelope (stored, or about to be) must pass; `requireData` is false for a template without data yet. */
export function encryptedObjectProblem(o: EncryptedObject, requireData = true): string | undefined {
  if (o.encryptedDEKSourceType !== DEK_SOURCE_AES_GCM_KEY && o.encryptedDEKSourceType !== DEK_SOURCE_HKDF_SHA256_XNONCE_AES_GCM_SEED) {
    return `unknown encryptedDEKSourceType ${o.encryptedDEKSourceType}`;
  }
  if (requireData && o.encryptedData.length === 0) return 'the encrypted data is empty';
  return encryptedDekSourceProblem(o.encryptedDEKSource) ?? keyIdProblem(o.keyID) ?? annotationsProblem(o.annotations);
}

/**
 * Identifies one DEK or seed: everything the plugin needs to decrypt it. Length-prefixed fields so that no
 * two different envelopes share a key; annotations in key order.
 */
export function dekCacheKey(o: Pick<EncryptedObject, 'encryptedDEKSourceType' | 'encryptedDEKSource' | 'keyID' | 'annotations'>): string {
  const keys = Object.keys(o.annotations).sort();
  const parts: Uint8Array[] = [u32(o.encryptedDEKSourceType), ...lengthPrefixed(o.encryptedDEKSource), ...lengthPrefixed(utf8.encode(o.keyID))];
  if (keys.length > 0) {
    parts.push(u32(keys.length));
    for (const k of keys) parts.push(...lengthPrefixed(utf8.encode(k)), ...lengthPrefixed(o.annotations[k] as Uint8Array));
  }
  return Buffer.concat(parts).toString('latin1');
}

function u32(n: number): Uint8Array {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

function lengthPrefixed(b: Uint8Array): Uint8Array[] {
  return [u32(b.length), b];
}
