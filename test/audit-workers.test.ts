/**
 * The audit log of the real `orch-apiserver` process (spec 2.11): flags, start-up errors, and with
 * `--workers` one log that every worker's events reach whole, rotated in one place.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { AuditEvent } from '../src/audit/types.js';
import { client } from './helpers/client.js';
import { failsToStart, startApiserver, stopAll, tempDir, until } from './helpers/apiserver-process.js';

after(stopAll);

const policy = (dir: string, text = 'apiVersion: audit.orch.io/v1\nkind: Policy\nrules:\n- level: RequestResponse\n  verbs: ["create"]\n- level: Metadata\n') => {
  const file = join(dir, 'policy.yaml');
  writeFileSync(file, text);
  return file;
};

describe('audit flags of orch-apiserver (spec 2.11)', () => {
  const bad: [string, (dir: string) => string[], RegExp][] = [
    ['a policy with a bad level', (d) => [`--audit-policy-file=${policy(d, 'apiVersion: audit.orch.io/v1\nkind: Policy\nrules:\n- level: Loud\n')}`], /--audit-policy-file .*policy\.yaml: rules\[0\]\.level: Unsupported value: "Loud"/],
    ['a missing policy file', (d) => [`--audit-policy-file=${join(d, 'nope.yaml')}`], /--audit-policy-file: cannot read/],
    ['an unknown log format', (d) => [`--audit-log-path=${join(d, 'a.log')}`, '--audit-log-format=xml'], /--audit-log-format: invalid audit log format "xml"/],
    ['an unknown log mode', (d) => [`--audit-log-path=${join(d, 'a.log')}`, '--audit-log-mode=later'], /--audit-log-mode: invalid audit log mode "later"/],
    ['a negative maxsize', (d) => [`--audit-log-path=${join(d, 'a.log')}`, '--audit-log-maxsize=-1'], /--audit-log-maxsize: invalid value -1/],
    ['maxbackup without a path', () => ['--audit-log-maxbackup=3'], /--audit-log-maxbackup: needs --audit-log-path/],
  ];
  for (const [title, args, re] of bad) {
    it(`spec 2.11: ${title} stops the start, naming the flag`, async () => {
      const d = tempDir();
      assert.match(await failsToStart([`--data-dir=${join(d, 'data')}`, '--storage-backend=memory', ...args(d)]), re);
    });
  }
});

describe('audit log with --workers (spec 2.11)', () => {
  it('spec 2.11: events of every worker land whole in the one log, rotated by the supervisor', async () => {
    const d = tempDir();
    const logDir = join(d, 'logs');
    const s = await startApiserver([`--data-dir=${join(d, 'data')}`, '--workers=2', `--audit-policy-file=${policy(d)}`, `--audit-log-path=${join(logDir, 'audit.log')}`, '--audit-log-maxsize=1']);
    await s.stderrLine(/all 2 workers serving/, 20_000);
    const call = client(s.target);
    const big = 'y'.repeat(100 * 1024);
    // Each request opens its own connection, so the supervisor deals them to both workers.
    const ids = await Promise.all(
      Array.from({ length: 24 }, async (_, i) => {
        const r = await call('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `w-${i}` }, data: { big } } });
        assert.equal(r.status, 201);
        return r.headers['audit-id'] as string;
      }),
    );
    const events = (): AuditEvent[] =>
      readdirSync(logDir).flatMap((f) =>
        readFileSync(join(logDir, f), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as AuditEvent), // a torn or interleaved line would not parse
      );
    await until('every event written', () => events().filter((e) => ids.includes(e.auditID)).length === 48, 20_000).catch((e) => {
      throw new Error(`${(e as Error).message}: ${events().filter((x) => ids.includes(x.auditID)).length} of 48; ${readdirSync(logDir).join(' ')}`);
    });
    const all = events();
    for (const id of ids) assert.deepEqual(all.filter((e) => e.auditID === id).map((e) => e.stage), ['RequestReceived', 'ResponseComplete']);
    const files = readdirSync(logDir);
    assert.ok(files.length > 2, `~5 MB of events in 1 MB files: ${files.join(' ')}`);
    for (const f of files) assert.ok(readFileSync(join(logDir, f)).length <= 1024 * 1024, `${f} within --audit-log-maxsize`);
    assert.ok(files.every((f) => f === 'audit.log' || /^audit-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}\.log$/.test(f)));
  });
});
