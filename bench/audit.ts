/**
 * Audit cost (issue 17): ConfigMap creates with a Metadata-level policy on every request, logged to a file
 * (the default blocking mode), against the same server without audit. Both servers run at once and are
 * measured in alternating phases, so drift on a shared machine hits both alike. Target: >= 90 %.
 * Each server's CPU time per create (from /proc) is printed too: far steadier than rates on a busy machine.
 *   npm run bench -- audit [--rounds N] [--mode blocking|batch]   # BENCH_PHASE_MS sets the phase length
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { AUDIT_GROUP } from '../src/api/naming.js';
import { connectAll, request, startChild, type Target } from './api.js';
import { fmt, runFor } from './stats.js';

const PHASE_MS = Number(process.env.BENCH_PHASE_MS ?? 5000);
const CLIENTS = 64;
const SESSIONS = 8;

export async function main(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { rounds: { type: 'string' }, mode: { type: 'string' } } });
  const rounds = Number(values.rounds ?? 2);
  const mode = values.mode ?? 'blocking';
  const policy = (dir: string) => writeFileSync(join(dir, 'policy.yaml'), `apiVersion: ${AUDIT_GROUP}/v1\nkind: Policy\nrules:\n- level: Metadata\n`);
  const plain = await startChild([]);
  const audited = await startChild(['--audit-policy-file={dir}/policy.yaml', '--audit-log-path={dir}/audit.log', `--audit-log-mode=${mode}`], policy);
  const servers: [string, Target, number][] = [['none', plain.target, plain.pid], ['Metadata', audited.target, audited.pid]];
  const results: Record<string, number[]> = { none: [], Metadata: [] };
  const p99: Record<string, number[]> = { none: [], Metadata: [] };
  const errors: Record<string, number> = { none: 0, Metadata: 0 };
  const cpu: Record<string, { ms: number; ops: number }> = { none: { ms: 0, ops: 0 }, Metadata: { ms: 0, ops: 0 } };
  let n = 0;
  let logBytes = 0;
  const data = { payload: 'x'.repeat(1024) };
  const phase = async (t: Target, ms: number) => {
    const sessions = await connectAll(t, SESSIONS);
    const r = await runFor(ms, CLIENTS, (w) =>
      request(sessions[w % SESSIONS]!, t, 'POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${n++}` }, data }),
    );
    for (const s of sessions) s.close();
    return r;
  };
  try {
    // A short unmeasured phase each, so neither server's first measured phase pays for JIT warm-up.
    for (const [, t] of servers) await phase(t, Math.min(PHASE_MS, 1500));
    for (let round = 0; round < rounds; round++) {
      for (const [name, t, pid] of servers) {
        const before = cpuMs(pid);
        const r = await phase(t, PHASE_MS);
        cpu[name]!.ms += cpuMs(pid) - before;
        cpu[name]!.ops += r.ops;
        results[name]!.push(r.perSecond);
        p99[name]!.push(r.p99);
        errors[name]! += r.errors;
      }
    }
  } finally {
    logBytes = statSync(join(audited.dir, 'audit.log'), { throwIfNoEntry: false })?.size ?? 0;
    await plain.stop();
    await audited.stop();
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const rows = (['none', 'Metadata'] as const).map((k) => ({
    audit: k === 'none' ? 'off' : `Metadata, log file (${mode})`,
    'creates/s (mean)': fmt(mean(results[k]!)),
    'creates/s per phase': results[k]!.map((x) => fmt(x)).join(' / '),
    'p99 ms': fmt(Math.max(...p99[k]!), 1),
    'server CPU µs/create': fmt((cpu[k]!.ms * 1000) / cpu[k]!.ops),
    errors: String(errors[k]),
  }));
  const ratio = mean(results.Metadata!) / mean(results.none!);
  const perCreate = (k: string) => cpu[k]!.ms / cpu[k]!.ops;
  console.log(
    `audit benchmark: ${cpus().length} cores, node ${process.version}, ${new Date().toISOString().slice(0, 10)}, ${CLIENTS} clients, ${rounds} x ${PHASE_MS} ms phases; ` +
      `audit log ${fmt(logBytes / 1024 / 1024, 1)} MiB; audited rate is ${fmt(ratio * 100)} % of no audit (target >= 90 %); ` +
      `CPU-bound estimate ${fmt((perCreate('none') / perCreate('Metadata')) * 100)} % (server CPU per create)`,
  );
  console.table(rows);
}

/** CPU time (user + system) a process has used, in ms, from /proc/<pid>/stat (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
