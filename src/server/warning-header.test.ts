import assert from 'node:assert/strict';
import { validateHeaderValue } from 'node:http';
import { describe, it } from 'node:test';
import {
  asciiEscaped,
  WARNING_HEADER_BYTES,
  WARNING_HEADER_LINES,
  WARNING_ITEM_CHARS,
  warningHeaderValues,
} from './warning-header.js';

/** The text a client reads back from one line (RFC 7230 quoted-string: a backslash quotes the next character). */
const textOf = (line: string) => {
  const m = /^299 - "(.*)"$/s.exec(line);
  assert.ok(m, line);
  return (m[1] as string).replace(/\\(.)/gs, '$1');
};

describe('warning header text (spec 7, reference behaviour: escaped, bounded)', () => {
  const escapes: [string, string, string][] = [
    ['printable ASCII stays as it is', 'unknown field "spec.x"', 'unknown field "spec.x"'],
    ['Latin-1 letters are escaped', 'unknown field "däta"', 'unknown field "d\\u00e4ta"'],
    ['letters past Latin-1 are escaped', 'Ωmega', '\\u03a9mega'],
    ['characters past the BMP are escaped as one', 'a😀b', 'a\\U0001f600b'],
    ['control characters', 'a\x01b\x7fc', 'a\\x01b\\x7fc'],
    ['tab, newline and carriage return by name', 'a\tb\nc\rd', 'a\\tb\\nc\\rd'],
    ['a lone surrogate', 'a\ud800b', 'a\\ufffdb'],
  ];
  for (const [name, input, want] of escapes) {
    it(`asciiEscaped: ${name}`, () => assert.equal(asciiEscaped(input), want));
  }

  it('every line is a value node accepts in a header, whatever the text', () => {
    const texts = ['é', 'Ω\u0000\u2028', '\ud83d', 'x'.repeat(10_000), '"\\', '\u00ff\u0100'];
    for (const line of warningHeaderValues(texts)) {
      assert.doesNotThrow(() => validateHeaderValue('Warning', line));
      assert.match(line, /^[\x20-\x7e]*$/);
    }
  });

  it('quotes and backslashes are quoted as the reference quotes them; the client reads the escaped text back', () => {
    const [line] = warningHeaderValues(['unknown field "a\\b" in Ω']);
    assert.equal(line, '299 - "unknown field \\"a\\\\b\\" in \\\\u03a9"');
    assert.equal(textOf(line as string), 'unknown field "a\\b" in \\u03a9');
  });

  it('empty and repeated texts give no line; order is kept', () => {
    assert.deepEqual(warningHeaderValues(['b', '', 'a', 'b']).map(textOf), ['b', 'a']);
    assert.deepEqual(warningHeaderValues([]), []);
  });

  it('reference behaviour: up to 4096 characters in all, texts are whole', () => {
    const texts = ['a'.repeat(1000), 'b'.repeat(1000), 'c'.repeat(1000)];
    assert.deepEqual(warningHeaderValues(texts).map(textOf), texts);
  });

  it('reference behaviour: past 4096 characters, each is cut to 256 and later ones are dropped', () => {
    const texts = ['a'.repeat(2000), 'b'.repeat(2000), 'c'.repeat(2000), 'd'];
    const got = warningHeaderValues(texts).map(textOf);
    assert.deepEqual(got, ['a', 'b', 'c'].map((ch) => ch.repeat(WARNING_ITEM_CHARS)));
  });

  it('a text that escapes past the byte bound is cut to 256 characters, not dropped', () => {
    const lines = warningHeaderValues(['Ω'.repeat(4000)]);
    assert.equal(lines.length, 1);
    assert.equal(textOf(lines[0] as string), '\\u03a9'.repeat(WARNING_ITEM_CHARS));
  });

  it('the lines are bounded in bytes and in number', () => {
    const many = Array.from({ length: 1000 }, (_, i) => `unknown field "f${i}"`);
    const lines = warningHeaderValues(many);
    assert.equal(lines.length, WARNING_HEADER_LINES);
    const wide = Array.from({ length: 50 }, (_, i) => `${i}${'é'.repeat(80)}`);
    const bytes = warningHeaderValues(wide).reduce((n, l) => n + l.length, 0);
    assert.ok(bytes <= WARNING_HEADER_BYTES, String(bytes));
    assert.ok(warningHeaderValues(wide).length < 50);
  });
});
