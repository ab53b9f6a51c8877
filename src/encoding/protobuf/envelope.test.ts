import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RBAC_GROUP } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { fieldError, invalid, isStatusError, notFound, tooManyRequests } from '../../errors/index.js';
import {
  decodeProtobuf,
  decodeWatchEventProtobuf,
  encodeProtobuf,
  encodeWatchEventProtobuf,
  PROTOBUF_MAGIC,
  supportsProtobuf,
} from './index.js';
import { ProtoWriter } from './wire.js';

const cm: ApiObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default', resourceVersion: '5' }, data: { k: 'v' } };

/** An envelope with the given fields, written by hand. */
function envelope(fields: { apiVersion?: string; kind?: string; raw?: Buffer; contentEncoding?: string; contentType?: string }): Buffer {
  const w = new ProtoWriter().raw(PROTOBUF_MAGIC);
  const tm = new ProtoWriter();
  if (fields.apiVersion !== undefined) tm.tag(1, 2).string(fields.apiVersion);
  if (fields.kind !== undefined) tm.tag(2, 2).string(fields.kind);
  w.tag(1, 2).bytes(tm.finish());
  if (fields.raw) w.tag(2, 2).bytes(fields.raw);
  if (fields.contentEncoding !== undefined) w.tag(3, 2).string(fields.contentEncoding);
  if (fields.contentType !== undefined) w.tag(4, 2).string(fields.contentType);
  return w.finish();
}

const badRequestFor = (buf: Buffer, message?: RegExp) =>
  assert.throws(
    () => decodeProtobuf(buf),
    (e: unknown) => isStatusError(e) && e.code === 400 && e.reason === 'BadRequest' && (!message || message.test(e.message)),
  );

describe('protobuf envelope, lists and Status (spec 4.4)', () => {
  it('spec 4.4: every body starts with the magic bytes 6b 38 73 00', () => {
    assert.deepEqual([...encodeProtobuf(cm).subarray(0, 4)], [0x6b, 0x38, 0x73, 0x00]);
  });

  it('spec 4.4: Status (failures with details and causes) round-trips as v1 Status', () => {
    const statuses = [
      invalid({ kind: 'Pod', name: 'p' }, [fieldError.required('spec.containers'), fieldError.invalid('metadata.name', 'A', 'bad')]).toStatus(),
      notFound({ resource: 'pods', name: 'p' }).toStatus(),
      tooManyRequests('slow down', 3).toStatus(),
      { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200, details: { name: 'p', kind: 'pods', uid: 'u-1' } },
    ];
    for (const s of statuses) assert.deepStrictEqual(decodeProtobuf(encodeProtobuf(s as unknown as ApiObject)), s);
  });

  it('spec 4.4: an empty list decodes with items: [] and its list metadata', () => {
    const list: ApiObject = { apiVersion: `${RBAC_GROUP}/v1`, kind: 'RoleList', metadata: { resourceVersion: '12' }, items: [] };
    assert.deepStrictEqual(decodeProtobuf(encodeProtobuf(list)), list);
  });

  it('spec 4.4: messages named *List without items (APIGroupList) decode without an items field', () => {
    const groups: ApiObject = { apiVersion: 'v1', kind: 'APIGroupList', groups: [{ name: 'apps', versions: [{ groupVersion: 'apps/v1', version: 'v1' }] }] };
    assert.deepStrictEqual(decodeProtobuf(encodeProtobuf(groups)), groups);
  });

  it('spec 4.4: kinds without a protobuf form are refused with 406 naming the kind', () => {
    for (const obj of [{ apiVersion: 'example.com/v1', kind: 'Widget' }, { apiVersion: 'v1', kind: 'Widget' }, { kind: 'Pod' }, {}]) {
      assert.throws(
        () => encodeProtobuf(obj as ApiObject),
        (e: unknown) => isStatusError(e) && e.code === 406 && e.reason === 'NotAcceptable' && e.message.includes(`"${obj.kind ?? ''}"`),
      );
    }
    assert.equal(supportsProtobuf('example.com/v1', 'Widget'), false);
    assert.equal(supportsProtobuf('v1', 'PodList'), true);
    assert.equal(supportsProtobuf('v1', 'Status'), true);
    assert.equal(supportsProtobuf(`${RBAC_GROUP}/v1`, 'ClusterRoleBinding'), true);
    assert.equal(supportsProtobuf('v1', 'toString'), false);
  });
});

