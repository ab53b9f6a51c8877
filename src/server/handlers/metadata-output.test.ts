import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiObject } from '../../api/types.js';
import { metadataBytesOf, metadataEventLine, partialObject, partialObjectOfJson } from './metadata-output.js';

const API_VERSION = 'meta.example/v1';

/** The path the scanner replaces: parse the whole object, keep its metadata, encode. */
function parsedLine(kind: string, text: string): Buffer {
  return Buffer.from(`${JSON.stringify({ type: kind, object: partialObject(JSON.parse(text) as ApiObject, API_VERSION) })}\n`);
}

/** A small seeded generator, so the table of random objects is the same on every run. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

const TRICKY = ['plain', '"quoted"', 'back\\slash', '}{][', '"metadata":{', 'é ü 名前 😀', '\u0000\u001f\u2028', '\\"}', ''];

function randomValue(next: () => number, depth: number): unknown {
  const r = next();
  if (depth > 3 || r < 0.3) return TRICKY[Math.floor(next() * TRICKY.length)];
  if (r < 0.4) return Math.floor(next() * 1e6) / 7;
  if (r < 0.45) return next() < 0.5 ? null : true;
  if (r < 0.65) return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth + 1));
  const o: Record<string, unknown> = {};
  for (let i = Math.floor(next() * 4); i > 0; i--) o[next() < 0.2 ? 'metadata' : (TRICKY[Math.floor(next() * TRICKY.length)] as string)] = randomValue(next, depth + 1);
  return o;
}

/** Objects with metadata anywhere among their members, nested `metadata` keys and hard strings. */
function randomObjects(count: number): string[] {
  const next = random(19);
  return Array.from({ length: count }, (_, n) => {
    const members: [string, unknown][] = [
      ['metadata', { name: `o${n}`, resourceVersion: String(n), labels: { [TRICKY[n % TRICKY.length] as string]: TRICKY[(n + 3) % TRICKY.length] }, annotations: randomValue(next, 1) }],
      ['kind', 'Thing'],
      ['spec', randomValue(next, 0)],
      ['data', { metadata: randomValue(next, 1) }],
    ];
    const at = Math.floor(next() * members.length);
    members.unshift(...members.splice(at, 1));
    return JSON.stringify(Object.fromEntries(members));
  });
}

const HAND_WRITTEN: [string, string][] = [
  ['the stored form with the resourceVersion spliced in', '{"metadata":{"resourceVersion":"7","name":"a","uid":"u"},"kind":"ConfigMap","apiVersion":"v1","data":{"k":"v"}}'],
  ['metadata not first', '{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"}}'],
  ['a metadata key inside spec before the real one', '{"spec":{"template":{"metadata":{"name":"inner"}}},"metadata":{"name":"outer"}}'],
  ['escaped strings', '{"data":{"q":"\\"metadata\\":{\\"name\\":\\"fake\\"}"},"metadata":{"name":"a\\"b","annotations":{"x":"\\\\"}}}'],
  ['unicode, escaped and raw', '{"metadata":{"name":"\\u00e9t\\u00e9","annotations":{"é":"😀","s":"\\ud83d\\ude00"}}}'],
  ['pretty-printed', '{\n  "kind": "X",\n  "metadata": {\n    "name": "a",\n    "labels": { "l": "v" }\n  }\n}'],
  ['managed fields', '{"metadata":{"name":"a","managedFields":[{"manager":"m","fieldsV1":{"f:data":{".":{},"f:k":{}}}}]},"data":{"k":"v"}}'],
];

/** Texts the scanner leaves to the parser; the answer must be the same. */
const FALLBACKS: [string, string][] = [
  ['a key spelled with an escape', '{"meta\\u0064ata":{"name":"escaped"},"kind":"X"}'],
  ['no metadata', '{"kind":"X"}'],
  ['null metadata', '{"kind":"X","metadata":null}'],
];

describe('metadata-only watch lines cut from the JSON bytes (reference behaviour: same answer as parsing)', () => {
  const table: [string, string][] = [...HAND_WRITTEN, ...randomObjects(300).map((t, i) => [`random object ${i}`, t] as [string, string])];
  it('the scanner cuts the metadata of every hand-written and random object (no silent fallback)', () => {
    for (const [title, text] of table) assert.ok(metadataBytesOf(Buffer.from(text)), title);
  });
  it('each line parses to what the parse path gives, for every event type', () => {
    for (const [title, text] of table) {
      for (const kind of ['ADDED', 'MODIFIED', 'DELETED']) {
        assert.deepEqual(JSON.parse(metadataEventLine(kind, Buffer.from(text), API_VERSION).toString()), JSON.parse(parsedLine(kind, text).toString()), title);
      }
    }
  });
  it('for JSON.stringify output (the stored form) the bytes are identical to the parse path', () => {
    for (const [title, written] of table) {
      const text = JSON.stringify(JSON.parse(written));
      assert.equal(metadataEventLine('MODIFIED', Buffer.from(text), API_VERSION).toString(), parsedLine('MODIFIED', text).toString(), title);
    }
  });
  it('the object form (protobuf watches) equals the parse path', () => {
    for (const [title, text] of table) assert.deepEqual(partialObjectOfJson(Buffer.from(text), API_VERSION), partialObject(JSON.parse(text) as ApiObject, API_VERSION), title);
  });
  for (const [title, text] of FALLBACKS) {
    it(`falls back to parsing, same answer: ${title}`, () => {
      assert.equal(metadataBytesOf(Buffer.from(text)), undefined);
      assert.equal(metadataEventLine('ADDED', Buffer.from(text), API_VERSION).toString(), parsedLine('ADDED', text).toString());
      assert.deepEqual(partialObjectOfJson(Buffer.from(text), API_VERSION), partialObject(JSON.parse(text) as ApiObject, API_VERSION));
    });
  }
});
