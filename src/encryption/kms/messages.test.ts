import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import protobuf from 'protobufjs';
import * as m from './messages.js';
import { WireError } from './wire.js';

// The reference's message layouts, written out independently of messages.ts: an independent protobuf
// implementation must read what our codecs write and vice versa.
const REFERENCE_LAYOUT = `
syntax = "proto3";
package check;
message VersionRequest { string version = 1; }
message VersionResponse { string version = 1; string runtime_name = 2; string runtime_version = 3; }
message V1EncryptRequest { string version = 1; bytes plain = 2; }
message V1EncryptResponse { bytes cipher = 1; }
message V1DecryptRequest { string version = 1; bytes cipher = 2; }
message V1DecryptResponse { bytes plain = 1; }
message StatusResponse { string version = 1; string healthz = 2; string key_id = 3; }
message V2EncryptRequest { bytes plaintext = 1; string uid = 2; }
message V2EncryptResponse { bytes ciphertext = 1; string key_id = 2; map<string, bytes> annotations = 3; }
message V2DecryptRequest { bytes ciphertext = 1; string uid = 2; string key_id = 3; map<string, bytes> annotations = 4; }
message V2DecryptResponse { bytes plaintext = 1; }
enum EncryptedDEKSourceType { AES_GCM_KEY = 0; HKDF_SHA256_XNONCE_AES_GCM_SEED = 1; }
message EncryptedObject {
  bytes encryptedData = 1; string keyID = 2; bytes encryptedDEKSource = 3;
  map<string, bytes> annotations = 4; EncryptedDEKSourceType encryptedDEKSourceType = 5;
}
`;
const root = protobuf.parse(REFERENCE_LAYOUT, { keepCase: true }).root;
const b = (s: string) => new Uint8Array(Buffer.from(s));

interface Case {
  name: string;
  codec: m.MessageCodec<any>;
  /** The same message in the independent layout's field names. */
  reference: string;
  ours: Record<string, unknown>;
  theirs: Record<string, unknown>;
}

const CASES: Case[] = [
  { name: 'v1 VersionRequest', codec: m.v1VersionRequest, reference: 'VersionRequest', ours: { version: 'v1beta1' }, theirs: { version: 'v1beta1' } },
  {
    name: 'v1 VersionResponse',
    codec: m.v1VersionResponse,
    reference: 'VersionResponse',
    ours: { version: 'v1beta1', runtimeName: 'r', runtimeVersion: '1.0' },
    theirs: { version: 'v1beta1', runtime_name: 'r', runtime_version: '1.0' },
  },
  { name: 'v1 EncryptRequest', codec: m.v1EncryptRequest, reference: 'V1EncryptRequest', ours: { version: 'v1beta1', plain: b('dek') }, theirs: { version: 'v1beta1', plain: b('dek') } },
  { name: 'v1 EncryptResponse', codec: m.v1EncryptResponse, reference: 'V1EncryptResponse', ours: { cipher: b('xyz') }, theirs: { cipher: b('xyz') } },
  { name: 'v1 DecryptRequest', codec: m.v1DecryptRequest, reference: 'V1DecryptRequest', ours: { version: 'v1beta1', cipher: b('c') }, theirs: { version: 'v1beta1', cipher: b('c') } },
  { name: 'v1 DecryptResponse', codec: m.v1DecryptResponse, reference: 'V1DecryptResponse', ours: { plain: b('p') }, theirs: { plain: b('p') } },
  { name: 'v2 StatusResponse', codec: m.v2StatusResponse, reference: 'StatusResponse', ours: { version: 'v2', healthz: 'ok', keyId: 'k1' }, theirs: { version: 'v2', healthz: 'ok', key_id: 'k1' } },
  { name: 'v2 EncryptRequest', codec: m.v2EncryptRequest, reference: 'V2EncryptRequest', ours: { plaintext: b('seed'), uid: 'u-1' }, theirs: { plaintext: b('seed'), uid: 'u-1' } },
  {
    name: 'v2 EncryptResponse',
    codec: m.v2EncryptResponse,
    reference: 'V2EncryptResponse',
    ours: { ciphertext: b('c'), keyId: 'k', annotations: { 'a.example.com': b('1'), 'b.example.com': b('22') } },
    theirs: { ciphertext: b('c'), key_id: 'k', annotations: { 'a.example.com': b('1'), 'b.example.com': b('22') } },
  },
  {
    name: 'v2 DecryptRequest',
    codec: m.v2DecryptRequest,
    reference: 'V2DecryptRequest',
    ours: { ciphertext: b('c'), uid: 'u', keyId: 'k', annotations: { 'x.y': b('v') } },
    theirs: { ciphertext: b('c'), uid: 'u', key_id: 'k', annotations: { 'x.y': b('v') } },
  },
  { name: 'v2 DecryptResponse', codec: m.v2DecryptResponse, reference: 'V2DecryptResponse', ours: { plaintext: b('p') }, theirs: { plaintext: b('p') } },
  {
    name: 'EncryptedObject',
    codec: m.encryptedObject,
    reference: 'EncryptedObject',
    ours: { encryptedData: b('data'), keyID: 'key-1', encryptedDEKSource: b('src'), annotations: { 'k.example.io': b('v') }, encryptedDEKSourceType: 1 },
    theirs: { encryptedData: b('data'), keyID: 'key-1', encryptedDEKSource: b('src'), annotations: { 'k.example.io': b('v') }, encryptedDEKSourceType: 1 },
  },
];

