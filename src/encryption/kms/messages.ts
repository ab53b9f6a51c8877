/**
 * The KMS messages with the field numbers of the reference's `.proto` files: the v1beta1 plugin API
 * (`v1beta1.KeyManagementService`), the v2 plugin API (`v2.KeyManagementService`), and the
 * `EncryptedObject` that KMS v2 stores. Each message is a plain object plus an encode and a decode.
 */
import { readFields, readStringBytesEntry, lenValue, stringValue, varintValue, WireError, WireWriter, type WireField } from './wire.js';

export type Annotations = Record<string, Uint8Array>;

/** Encoder and decoder of one message type; `decode` throws WireError on malformed bytes. */
export interface MessageCodec<T> {
  readonly name: string;
  encode(message: T): Uint8Array;
  decode(bytes: Uint8Array): T;
}

/** Builds a codec whose decoder starts from `empty()` and hands each field to `read`. */
function codec<T>(name: string, empty: () => T, write: (w: WireWriter, m: T) => void, read: (m: T, f: WireField) => void): MessageCodec<T> {
  return {
    name,
    encode(message) {
      const w = new WireWriter();
      write(w, message);
      return w.finish();
    },
    decode(bytes) {
      const m = empty();
      try {
        for (const f of readFields(bytes)) read(m, f);
      } catch (e) {
        if (e instanceof WireError) throw new WireError(`malformed ${name}: ${e.message}`);
        throw e;
      }
      return m;
    },
  };
}

const copy = (b: Uint8Array): Uint8Array => Uint8Array.prototype.slice.call(b);

// ---- v1beta1 plugin API ----

export interface V1VersionRequest { version: string }
export interface V1VersionResponse { version: string; runtimeName: string; runtimeVersion: string }
export interface V1EncryptRequest { version: string; plain: Uint8Array }
export interface V1EncryptResponse { cipher: Uint8Array }
export interface V1DecryptRequest { version: string; cipher: Uint8Array }
export interface V1DecryptResponse { plain: Uint8Array }

const empty = (): Uint8Array => new Uint8Array(0);

export const v1VersionRequest = codec<V1VersionRequest>('VersionRequest', () => ({ version: '' }), (w, m) => w.string(1, m.version), (m, f) => {
  if (f.field === 1) m.version = stringValue(f);
});
export const v1VersionResponse = codec<V1VersionResponse>(
  'VersionResponse',
  () => ({ version: '', runtimeName: '', runtimeVersion: '' }),
  (w, m) => w.string(1, m.version).string(2, m.runtimeName).string(3, m.runtimeVersion),
  (m, f) => {
    if (f.field === 1) m.version = stringValue(f);
    else if (f.field === 2) m.runtimeName = stringValue(f);
    else if (f.field === 3) m.runtimeVersion = stringValue(f);
  },
);
export const v1EncryptRequest = codec<V1EncryptRequest>('EncryptRequest', () => ({ version: '', plain: empty() }), (w, m) => w.string(1, m.version).bytes(2, m.plain), (m, f) => {
  if (f.field === 1) m.version = stringValue(f);
  else if (f.field === 2) m.plain = copy(lenValue(f));
});
export const v1EncryptResponse = codec<V1EncryptResponse>('EncryptResponse', () => ({ cipher: empty() }), (w, m) => w.bytes(1, m.cipher), (m, f) => {
  if (f.field === 1) m.cipher = copy(lenValue(f));
});
export const v1DecryptRequest = codec<V1DecryptRequest>('DecryptRequest', () => ({ version: '', cipher: empty() }), (w, m) => w.string(1, m.version).bytes(2, m.cipher), (m, f) => {
  if (f.field === 1) m.version = stringValue(f);
  else if (f.field === 2) m.cipher = copy(lenValue(f));
});
export const v1DecryptResponse = codec<V1DecryptResponse>('DecryptResponse', () => ({ plain: empty() }), (w, m) => w.bytes(1, m.plain), (m, f) => {
  if (f.field === 1) m.plain = copy(lenValue(f));
});

// ---- v2 plugin API ----

