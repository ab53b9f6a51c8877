/**
 * The protobuf media type of spec 4.4 for built-in kinds: objects are wrapped in the envelope (magic bytes
 * 0x6b 0x38 0x73 0x00, then `Unknown` {typeMeta(1), raw(2), contentEncoding(3), contentType(4)}) and `raw`
 * holds the object's message in the reference's field numbers (see descriptors.ts). Fields a descriptor does not
 * name are dropped on encode; custom resources have no protobuf form (406, spec 4.4).
 */
import { META_GROUP, PROTOBUF_MEDIA_TYPE, REFERENCE_META_GROUP_ALIAS } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { badRequest, isStatusError, notAcceptable } from '../../errors/index.js';
import { descriptorFor, DESCRIPTORS } from './descriptors.js';
import { ProtoCodec } from './codec.js';
import { ProtoReader, ProtoWriter } from './wire.js';

export { descriptorFor, protobufKinds } from './descriptors.js';

/** The four bytes every protobuf body starts with. */
export const PROTOBUF_MAGIC: Readonly<Buffer> = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

const WT_LEN = 2;
const codec = new ProtoCodec(DESCRIPTORS);

export function supportsProtobuf(apiVersion: string, kind: string): boolean {
  return messageFor(apiVersion, kind) !== undefined;
}

/**
 * The metadata-only forms (`as=PartialObjectMetadata[List]`) in the meta group, under both spellings of it.
 * They are not served kinds, so the definitions behind descriptorFor do not name them; v1beta1 shares v1's
 * object message, as in the reference.
 */
const META_MESSAGES = new Map<string, string>(
  [META_GROUP, REFERENCE_META_GROUP_ALIAS].flatMap((g) => [
    [`${g}/v1|PartialObjectMetadata`, 'apimachinery.pkg.apis.meta.v1.PartialObjectMetadata'],
    [`${g}/v1|PartialObjectMetadataList`, 'apimachinery.pkg.apis.meta.v1.PartialObjectMetadataList'],
    [`${g}/v1beta1|PartialObjectMetadata`, 'apimachinery.pkg.apis.meta.v1.PartialObjectMetadata'],
    [`${g}/v1beta1|PartialObjectMetadataList`, 'apimachinery.pkg.apis.meta.v1beta1.PartialObjectMetadataList'],
  ]),
);

function messageFor(apiVersion: string, kind: string): string | undefined {
  return descriptorFor(apiVersion, kind) ?? META_MESSAGES.get(`${apiVersion}|${kind}`);
}

/** The envelope-wrapped protobuf form of a built-in object, list or Status; 406 for any other kind. */
export function encodeProtobuf(obj: ApiObject): Buffer {
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  const name = messageFor(apiVersion, kind);
  if (!name) {
    throw notAcceptable(`the kind "${kind}" in version "${apiVersion}" has no ${PROTOBUF_MEDIA_TYPE} form; ask for application/json`);
  }
  return wrap(apiVersion, kind, codec.encode(name, obj));
}

function wrap(apiVersion: string, kind: string, raw: Buffer): Buffer {
  const typeMeta = new ProtoWriter().tag(1, WT_LEN).string(apiVersion).tag(2, WT_LEN).string(kind).finish();
  // contentEncoding and contentType are written empty (none, protobuf), as the reference writes them.
  return new ProtoWriter()
    .raw(PROTOBUF_MAGIC)
    .tag(1, WT_LEN)
    .bytes(typeMeta)
    .tag(2, WT_LEN)
    .bytes(raw)
    .tag(3, WT_LEN)
    .string('')
    .tag(4, WT_LEN)
    .string('')
    .finish();
}

/** A request body in the protobuf media type as a plain object; malformed input is a 400, never a crash. */
export function decodeProtobuf(buf: Buffer): ApiObject {
  return guard(() => {
    const { apiVersion, kind, raw } = unwrap(buf);
    const name = messageFor(apiVersion, kind);
    if (!name) throw badRequest(`protobuf: no ${PROTOBUF_MEDIA_TYPE} schema for kind "${kind}" in version "${apiVersion}"`);
    const obj: ApiObject = { apiVersion, kind, ...codec.decode(name, raw) };
    if (kind.endsWith('List') && DESCRIPTORS[name]?.items?.type === 'message') {
      // Items carry no type on the wire; the JSON lists of this server name it on every item. (Other
      // messages named *List, such as APIGroupList, have no items.)
      const itemKind = kind.slice(0, -'List'.length);
      const items = Array.isArray(obj.items) ? (obj.items as Record<string, unknown>[]) : [];
      obj.items = items.map((item) => ({ apiVersion, kind: itemKind, ...item }));
    }
    return obj;
  });
}

