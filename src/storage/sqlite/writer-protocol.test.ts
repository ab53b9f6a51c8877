import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { packOps, packOutcomes, unpackOp, unpackOutcomes, type WireOutcome } from './writer-protocol.js';

const enc = new TextEncoder();
const text = (v: Uint8Array | null) => (v === null ? null : new TextDecoder().decode(v));

describe('writer thread wire format', () => {
  it('a batch of writes round-trips: kinds, keys, expected revisions and each value from the shared buffer', () => {
    const pool = Buffer.from('....second value....'); // a value that is a view into a larger buffer
    const ops = [
      { kind: 'create' as const, key: '/registry/configmaps/default/a', value: enc.encode('{"metadata":{}}') },
      { kind: 'update' as const, key: '/registry/pods/ns/ü-non-ascii', value: pool.subarray(4, 16), expected: 2 ** 40 },
      { kind: 'delete' as const, key: '/k', expected: 7 },
      { kind: 'delete' as const, key: '/unconditional' },
      { kind: 'create' as const, key: '/empty', value: new Uint8Array() },
    ];
    const p = packOps(ops);
    assert.equal(p.buf.byteLength, 15 + 12, 'only the values, back to back');
    const bytes = Buffer.from(p.buf);
    const back = ops.map((_, i) => unpackOp(p, i));
    assert.deepEqual(back.map((o) => [o.kind, o.key, o.expected]), [
      ['create', '/registry/configmaps/default/a', -1],
      ['update', '/registry/pods/ns/ü-non-ascii', 2 ** 40],
      ['delete', '/k', 7],
      ['delete', '/unconditional', -1],
      ['create', '/empty', -1],
    ]);
    assert.deepEqual(back.map((o) => bytes.subarray(o.offset, o.offset + o.length).toString()), ['{"metadata":{}}', 'second value', '', '', '']);
  });

  it('outcomes round-trip: written with and without a previous value, and each refusal with its actual revision', () => {
    const outcomes: WireOutcome[] = [
      { ok: true, revision: 11, created: 11, prevRevision: 0, prevCreated: 0, prevValue: null },
      { ok: true, revision: 12, created: 3, prevRevision: 9, prevCreated: 3, prevValue: enc.encode('old') },
      { ok: false, reason: 'exists', actual: 5 },
      { ok: false, reason: 'missing', actual: 0 },
      { ok: false, reason: 'conflict', actual: 2 ** 45 },
      { ok: true, revision: 13, created: 4, prevRevision: 10, prevCreated: 4, prevValue: new Uint8Array() },
    ];
    const back = unpackOutcomes(packOutcomes(outcomes));
    assert.deepEqual(
      back.map((o) => (o.ok ? { ...o, prevValue: text(o.prevValue) } : o)),
      outcomes.map((o) => (o.ok ? { ...o, prevValue: text(o.prevValue) } : o)),
    );
  });
});