describe('protobuf watch frames (spec 4.4)', () => {
  it('spec 4.4: a frame is a 4-byte big-endian length, then WatchEvent {type 1, object 2 {raw 1: enveloped object}}', () => {
    const frame = encodeWatchEventProtobuf('MODIFIED', cm);
    const inner = encodeProtobuf(cm);
    const object = new ProtoWriter().tag(1, 2).bytes(inner).finish();
    const event = new ProtoWriter().tag(1, 2).string('MODIFIED').tag(2, 2).bytes(object).finish();
    assert.equal(frame.readUInt32BE(0), event.length);
    assert.ok(frame.subarray(4).equals(event));
    assert.deepStrictEqual(decodeWatchEventProtobuf(frame), { type: 'MODIFIED', object: cm });
  });

  it('spec 4.4: BOOKMARK and ERROR events carry their object the same way', () => {
    const bookmark: ApiObject = { apiVersion: 'v1', kind: 'Pod', metadata: { resourceVersion: '77', annotations: { 'x/initial-events-end': 'true' } } };
    const error = notFound({ resource: 'pods', name: 'p' }).toStatus() as unknown as ApiObject;
    assert.deepStrictEqual(decodeWatchEventProtobuf(encodeWatchEventProtobuf('BOOKMARK', bookmark)), { type: 'BOOKMARK', object: bookmark });
    assert.deepStrictEqual(decodeWatchEventProtobuf(encodeWatchEventProtobuf('ERROR', error)), { type: 'ERROR', object: error });
  });

  it('spec 4.4: a watch frame whose length does not match is a 400', () => {
    const frame = encodeWatchEventProtobuf('ADDED', cm);
    assert.throws(() => decodeWatchEventProtobuf(frame.subarray(0, frame.length - 1)), { code: 400 });
    assert.throws(() => decodeWatchEventProtobuf(Buffer.from([0, 0])), { code: 400 });
  });
});

describe('protobuf bad input is a 400 (spec 4.4)', () => {
  const raw = encodeProtobuf(cm).subarray(4);

  it('spec 4.4: bodies without the magic prefix are refused', () => {
    badRequestFor(Buffer.alloc(0), /6b 38 73 00/);
    badRequestFor(Buffer.from('{"kind":"ConfigMap"}'), /6b 38 73 00/);
    badRequestFor(Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x01]), raw]), /6b 38 73 00/);
  });

  it('spec 4.4: truncated or malformed envelopes are refused', () => {
    const full = encodeProtobuf(cm);
    for (let n = 5; n < full.length - 4; n += 3) badRequestFor(full.subarray(0, n));
    badRequestFor(Buffer.concat([PROTOBUF_MAGIC, Buffer.from([0x0a])]), /end of data/);
    badRequestFor(Buffer.concat([PROTOBUF_MAGIC, Buffer.from([0x0a, 0x7f, 0x00])]), /past the end/);
    badRequestFor(Buffer.concat([PROTOBUF_MAGIC, Buffer.from([0x08, 0x01])]), /wire type/);
    badRequestFor(Buffer.concat([PROTOBUF_MAGIC, Buffer.from([0x0f])]), /wire type 7/);
  });

  it('spec 4.4: envelopes naming no kind, an unknown kind, a content encoding or another content type are refused', () => {
    const body = Buffer.from([0x0a, 0x03, 0x0a, 0x01, 0x61]);
    badRequestFor(envelope({ apiVersion: 'v1', raw: body }), /names no kind/);
    badRequestFor(envelope({ apiVersion: 'example.com/v1', kind: 'Widget', raw: body }), /"Widget"/);
    badRequestFor(envelope({ apiVersion: 'v1', kind: 'ConfigMap', raw: body, contentEncoding: 'gzip' }), /gzip/);
    badRequestFor(envelope({ apiVersion: 'v1', kind: 'ConfigMap', raw: body, contentType: 'application/json' }), /application\/json/);
    assert.deepStrictEqual(decodeProtobuf(envelope({ apiVersion: 'v1', kind: 'ConfigMap', raw: body })), {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a' },
    });
  });

  it('spec 4.4: a known field with the wrong wire type, or fieldsV1 that is not JSON, is refused', () => {
    badRequestFor(envelope({ apiVersion: 'v1', kind: 'ConfigMap', raw: Buffer.from([0x08, 0x01]) }), /metadata \(1\) of api\.core\.v1\.ConfigMap/);
    const entry = new ProtoWriter().tag(7, 2).bytes(new ProtoWriter().tag(1, 2).string('{nope').finish()).finish();
    const meta = new ProtoWriter().tag(17, 2).bytes(entry).finish();
    badRequestFor(envelope({ apiVersion: 'v1', kind: 'ConfigMap', raw: new ProtoWriter().tag(1, 2).bytes(meta).finish() }), /JSON/);
  });

  it('spec 4.4: random bytes after the prefix never escape as anything but a 400', () => {
    let seed = 12345;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % 256;
    const valid = encodeProtobuf(cm);
    for (let i = 0; i < 500; i++) {
      const buf = Buffer.from(valid);
      if (i % 2 === 0) for (let j = 0; j < 3; j++) buf[4 + (rand() % (buf.length - 4))] = rand();
      const body = i % 2 === 0 ? buf : Buffer.concat([PROTOBUF_MAGIC, Buffer.from(Array.from({ length: rand() % 64 }, rand))]);
      try {
        decodeProtobuf(body);
      } catch (e) {
        assert.ok(isStatusError(e) && e.code === 400, `unexpected ${String(e)}`);
      }
    }
  });
});
