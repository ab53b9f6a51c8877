import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonContainerEnd, jsonMemberSpan } from './json-members.js';

const KEY = Buffer.from('metadata');
const span = (text: string) => {
  const buf = Buffer.from(text);
  const s = jsonMemberSpan(buf, KEY);
  return s ? buf.subarray(s[0], s[1]).toString() : undefined;
};

describe('jsonMemberSpan (reference behaviour: a member read as a JSON parser reads it)', () => {
  const found: [string, string, string][] = [
    ['first member', '{"metadata":{"name":"a"},"kind":"X"}', '{"name":"a"}'],
    ['not first', '{"kind":"X","spec":{"metadata":{"name":"inner"}},"metadata":{"name":"outer"}}', '{"name":"outer"}'],
    ['strings with escapes and brackets before it', '{"a":"}\\"{\\\\","b":["]",{"c":"\\"metadata\\":{"}],"metadata":{"x":1}}', '{"x":1}'],
    ['escapes inside it', '{"metadata":{"n":"a\\"b\\\\","u":"\\u00e9\\ud83d\\ude00"}}', '{"n":"a\\"b\\\\","u":"\\u00e9\\ud83d\\ude00"}'],
    ['unicode bytes', '{"é":"ü😀","metadata":{"name":"名前"}}', '{"name":"名前"}'],
    ['whitespace around', ' {\n "kind" : "X" ,\n "metadata" :\t{ "a" : [ 1 , 2 ] } \n}', '{ "a" : [ 1 , 2 ] }'],
    ['scalars before it', '{"n":-1.5e3,"t":true,"f":false,"z":null,"metadata":{}}', '{}'],
    ['a scalar value', '{"metadata":null}', 'null'],
    ['a string value', '{"metadata":"m"}', '"m"'],
  ];
  for (const [title, text, want] of found) {
    it(`finds the member: ${title}`, () => assert.equal(span(text), want));
  }

  const refused: [string, string][] = [
    ['absent', '{"kind":"X","spec":{"metadata":{}}}'],
    ['empty object', '{}'],
    ['an array', '[{"metadata":{}}]'],
    ['a key with an escape (could spell the key another way)', '{"meta\\u0064ata":{"a":1},"metadata":{"b":2}}'],
    ['cut off inside the value', '{"metadata":{"a":"b"'],
    ['cut off inside a string', '{"kind":"X'],
    ['no colon', '{"metadata" {}}'],
  ];
  for (const [title, text] of refused) {
    it(`answers undefined (the caller parses): ${title}`, () => assert.equal(span(text), undefined));
  }
});

describe('jsonContainerEnd', () => {
  const cases: [string, number, number][] = [
    ['{"a":{"b":"}"}}', 0, 14],
    ['{"a":{"b":"}"}}', 5, 13],
    ['[1,"]\\"",[2]]x', 0, 12],
    ['{"a":', 0, -1],
  ];
  for (const [text, at, want] of cases) {
    it(`closes ${JSON.stringify(text)} at ${at} → ${want}`, () => assert.equal(jsonContainerEnd(Buffer.from(text), at), want));
  }
});
