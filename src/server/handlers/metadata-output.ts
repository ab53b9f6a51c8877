/**
 * Metadata-only responses, as the reference serves them: `Accept: application/json;as=PartialObjectMetadata;
 * g=<meta group>;v=v1` (or v1beta1, or the protobuf media type) answers a get or a watch event with the
 * object reduced to its metadata, and `as=PartialObjectMetadataList` a list. Controllers that only need
 * owners, finalizers and uids (the garbage collector) read far fewer bytes this way.
 */
import { META_GROUP, PROTOBUF_MEDIA_TYPE, REFERENCE_META_GROUP_ALIAS } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { encodeWatchEventProtobuf, jsonMemberSpan, negotiate, type Representation } from '../../encoding/index.js';
import { notAcceptable } from '../../errors/index.js';
import type { WatchView } from '../../registry/index.js';
import { TABLE_OFFERS } from './table-output.js';

export const PARTIAL_OBJECT = 'PartialObjectMetadata';
export const PARTIAL_LIST = 'PartialObjectMetadataList';

/** The `as=` forms offered to negotiate(), in the canonical meta group and the reference's spelling. */
export const METADATA_OFFERS = [META_GROUP, REFERENCE_META_GROUP_ALIAS].flatMap((group) =>
  ['v1', 'v1beta1'].flatMap((version) => [PARTIAL_OBJECT, PARTIAL_LIST].map((kind) => ({ kind, group, version }))),
);

export function isMetadataRep(rep: Representation | undefined): boolean {
  return rep?.as?.kind === PARTIAL_OBJECT || rep?.as?.kind === PARTIAL_LIST;
}

/** `apiVersion` of the answer: the group and version the client asked for. */
const apiVersionOf = (rep: Representation): string => `${rep.as?.group}/${rep.as?.version}`;

/** A single object (get, watch) must be asked for as PartialObjectMetadata, a list as the List (406 otherwise). */
export function checkMetadataTarget(rep: Representation, list: boolean): void {
  const want = list ? PARTIAL_LIST : PARTIAL_OBJECT;
  if (rep.as?.kind !== want) {
    throw notAcceptable(
      list
        ? `a list can be rendered as ${PARTIAL_LIST}, not as ${rep.as?.kind}`
        : `a single object (or a watch event) can be rendered as ${PARTIAL_OBJECT}, not as ${rep.as?.kind}`,
    );
  }
}

/** Pure: the object's metadata form. */
export function partialObject(obj: ApiObject, apiVersion: string): ApiObject {
  return { kind: PARTIAL_OBJECT, apiVersion, metadata: (obj.metadata ?? {}) as ApiObject['metadata'] };
}

export function partialObjectFor(rep: Representation, obj: ApiObject): ApiObject {
  checkMetadataTarget(rep, false);
  return partialObject(obj, apiVersionOf(rep));
}

/** Pure: a list's metadata form; the list metadata (resourceVersion, continue, remainingItemCount) is kept. */
export function partialListFor(rep: Representation, items: readonly ApiObject[], listMeta: object): ApiObject {
  checkMetadataTarget(rep, true);
  const apiVersion = apiVersionOf(rep);
  return { kind: PARTIAL_LIST, apiVersion, metadata: listMeta as ApiObject['metadata'], items: items.map((o) => partialObject(o, apiVersion)) };
}

const METADATA_KEY = Buffer.from('metadata');

/**
 * Pure: the bytes of the `metadata` member of an object's JSON (its resourceVersion already spliced in by
 * the reader), cut out without parsing the rest; undefined when the text is not the plain shape the scanner
 * reads or metadata is not an object, and the caller parses instead.
 */
export function metadataBytesOf(objectJson: Buffer): Buffer | undefined {
  const span = jsonMemberSpan(objectJson, METADATA_KEY);
  return span && objectJson[span[0]] === 0x7b ? objectJson.subarray(span[0], span[1]) : undefined;
}

