import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clip, fieldError, invalid, MAX_MESSAGE_CHARS, MAX_QUOTED_CHARS, quote, StatusError } from './index.js';

describe('values quoted in messages are cut short (spec 7: errors never echo unbounded input)', () => {
  const long = 'y'.repeat(MAX_QUOTED_CHARS + 10);
  const cases: [string, unknown, string][] = [
    ['a short string as JSON', 'abc', '"abc"'],
    ['a number', 42, '42'],
    ['null', null, 'null'],
    ['undefined as before', undefined, 'undefined'],
    ['a short object as JSON', { a: [1] }, '{"a":[1]}'],
    ['a long string, cut before encoding', long, `"${'y'.repeat(MAX_QUOTED_CHARS)}"...(10 more characters)`],
    ['a long object, cut after encoding', { k: long }, `{"k":"${'y'.repeat(MAX_QUOTED_CHARS - 6)}...(18 more characters)`],
  ];
  for (const [title, value, want] of cases) {
    it(`quote: ${title}`, () => assert.equal(quote(value), want));
  }

  it('quote: a value that cannot be encoded is omitted rather than thrown', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    assert.equal(quote(cyclic), '<value omitted>');
  });

  it('clip keeps short text and summarises long text', () => {
    assert.equal(clip('abc', 3), 'abc');
    assert.equal(clip('abcdef', 3), 'abc...(3 more characters)');
  });

  it('field errors quote a 1 MB value in a few hundred characters', () => {
    const huge = 'z'.repeat(1024 * 1024);
    for (const e of [
      fieldError.invalid('data[a]', huge, 'bad'),
      fieldError.typeInvalid('data[a]', { huge }, 'must be of type string'),
      fieldError.notSupported('spec.type', huge, ['A', 'B']),
      fieldError.duplicate('spec.ports[1]', huge),
    ]) {
      assert.ok(e.message.length < MAX_QUOTED_CHARS + 100, `${e.type}: ${e.message.length} characters`);
    }
  });

  it('a Status message is capped however it was built', () => {
    const e = new StatusError(400, 'BadRequest', 'm'.repeat(MAX_MESSAGE_CHARS * 4));
    assert.ok(e.message.length < MAX_MESSAGE_CHARS + 50);
    assert.match(e.message, /\.\.\.\(\d+ more characters\)$/);
  });

  it('an Invalid with many errors keeps every cause but caps the message', () => {
    const errors = Array.from({ length: 1000 }, (_, i) => fieldError.invalid(`metadata.labels[k${i}]`, 'v'.repeat(200), 'bad label'));
    const e = invalid({ kind: 'ConfigMap', name: 'x' }, errors);
    assert.equal(e.details?.causes?.length, 1000);
    assert.ok(e.message.length < MAX_MESSAGE_CHARS + 50);
  });
});