function unwrap(buf: Uint8Array): { apiVersion: string; kind: string; raw: Uint8Array } {
  if (!(buf instanceof Uint8Array) || buf.length < 4 || !PROTOBUF_MAGIC.equals(buf.subarray(0, 4))) {
    throw badRequest('protobuf: the body does not start with the protobuf envelope prefix 6b 38 73 00');
  }
  const r = new ProtoReader(buf.subarray(4));
  let apiVersion = '';
  let kind = '';
  let raw: Uint8Array = new Uint8Array(0);
  let contentEncoding = '';
  let contentType = '';
  while (!r.eof()) {
    const { no, wireType } = r.tag();
    if (no >= 1 && no <= 4 && wireType !== WT_LEN) throw badRequest(`protobuf: envelope field ${no} has wire type ${wireType}, expected 2`);
    if (no === 1) {
      const tm = new ProtoReader(r.bytes());
      while (!tm.eof()) {
        const t = tm.tag();
        if (t.wireType !== WT_LEN) tm.skip(t.wireType);
        else if (t.no === 1) apiVersion = tm.string();
        else if (t.no === 2) kind = tm.string();
        else tm.skip(t.wireType);
      }
    } else if (no === 2) raw = r.bytes();
    else if (no === 3) contentEncoding = r.string();
    else if (no === 4) contentType = r.string();
    else r.skip(wireType);
  }
  if (contentEncoding !== '') throw badRequest(`protobuf: content encoding "${contentEncoding}" of the envelope is not supported`);
  if (contentType !== '' && contentType !== PROTOBUF_MEDIA_TYPE) {
    throw badRequest(`protobuf: content type "${contentType}" of the envelope is not supported`);
  }
  if (kind === '') throw badRequest('protobuf: the envelope names no kind');
  return { apiVersion, kind, raw };
}

/**
 * One watch event as the reference streams it in the protobuf media type: a 4-byte big-endian length, then a
 * `WatchEvent` {type(1), object(2): RawExtension{raw(1)}} whose `raw` is the envelope-wrapped object. Like the
 * reference's stream serializer, the WatchEvent itself carries no envelope: its clients decode frames raw.
 */
export function encodeWatchEventProtobuf(type: string, obj: ApiObject): Buffer {
  const object = new ProtoWriter().tag(1, WT_LEN).bytes(encodeProtobuf(obj)).finish();
  const event = new ProtoWriter().tag(1, WT_LEN).string(type).tag(2, WT_LEN).bytes(object).finish();
  const frame = Buffer.allocUnsafe(4 + event.length);
  frame.writeUInt32BE(event.length, 0);
  event.copy(frame, 4);
  return frame;
}

/** The inverse of encodeWatchEventProtobuf for one complete frame (for clients and tests). */
export function decodeWatchEventProtobuf(frame: Buffer): { type: string; object: ApiObject } {
  return guard(() => {
    if (frame.length < 4 || frame.readUInt32BE(0) !== frame.length - 4) {
      throw badRequest('protobuf: a watch frame is a 4-byte big-endian length followed by that many bytes');
    }
    const r = new ProtoReader(frame.subarray(4));
    let type = '';
    let raw: Uint8Array | undefined;
    while (!r.eof()) {
      const { no, wireType } = r.tag();
      if (no === 1 && wireType === WT_LEN) type = r.string();
      else if (no === 2 && wireType === WT_LEN) {
        const ext = new ProtoReader(r.bytes());
        while (!ext.eof()) {
          const t = ext.tag();
          if (t.no === 1 && t.wireType === WT_LEN) raw = ext.bytes();
          else ext.skip(t.wireType);
        }
      } else r.skip(wireType);
    }
    if (raw === undefined) throw badRequest('protobuf: the watch event has no object');
    return { type, object: decodeProtobuf(Buffer.from(raw)) };
  });
}

/** Any failure while reading untrusted bytes becomes a 400 naming the problem. */
function guard<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (isStatusError(e)) throw e;
    throw badRequest(`protobuf: malformed body: ${(e as Error).message}`);
  }
}
