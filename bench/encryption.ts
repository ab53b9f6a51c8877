/**
 * Encryption at rest cost (issue 17): Secret creates and gets with `aesgcm` as the first provider of
 * secrets against the same server with `identity`. Both servers (SQLite, the CLI default) run at once and
 * are measured in alternating phases, so drift on a shared machine hits both alike. Target: >= 85 %.
 *   npm run bench -- encryption [--rounds N]   # BENCH_PHASE_MS sets the phase length
 */
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ENCRYPTION_CONFIG_GROUP } from '../src/api/naming.js';
import { connectAll, request, startChild, type Target } from './api.js';
import { fmt, runFor } from './stats.js';

const PHASE_MS = Number(process.env.BENCH_PHASE_MS ?? 5000);
const CLIENTS = 64;
const SESSIONS = 8;
/** Secrets each server holds for the get phases. */
const POOL = 500;

const configOf = (provider: string) =>
  `apiVersion: ${ENCRYPTION_CONFIG_GROUP}/v1\nkind: EncryptionConfiguration\nresources:\n- resources: [secrets]\n  providers:\n  - ${provider}\n`;

export async function main(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { rounds: { type: 'string' } } });
  const rounds = Number(values.rounds ?? 2);
  const key = Buffer.alloc(32, 7).toString('base64');
  const flag = '--encryption-provider-config={dir}/encryption.yaml';
  const identity = await startChild([flag], (dir) => writeFileSync(join(dir, 'encryption.yaml'), configOf('identity: {}')));
  const aesgcm = await startChild([flag], (dir) => writeFileSync(join(dir, 'encryption.yaml'), configOf(`aesgcm: {keys: [{name: key1, secret: ${key}}]}`)));
  const servers: [string, Target][] = [['identity', identity.target], ['aesgcm', aesgcm.target]];
  const ops = ['create', 'get'] as const;
  const results: Record<string, number[]> = {};
  const errors: Record<string, number> = {};
  const data = { token: Buffer.alloc(512, 1).toString('base64') };
  let n = 0;
  const phase = async (t: Target, op: (typeof ops)[number], ms: number) => {
    const sessions = await connectAll(t, SESSIONS);
    const r = await runFor(ms, CLIENTS, (w, i) =>
      op === 'create'
        ? request(sessions[w % SESSIONS]!, t, 'POST', '/api/v1/namespaces/default/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: `s-${n++}` }, data })
        : request(sessions[w % SESSIONS]!, t, 'GET', `/api/v1/namespaces/default/secrets/pool-${(w * 7919 + i) % POOL}`),
    );
    for (const s of sessions) s.close();
    return r;
  };
  try {
    for (const [, t] of servers) {
      const [s] = await connectAll(t, 1);
      for (let i = 0; i < POOL; i++) await request(s!, t, 'POST', '/api/v1/namespaces/default/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: `pool-${i}` }, data });
      s!.close();
      for (const op of ops) await phase(t, op, Math.min(PHASE_MS, 1500)); // JIT warm-up, unmeasured
    }
    for (let round = 0; round < rounds; round++) {
      for (const op of ops) {
        for (const [name, t] of servers) {
          const r = await phase(t, op, PHASE_MS);
          (results[`${name} ${op}`] ??= []).push(r.perSecond);
          errors[`${name} ${op}`] = (errors[`${name} ${op}`] ?? 0) + r.errors;
        }
      }
    }
  } finally {
    await identity.stop();
    await aesgcm.stop();
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const rows = ops.flatMap((op) =>
    servers.map(([name]) => ({
      op,
      provider: name,
      'per second (mean)': fmt(mean(results[`${name} ${op}`]!)),
      'per phase': results[`${name} ${op}`]!.map((x) => fmt(x)).join(' / '),
      errors: String(errors[`${name} ${op}`]),
    })),
  );
  const ratio = (op: string) => fmt((mean(results[`aesgcm ${op}`]!) / mean(results[`identity ${op}`]!)) * 100);
  console.log(
    `encryption benchmark: ${cpus().length} cores, node ${process.version}, ${new Date().toISOString().slice(0, 10)}, ${CLIENTS} clients, ${rounds} x ${PHASE_MS} ms phases; ` +
      `aesgcm vs identity: creates ${ratio('create')} %, gets ${ratio('get')} % (target >= 85 %)`,
  );
  console.table(rows);
}
