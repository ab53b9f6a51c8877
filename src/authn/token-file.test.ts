import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { isStatusError } from '../errors/index.js';
import { TokenFileAuthenticator, parseTokenFile } from './token-file.js';

const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

describe('parseTokenFile (spec 5.3)', () => {
  it('reads token, user, uid and group columns', () => {
    const m = parseTokenFile('t1,alice,u-1,dev,ops\nt2,bob,u-2\n', 'tokens.csv');
    assert.deepEqual(m.get('t1'), { username: 'alice', uid: 'u-1', groups: ['dev', 'ops'] });
    assert.deepEqual(m.get('t2'), { username: 'bob', uid: 'u-2', groups: [] });
    assert.equal(m.size, 2);
  });

  it('accepts the reference form with all groups in one quoted column', () => {
    const m = parseTokenFile('t1,alice,u-1,"system:masters,dev"\n', 'f');
    assert.deepEqual(m.get('t1')?.groups, ['system:masters', 'dev']);
  });

  it('mixes both group forms, dropping empty and repeated groups', () => {
    const m = parseTokenFile('t1,alice,u-1,"a,b",c,,"b, d",\n', 'f');
    assert.deepEqual(m.get('t1')?.groups, ['a', 'b', 'c', 'd']);
  });

  it('allows an empty uid (left out of the user)', () => {
    assert.deepEqual(parseTokenFile('t1,alice,\n', 'f').get('t1'), { username: 'alice', groups: [] });
  });

  it('ignores blank lines and # comments, tolerates CRLF, a BOM and spaces around fields', () => {
    const text = '\uFEFF# tokens\r\n\r\n   \r\n  # indented comment\r\n t1 , alice , u-1 , "dev" \r\nt2,bob,u-2';
    const m = parseTokenFile(text, 'f');
    assert.deepEqual(m.get('t1'), { username: 'alice', uid: 'u-1', groups: ['dev'] });
    assert.deepEqual(m.get('t2'), { username: 'bob', uid: 'u-2', groups: [] });
  });

  it('follows RFC 4180 quoting: commas, doubled quotes, line breaks', () => {
    const m = parseTokenFile('"t,1","Smith, ""J""","u\n2",g\nt2,bob,u\n', 'f');
    assert.deepEqual(m.get('t,1'), { username: 'Smith, "J"', uid: 'u\n2', groups: ['g'] });
    assert.ok(m.has('t2'));
  });

  it('accepts an empty file', () => {
    assert.equal(parseTokenFile('', 'f').size, 0);
    assert.equal(parseTokenFile('# only a comment\n', 'f').size, 0);
  });

  const bad: [string, string, RegExp][] = [
    ['fewer than 3 columns', '# c\nt1,alice,u\nt2,bob\n', /^tokens\.csv:3: expected at least 3 columns .*found 2$/],
    ['one column', 't1\n', /^tokens\.csv:1: expected at least 3 columns/],
    ['empty token', 't1,a,u\n,bob,u-2\n', /^tokens\.csv:2: empty token$/],
    ['empty quoted token', '"",bob,u-2\n', /^tokens\.csv:1: empty token$/],
    ['token with a space', '"t 1",a,u\n', /^tokens\.csv:1: token contains whitespace/],
    ['empty user', 't1, ,u-1\n', /^tokens\.csv:1: empty user name$/],
    ['duplicate token', 't1,a,u\n\nt1,b,u\n', /^tokens\.csv:3: duplicate token, already defined on line 1$/],
    ['unterminated quote', 't1,a,u\nt2,"bob,u\n\n', /^tokens\.csv:2: unterminated quoted field$/],
    ['text after a closing quote', 't1,"a"x,u\n', /^tokens\.csv:1: unexpected character after a closing quote$/],
    ['bare quote', 't1,a"b,u\n', /^tokens\.csv:1: a quote inside an unquoted field$/],
  ];
  for (const [what, text, message] of bad) {
    it(`rejects a malformed file naming file and line: ${what}`, () => {
      assert.throws(() => parseTokenFile(text, 'tokens.csv'), (e: Error) => message.test(e.message) && !isStatusError(e));
    });
  }

  it('counts lines inside multi-line quoted fields', () => {
    assert.throws(() => parseTokenFile('t1,a,"u\n\nx"\nt2,b\n', 'f'), /^Error: f:4: /);
  });

  it('never puts the token in an error message', () => {
    assert.throws(
      () => parseTokenFile('s3cr3t-token,a,u\ns3cr3t-token,b,u\n', 'f'),
      (e: Error) => !e.message.includes('s3cr3t'),
    );
  });
});

describe('TokenFileAuthenticator (spec 5.3)', () => {
  const auth = new TokenFileAuthenticator(parseTokenFile('t1,alice,u-1,dev\n', 'f'));

  it('authenticates a known bearer token', async () => {
    assert.deepEqual(await auth.authenticate(bearer('t1')), { username: 'alice', uid: 'u-1', groups: ['dev'] });
  });

  it('has no opinion on an unknown token, another scheme or no header', async () => {
    assert.equal(await auth.authenticate(bearer('nope')), undefined);
    assert.equal(await auth.authenticate({ headers: { authorization: 'Basic YTpi' } }), undefined);
    assert.equal(await auth.authenticate({ headers: {} }), undefined);
  });

  it('rejects a malformed bearer header with 401', async () => {
    assert.throws(() => auth.authenticate({ headers: { authorization: 'Bearer t1 extra' } }), (e) => isStatusError(e) && e.code === 401);
  });

  it('returns copies that cannot change its table', async () => {
    const u = await auth.authenticate(bearer('t1'));
    u?.groups.push('evil');
    assert.deepEqual((await auth.authenticate(bearer('t1')))?.groups, ['dev']);
  });

  it('loads from a file, naming it in errors', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tokens-'));
    try {
      const good = join(dir, 'good.csv');
      await writeFile(good, 't9,zed,u-9,"a,b"\n');
      assert.deepEqual(await TokenFileAuthenticator.fromFile(good).authenticate(bearer('t9')), {
        username: 'zed',
        uid: 'u-9',
        groups: ['a', 'b'],
      });
      const bad = join(dir, 'bad.csv');
      await writeFile(bad, 't9,zed\n');
      assert.throws(() => TokenFileAuthenticator.fromFile(bad), (e: Error) => e.message.startsWith(`${bad}:1: `));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
