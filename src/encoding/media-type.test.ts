import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mediaTypeOf, negotiate, parseAccept } from './media-type.js';

const OFFERS = ['application/json', 'application/yaml', 'application/vnd.orch.protobuf'];

describe('Accept negotiation (spec 4.4)', () => {
  const cases: { accept: string | undefined; want: string | 'not acceptable' }[] = [
    { accept: undefined, want: 'application/json' },
    { accept: '', want: 'application/json' },
    { accept: '*/*', want: 'application/json' },
    { accept: 'application/yaml', want: 'application/yaml' },
    { accept: 'text/html, application/yaml;q=0.5, application/json;q=0.9', want: 'application/json' },
    { accept: 'application/vnd.orch.protobuf, application/json', want: 'application/vnd.orch.protobuf' },
    { accept: 'application/xml', want: 'not acceptable' },
    { accept: 'application/yaml;q=0', want: 'not acceptable' },
  ];
  for (const c of cases) {
    it(`spec 4.4: Accept ${JSON.stringify(c.accept)} -> ${c.want}, the same on every repetition`, () => {
      for (let i = 0; i < 3; i++) {
        if (c.want === 'not acceptable') assert.throws(() => negotiate(c.accept, OFFERS), (e: unknown) => (e as { code?: number }).code === 406);
        else assert.equal(negotiate(c.accept, OFFERS).mediaType, c.want);
      }
    });
  }

  it('spec 4.4: remembered ranges stay right for each header text, past the size of the table', () => {
    for (let i = 0; i < 300; i++) {
      const header = `application/x-${i}, application/yaml;q=0.${(i % 9) + 1}`;
      assert.deepEqual(parseAccept(header).map((r) => `${r.type}/${r.subtype};q=${r.q}`), [`application/x-${i};q=1`, `application/yaml;q=0.${(i % 9) + 1}`]);
    }
    assert.equal(negotiate('application/yaml', OFFERS).mediaType, 'application/yaml');
    const long = `${'text/plain;q=0.1, '.repeat(40)}application/yaml`;
    assert.equal(negotiate(long, OFFERS).mediaType, 'application/yaml', 'a long header (not remembered) still negotiates');
  });
});

describe('Content-Type media types (spec 4.4)', () => {
  const cases: [string, string][] = [
    ['application/json', 'application/json'],
    ['application/json; charset=utf-8', 'application/json'],
    ['Application/JSON', 'application/json'],
    [' application/merge-patch+json ;charset=UTF-8', 'application/merge-patch+json'],
    ['application/apply-patch+yaml', 'application/apply-patch+yaml'],
    ['text/plain', 'text/plain'],
    ['nonsense', 'nonsense/'],
  ];
  for (const [header, want] of cases) {
    it(`spec 4.4: Content-Type ${JSON.stringify(header)} is ${want}, the same on every repetition`, () => {
      assert.equal(mediaTypeOf(header), want);
      assert.equal(mediaTypeOf(header), want);
    });
  }

  it('spec 4.4: remembered media types stay right past the size of the table', () => {
    for (let i = 0; i < 300; i++) assert.equal(mediaTypeOf(`application/x-${i}+json; v=${i}`), `application/x-${i}+json`);
    assert.equal(mediaTypeOf('application/yaml'), 'application/yaml');
  });
});