export type V2StatusRequest = Record<string, never>;
export interface V2StatusResponse { version: string; healthz: string; keyId: string }
export interface V2EncryptRequest { plaintext: Uint8Array; uid: string }
export interface V2EncryptResponse { ciphertext: Uint8Array; keyId: string; annotations: Annotations }
export interface V2DecryptRequest { ciphertext: Uint8Array; uid: string; keyId: string; annotations: Annotations }
export interface V2DecryptResponse { plaintext: Uint8Array }

export const v2StatusRequest = codec<V2StatusRequest>('StatusRequest', () => ({}), () => undefined, () => undefined);
export const v2StatusResponse = codec<V2StatusResponse>(
  'StatusResponse',
  () => ({ version: '', healthz: '', keyId: '' }),
  (w, m) => w.string(1, m.version).string(2, m.healthz).string(3, m.keyId),
  (m, f) => {
    if (f.field === 1) m.version = stringValue(f);
    else if (f.field === 2) m.healthz = stringValue(f);
    else if (f.field === 3) m.keyId = stringValue(f);
  },
);
export const v2EncryptRequest = codec<V2EncryptRequest>('EncryptRequest', () => ({ plaintext: empty(), uid: '' }), (w, m) => w.bytes(1, m.plaintext).string(2, m.uid), (m, f) => {
  if (f.field === 1) m.plaintext = copy(lenValue(f));
  else if (f.field === 2) m.uid = stringValue(f);
});
export const v2EncryptResponse = codec<V2EncryptResponse>(
  'EncryptResponse',
  () => ({ ciphertext: empty(), keyId: '', annotations: {} }),
  (w, m) => w.bytes(1, m.ciphertext).string(2, m.keyId).stringBytesMap(3, m.annotations),
  (m, f) => {
    if (f.field === 1) m.ciphertext = copy(lenValue(f));
    else if (f.field === 2) m.keyId = stringValue(f);
    else if (f.field === 3) readStringBytesEntry(f, m.annotations);
  },
);
export const v2DecryptRequest = codec<V2DecryptRequest>(
  'DecryptRequest',
  () => ({ ciphertext: empty(), uid: '', keyId: '', annotations: {} }),
  (w, m) => w.bytes(1, m.ciphertext).string(2, m.uid).string(3, m.keyId).stringBytesMap(4, m.annotations),
  (m, f) => {
    if (f.field === 1) m.ciphertext = copy(lenValue(f));
    else if (f.field === 2) m.uid = stringValue(f);
    else if (f.field === 3) m.keyId = stringValue(f);
    else if (f.field === 4) readStringBytesEntry(f, m.annotations);
  },
);
export const v2DecryptResponse = codec<V2DecryptResponse>('DecryptResponse', () => ({ plaintext: empty() }), (w, m) => w.bytes(1, m.plaintext), (m, f) => {
  if (f.field === 1) m.plaintext = copy(lenValue(f));
});

// ---- the stored KMS v2 envelope ----

/** `EncryptedDEKSourceType`: what the plugin encrypted, a plain AES-GCM key or an HKDF seed. */
export const DEK_SOURCE_AES_GCM_KEY = 0;
export const DEK_SOURCE_HKDF_SHA256_XNONCE_AES_GCM_SEED = 1;

export interface EncryptedObject {
  encryptedData: Uint8Array;
  keyID: string;
  encryptedDEKSource: Uint8Array;
  annotations: Annotations;
  encryptedDEKSourceType: number;
}

/** Decoded fields are views into the stored value (read path: nothing is kept after the read). */
export const encryptedObject = codec<EncryptedObject>(
  'EncryptedObject',
  () => ({ encryptedData: empty(), keyID: '', encryptedDEKSource: empty(), annotations: {}, encryptedDEKSourceType: 0 }),
  (w, m) => w.bytes(1, m.encryptedData).string(2, m.keyID).bytes(3, m.encryptedDEKSource).stringBytesMap(4, m.annotations).uint(5, m.encryptedDEKSourceType),
  (m, f) => {
    if (f.field === 1) m.encryptedData = lenValue(f);
    else if (f.field === 2) m.keyID = stringValue(f);
    else if (f.field === 3) m.encryptedDEKSource = lenValue(f);
    else if (f.field === 4) readStringBytesEntry(f, m.annotations);
    else if (f.field === 5) m.encryptedDEKSourceType = varintValue(f);
  },
);