/** Pure: the metadata form of an object given as JSON (metadata parsed alone when it can be cut out). */
export function partialObjectOfJson(objectJson: Buffer, apiVersion: string): ApiObject {
  const meta = metadataBytesOf(objectJson);
  if (meta) return { kind: PARTIAL_OBJECT, apiVersion, metadata: JSON.parse(meta.toString('utf8')) as ApiObject['metadata'] };
  return partialObject(JSON.parse(objectJson.toString('utf8')) as ApiObject, apiVersion);
}

/**
 * Pure: one JSON watch line carrying the metadata form of an object given as JSON: the metadata bytes are
 * copied between a fixed head and tail (the same text JSON.stringify makes of the parsed form).
 */
export function metadataEventLine(kind: string, objectJson: Buffer, apiVersion: string): Buffer {
  const meta = metadataBytesOf(objectJson);
  if (!meta) return Buffer.from(`${JSON.stringify({ type: kind, object: partialObject(JSON.parse(objectJson.toString('utf8')) as ApiObject, apiVersion) })}\n`);
  const id = `${kind}|${apiVersion}`;
  let head = eventHeads.get(id);
  if (!head) {
    head = Buffer.from(`{"type":${JSON.stringify(kind)},"object":{"kind":"${PARTIAL_OBJECT}","apiVersion":${JSON.stringify(apiVersion)},"metadata":`);
    eventHeads.set(id, head);
  }
  return Buffer.concat([head, meta, EVENT_TAIL], head.length + meta.length + EVENT_TAIL.length);
}

/** Heads per event type and apiVersion: a handful (three types times the offered group/versions). */
const eventHeads = new Map<string, Buffer>();
const EVENT_TAIL = Buffer.from('}}\n');

/** Lines the views below rendered; anything else in a metadata watch (bookmarks, errors) is rendered per line. */
const rendered = new WeakSet<Buffer>();
const views = new Map<string, WatchView>();

/**
 * The watch cache's view for a metadata watch: each event's metadata form is encoded once per media type,
 * group and version and the bytes are shared by every watcher asking for the same (registry watch-stream).
 */
export function metadataWatchView(rep: Representation, mediaType: string): WatchView {
  checkMetadataTarget(rep, false);
  const apiVersion = apiVersionOf(rep);
  const id = `meta|${mediaType}|${apiVersion}`;
  let view = views.get(id);
  if (!view) {
    const protobuf = mediaType === PROTOBUF_MEDIA_TYPE;
    view = {
      id,
      render(kind: string, objectJson: Buffer): Buffer {
        const bytes = protobuf ? encodeWatchEventProtobuf(kind, partialObjectOfJson(objectJson, apiVersion)) : metadataEventLine(kind, objectJson, apiVersion);
        rendered.add(bytes);
        return bytes;
      },
    };
    views.set(id, view);
  }
  return view;
}

/**
 * One line of a metadata watch as it goes out: rendered events as they are; a bookmark's object reduced to
 * metadata; an ERROR's Status as it is (the reference converts only objects). In protobuf, the JSON lines
 * become frames.
 */
export function metadataWatchBytes(line: Buffer, rep: Representation, mediaType: string): Buffer {
  if (rendered.has(line)) return line;
  const e = JSON.parse(line.toString('utf8')) as { type: string; object: ApiObject };
  if (e.type !== 'ERROR') e.object = partialObject(e.object, apiVersionOf(rep));
  return mediaType === PROTOBUF_MEDIA_TYPE ? encodeWatchEventProtobuf(e.type, e.object) : Buffer.from(`${JSON.stringify(e)}\n`);
}

const READ_ALTERNATIVES = [...TABLE_OFFERS, ...METADATA_OFFERS];

/** Get, list and watch of stored resources: tables and metadata-only forms, else the offered media types. */
export function negotiateRead(accept: string | undefined, offers: readonly string[]): Representation {
  return negotiate(accept, offers, READ_ALTERNATIVES);
}
