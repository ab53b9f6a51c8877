import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { authFailureMessage, microTime, sourceIPs, truncateUserAgent } from './event.js';
import { backupName, backupsToRemove, backupTime, RotatingFileWriter, splitLines } from './log-file.js';
import { goQuote, legacyLine, nanoTime } from './log-format.js';
import { checkAuditLogOptions, LogSink } from './log-sink.js';
import { auditSinkContract, sampleAuditEvent, sampleAuditEvents } from './testing.js';
import type { AuditEvent } from './types.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'orch-audit-log-'));
const linesOf = (file: string): AuditEvent[] => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as AuditEvent) : []);
const settings = { maxSizeBytes: 100 * 1024 * 1024, maxBackups: 0, maxAgeDays: 0 };

for (const mode of ['blocking', 'blocking-strict'] as const) {
  auditSinkContract(`the log backend (${mode}, a real file)`, async () => {
    const dir = tmp();
    const file = join(dir, 'audit.log');
    return { sink: new LogSink(new RotatingFileWriter(file, settings), 'json', mode === 'blocking-strict'), stored: () => linesOf(file), cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
  });
}

describe('the log backend (spec 2.11)', () => {
  it('spec 2.11: one JSON event a line; a strict delivery says it was written', async () => {
    const dir = tmp();
    const file = join(dir, 'sub', 'audit.log');
    const sink = new LogSink(new RotatingFileWriter(file, settings), 'json', true);
    assert.equal(await sink.deliver(sampleAuditEvents(1, 3)), true);
    sink.processEvents([sampleAuditEvent(4)]);
    await sink.shutdown();
    assert.deepEqual(linesOf(file).map((e) => e.requestURI.slice(-2)), ['c1', 'c2', 'c3', 'c4']);
    assert.equal(await sink.deliver([sampleAuditEvent(5)]), false, 'after shutdown nothing is written');
    rmSync(dir, { recursive: true, force: true });
  });

  it('reference behaviour: a write past the size rotates to <name>-<time>.<ext>; maxBackups prunes the oldest', async () => {
    const dir = tmp();
    const file = join(dir, 'audit.log');
    let now = Date.parse('2024-05-06T07:08:09.010Z');
    const w = new RotatingFileWriter(file, { maxSizeBytes: 100, maxBackups: 2, maxAgeDays: 0 }, () => undefined, () => now++);
    const line = (c: string) => `${c.repeat(59)}\n`; // 60 bytes: one line a file
    for (const c of 'abcd') assert.equal(await w.write(line(c)), true);
    assert.equal(await w.write(`${'e'.repeat(200)}\n`), false, 'a line bigger than a file is refused');
    await w.close();
    const files = readdirSync(dir).sort();
    assert.equal(files.length, 3, files.join(' '));
    assert.ok(files.slice(0, 2).every((f) => /^audit-2024-05-06T07-08-09\.0\d\d\.log$/.test(f)), files.join(' '));
    assert.equal(files[2], 'audit.log');
    assert.equal(readFileSync(join(dir, 'audit.log'), 'utf8'), line('d'));
    assert.equal(readFileSync(join(dir, files[1] as string), 'utf8'), line('c'), 'the newest backup holds the line before');
    assert.equal(readFileSync(join(dir, files[0] as string), 'utf8'), line('b'), 'the oldest (a) was pruned');
    rmSync(dir, { recursive: true, force: true });
  });

  it('reference behaviour: an existing file is appended to, and rotated when it is already full', async () => {
    const dir = tmp();
    const file = join(dir, 'audit.log');
    writeFileSync(file, 'x'.repeat(96) + '\n');
    const w = new RotatingFileWriter(file, { maxSizeBytes: 100, maxBackups: 0, maxAgeDays: 0 });
    await w.write('short\n');
    await w.close();
    assert.equal(readFileSync(file, 'utf8'), 'short\n');
    assert.equal(readdirSync(dir).length, 2);
    rmSync(dir, { recursive: true, force: true });
  });

  it('reference behaviour: one turn\'s lines come out whole and in order, whether they fit in one write or rotate between lines', async () => {
    // The same turn of appends and writes (a worker's message of several lines, one without its last newline).
    const turn = async (w: RotatingFileWriter) => {
      const outcomes: boolean[] = [];
      const writes: Promise<boolean>[] = [];
      for (let i = 0; i < 6; i++) {
        w.append(`{"n":${i},"pad":"${'p'.repeat(20)}"}\n`, (ok) => outcomes.push(ok));
        if (i === 2) writes.push(w.write('{"worker":1}\n{"worker":2}'));
      }
      outcomes.push(...(await Promise.all(writes)));
      await w.close();
      return outcomes;
    };
    const expected = [0, 1, 2].map((i) => `{"n":${i},"pad":"${'p'.repeat(20)}"}\n`).join('') + '{"worker":1}\n{"worker":2}\n' + [3, 4, 5].map((i) => `{"n":${i},"pad":"${'p'.repeat(20)}"}\n`).join('');
    const roomy = tmp();
    assert.deepEqual(await turn(new RotatingFileWriter(join(roomy, 'audit.log'), settings)), Array(7).fill(true));
    assert.equal(readFileSync(join(roomy, 'audit.log'), 'utf8'), expected);
    const tight = tmp();
    let now = Date.parse('2024-05-06T07:08:09.010Z');
    assert.deepEqual(await turn(new RotatingFileWriter(join(tight, 'audit.log'), { maxSizeBytes: 100, maxBackups: 0, maxAgeDays: 0 }, () => undefined, () => now++)), Array(7).fill(true));
    const files = readdirSync(tight).sort((x, y) => (x === 'audit.log' ? 1 : y === 'audit.log' ? -1 : x.localeCompare(y)));
    assert.ok(files.length > 2, files.join(' '));
    assert.equal(files.map((f) => readFileSync(join(tight, f), 'utf8')).join(''), expected, 'the backups then the current file hold the same lines');
    for (const f of files) assert.ok(readFileSync(join(tight, f)).length <= 100, f);
    rmSync(roomy, { recursive: true, force: true });
    rmSync(tight, { recursive: true, force: true });
  });

  it('reference behaviour: backup names, their times, and which to remove by count and age', () => {
    const at = new Date('2024-01-02T03:04:05.678Z');
    assert.equal(backupName('/var/log/audit.log', at), '/var/log/audit-2024-01-02T03-04-05.678.log');
    assert.equal(backupName('/var/log/audit', at), '/var/log/audit-2024-01-02T03-04-05.678');
    assert.equal(backupTime('/var/log/audit.log', 'audit-2024-01-02T03-04-05.678.log'), at.getTime());
    assert.equal(backupTime('/var/log/audit.log', 'other-2024-01-02T03-04-05.678.log'), undefined);
    assert.equal(backupTime('/var/log/audit.log', 'audit.log'), undefined);
    const day = 24 * 3600 * 1000;
    const b = [{ file: 'new', time: 10 * day }, { file: 'mid', time: 9 * day }, { file: 'old', time: 2 * day }];
    assert.deepEqual(backupsToRemove(b, { maxSizeBytes: 1, maxBackups: 2, maxAgeDays: 0 }, 10 * day), ['old']);
    assert.deepEqual(backupsToRemove(b, { maxSizeBytes: 1, maxBackups: 0, maxAgeDays: 3 }, 10 * day), ['old']);
    assert.deepEqual(backupsToRemove(b, { maxSizeBytes: 1, maxBackups: 0, maxAgeDays: 0 }, 10 * day), []);
    assert.deepEqual(splitLines('a\nb\nc'), ['a\n', 'b\n', 'c\n']);
  });

  it('reference behaviour: the legacy format', () => {
    const ev = sampleAuditEvent(1, { impersonatedUser: { username: 'bob', groups: ['x"y'] }, userAgent: 'kubectl/v1' });
    assert.equal(
      legacyLine(ev),
      '2024-01-02T03:04:05.000001Z AUDIT: id="00000000-0000-4000-8000-000000000001" stage="ResponseComplete" ip="127.0.0.1" method="get" user="alice" groups="\\"system:authenticated\\"" as="bob" asgroups="\\"x\\\\\\"y\\"" user-agent="kubectl/v1" namespace="default" uri="/api/v1/namespaces/default/configmaps/c1" response="200"',
    );
    const bare = legacyLine({ ...sampleAuditEvent(2), user: { username: '' }, sourceIPs: [], objectRef: undefined, responseStatus: undefined, stage: 'RequestReceived' });
    assert.match(bare, /ip="<unknown>" method="get" user="<none>" groups="<none>" as="<self>" asgroups="<lookup>" user-agent="" namespace="<none>" .* response="<deferred>"$/);
    assert.equal(goQuote('a\tb\x01"\\é'), '"a\\tb\\x01\\"\\\\é"');
    assert.equal(nanoTime('2024-01-02T03:04:05.120000Z'), '2024-01-02T03:04:05.12Z');
    assert.equal(nanoTime('2024-01-02T03:04:05.000000Z'), '2024-01-02T03:04:05Z');
  });

  it('spec 2.11: the flag checks name the flag', () => {
    const bad: [Parameters<typeof checkAuditLogOptions>[0], RegExp][] = [
      [{ path: '' }, /--audit-log-path/],
      [{ path: 'x', format: 'xml' as 'json' }, /--audit-log-format: invalid audit log format "xml"/],
      [{ path: 'x', mode: 'sometimes' as 'batch' }, /--audit-log-mode: invalid audit log mode "sometimes"/],
      [{ path: 'x', maxAgeDays: -1 }, /--audit-log-maxage: invalid value -1/],
      [{ path: 'x', maxBackups: 1.5 }, /--audit-log-maxbackup: invalid value 1.5/],
      [{ path: 'x', maxSizeMB: -2 }, /--audit-log-maxsize: invalid value -2/],
    ];
    for (const [o, re] of bad) assert.throws(() => checkAuditLogOptions(o), re);
    assert.doesNotThrow(() => checkAuditLogOptions({ path: '-', format: 'legacy', mode: 'blocking-strict', maxAgeDays: 0, maxBackups: 3, maxSizeMB: 10 }));
  });
});

describe('audit event pieces (spec 2.11)', () => {
  it('spec 2.11: timestamps are RFC 3339 with microseconds in UTC', () => {
    assert.equal(microTime(Date.parse('2024-01-02T03:04:05.678Z') + 0.9123), '2024-01-02T03:04:05.678912Z');
    assert.equal(microTime(Date.parse('2024-01-02T03:04:06.000Z')), '2024-01-02T03:04:06.000000Z');
  });

  it('reference behaviour: source IPs, user agent truncation, authentication failure messages', () => {
    const rows: [string | undefined, string | undefined, string | undefined, string[]][] = [
      [undefined, undefined, '127.0.0.1', ['127.0.0.1']],
      [undefined, undefined, '::ffff:10.1.2.3', ['10.1.2.3']],
      ['1.1.1.1, junk, 2.2.2.2', undefined, '3.3.3.3', ['1.1.1.1', '2.2.2.2', '3.3.3.3']],
      ['1.1.1.1', '1.1.1.1', '1.1.1.1', ['1.1.1.1']],
      [undefined, '4.4.4.4', '::1', ['4.4.4.4', '::1']],
    ];
    for (const [xff, real, remote, expected] of rows) assert.deepEqual(sourceIPs(xff, real, remote), expected);
    assert.equal(truncateUserAgent('a'.repeat(1024)), 'a'.repeat(1024));
    assert.equal(truncateUserAgent('a'.repeat(1025)), `${'a'.repeat(1024)}...TRUNCATED`);
    assert.equal(authFailureMessage('Bearer x', false, false), 'Authentication failed, attempted: bearer');
    assert.equal(authFailureMessage('Basic eDp5', true, true), 'Authentication failed, attempted: basic, access_token, x509');
    assert.equal(authFailureMessage(undefined, false, false), 'Authentication failed, no credentials provided');
  });
});