/** Buffers and Uint8Arrays compare as plain byte lists. */
function plain(v: unknown): unknown {
  if (v instanceof Uint8Array) return [...v];
  if (Array.isArray(v)) return v.map(plain);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

describe('reference behaviour: KMS messages use the reference field numbers', () => {
  for (const c of CASES) {
    it(`reference behaviour: ${c.name} is read by an independent protobuf implementation and reads its output`, () => {
      const type = root.lookupType(`check.${c.reference}`);
      const decodedByThem = type.toObject(type.decode(c.codec.encode(c.ours)), { defaults: true, bytes: Array as never });
      assert.deepEqual(plain(decodedByThem), plain(c.theirs));
      const decodedByUs = c.codec.decode(type.encode(type.fromObject(c.theirs)).finish());
      assert.deepEqual(plain(decodedByUs), plain(c.ours));
    });
  }

  it('reference behaviour: default values are left out and unknown fields are skipped', () => {
    assert.equal(m.v2StatusResponse.encode({ version: '', healthz: '', keyId: '' }).length, 0);
    // field 9 (varint 7) and field 10 (fixed64) before the known field 1
    const withUnknown = new Uint8Array([0x48, 0x07, 0x51, 1, 2, 3, 4, 5, 6, 7, 8, 0x0a, 0x02, 0x68, 0x69]);
    assert.deepEqual(plain(m.v2DecryptResponse.decode(withUnknown)), { plaintext: [0x68, 0x69] });
  });
});

describe('reference behaviour: malformed KMS messages are errors, never crashes', () => {
  const MALFORMED: [string, number[]][] = [
    ['truncated length-delimited field', [0x0a, 0x05, 0x01]],
    ['truncated varint', [0x28, 0x80]],
    ['field number zero', [0x02, 0x00]],
    ['group wire type', [0x0b]],
    ['string field given as varint', [0x10, 0x01]],
    ['bytes field given as varint', [0x08, 0x01]],
    ['enum field given as bytes', [0x2a, 0x00]],
    ['invalid UTF-8 in keyID', [0x12, 0x02, 0xc3, 0x28]],
    ['annotation entry truncated', [0x22, 0x03, 0x0a, 0x05, 0x61]],
  ];
  for (const [name, bytes] of MALFORMED) {
    it(`reference behaviour: EncryptedObject with ${name} throws a WireError naming the message`, () => {
      assert.throws(() => m.encryptedObject.decode(new Uint8Array(bytes)), (e: unknown) => e instanceof WireError && /malformed EncryptedObject/.test(e.message));
    });
  }
});
