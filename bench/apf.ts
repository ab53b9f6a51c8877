/**
 * Priority and fairness cost (issue 20): GETs and ConfigMap creates by an ordinary user (classified into
 * `global-default`, so every request is classified and takes a seat) against the same server with
 * `--enable-priority-and-fairness=false` (the max-in-flight limits). Both servers run at once and are
 * measured in alternating phases, so drift on a shared machine hits both alike. Target: >= 90 %.
 *   npm run bench -- apf [--rounds N]   # BENCH_PHASE_MS sets the phase length
 */
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { connectAll, request, startChild, type Target } from './api.js';
import { fmt, runFor } from './stats.js';

const PHASE_MS = Number(process.env.BENCH_PHASE_MS ?? 5000);
const CLIENTS = 64;
const SESSIONS = 8;
const USER_TOKEN = 'bench-user-token';
const CM = '/api/v1/namespaces/default/configmaps';

type Op = 'GET' | 'create';
type Mode = 'off' | 'on';

export async function main(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { rounds: { type: 'string' } } });
  const rounds = Number(values.rounds ?? 2);
  // A user outside system:masters (which priority and fairness would exempt), allowed everything.
  const users = (dir: string) => writeFileSync(join(dir, 'users.csv'), `${USER_TOKEN},bench-user,bench-uid,bench\n`);
  const common = ['--token-auth-file={dir}/users.csv', '--authorization-mode=AlwaysAllow'];
  const off = await startChild([...common, '--enable-priority-and-fairness=false'], users);
  const on = await startChild(common, users);
  const servers: [Mode, Target][] = [
    ['off', { ...off.target, token: USER_TOKEN }],
    ['on', { ...on.target, token: USER_TOKEN }],
  ];
  const results: Record<string, number[]> = {};
  const p99: Record<string, number[]> = {};
  const errors: Record<string, number> = {};
  let n = 0;
  const phase = async (t: Target, op: Op, ms: number) => {
    const sessions = await connectAll(t, SESSIONS);
    const r = await runFor(ms, CLIENTS, (w) =>
      op === 'GET'
        ? request(sessions[w % SESSIONS]!, t, 'GET', `${CM}/bench-get`)
        : request(sessions[w % SESSIONS]!, t, 'POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${n++}` }, data: { v: 'x'.repeat(256) } }),
    );
    for (const s of sessions) s.close();
    return r;
  };
  try {
    for (const [, t] of servers) {
      const [s] = await connectAll(t, 1);
      await request(s!, t, 'POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bench-get' }, data: { v: 'x' } });
      s!.close();
    }
    // A short unmeasured phase each, so neither server's first measured phase pays for JIT warm-up.
    for (const [, t] of servers) for (const op of ['GET', 'create'] as Op[]) await phase(t, op, Math.min(PHASE_MS, 1500));
    for (let round = 0; round < rounds; round++) {
      for (const op of ['GET', 'create'] as Op[]) {
        // Alternate which server goes first, so neither always follows the other's writes.
        const order = round % 2 === 0 ? servers : [...servers].reverse();
        for (const [mode, t] of order) {
          const r = await phase(t, op, PHASE_MS);
          const k = `${op} ${mode}`;
          (results[k] ??= []).push(r.perSecond);
          (p99[k] ??= []).push(r.p99);
          errors[k] = (errors[k] ?? 0) + r.errors;
        }
      }
    }
  } finally {
    await off.stop();
    await on.stop();
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const rows = (['GET', 'create'] as Op[]).flatMap((op) =>
    (['off', 'on'] as Mode[]).map((mode) => {
      const k = `${op} ${mode}`;
      return {
        request: op,
        'priority and fairness': mode,
        'req/s (mean)': fmt(mean(results[k]!)),
        'req/s per phase': results[k]!.map((x) => fmt(x)).join(' / '),
        'p99 ms': fmt(Math.max(...p99[k]!), 1),
        errors: String(errors[k]),
        'on / off': mode === 'on' ? `${fmt((mean(results[k]!) / mean(results[`${op} off`]!)) * 100)} %` : '',
      };
    }),
  );
  console.log(
    `priority and fairness benchmark: ${cpus().length} cores, node ${process.version}, ${new Date().toISOString().slice(0, 10)}, ${CLIENTS} clients as an ordinary user, ` +
      `${rounds} x ${PHASE_MS} ms phases per request kind (target: on >= 90 % of off)`,
  );
  console.table(rows);
}
