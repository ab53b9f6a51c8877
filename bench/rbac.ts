/**
 * Authorization cost (issue 6): GET throughput for a user authorized by RBAC with 10,000 RoleBindings in the
 * store, against the same server kind with AlwaysAllow, in one run. `npm run bench -- rbac [--bindings N]`
 */
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { connectAll, request, startChild, type Target } from './api.js';
import { fmt, runFor } from './stats.js';

const PHASE_MS = Number(process.env.BENCH_PHASE_MS ?? 5000);
const RBAC = 'rbac.authorization.orch.io';

async function getRate(admin: Target, user: Target): Promise<{ perSecond: number; p99: number; errors: number }> {
  const sessions = await connectAll(admin, 8);
  await request(sessions[0]!, admin, 'POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'target' }, data: { a: 'b' } }).catch(() => undefined);
  const r = await runFor(PHASE_MS, 64, (w) => request(sessions[w % 8]!, user, 'GET', '/api/v1/namespaces/default/configmaps/target'));
  for (const s of sessions) s.close();
  return r;
}

export async function main(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { bindings: { type: 'string' } } });
  const n = Number(values.bindings ?? 10_000);
  const tokens = (dir: string) => writeFileSync(join(dir, 'users.csv'), 'bench-token,bench-user,bench-uid,bench-group\n');
  const rows: Record<string, string>[] = [];
  for (const mode of ['RBAC', 'AlwaysAllow']) {
    const child = await startChild([`--authorization-mode=${mode}`, '--token-auth-file={dir}/users.csv'], tokens);
    try {
      const admin = child.target;
      const user: Target = { ...admin, token: 'bench-token' };
      if (mode === 'RBAC') {
        const [s] = await connectAll(admin, 1);
        let next = 0;
        await Promise.all(Array.from({ length: 32 }, async () => {
          while (next < n) {
            const i = next++;
            await request(s!, admin, 'POST', '/apis/rbac.authorization.orch.io/v1/namespaces/default/rolebindings', {
              apiVersion: `${RBAC}/v1`, kind: 'RoleBinding', metadata: { name: `rb-${i}` },
              roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'view' },
              subjects: [{ kind: 'User', apiGroup: RBAC, name: i === n - 1 ? 'bench-user' : `user-${i}` }],
            });
          }
        }));
        s!.close();
        await new Promise((r) => setTimeout(r, 1000));
      }
      const r = await getRate(admin, user);
      rows.push({ mode, bindings: mode === 'RBAC' ? fmt(n) : '-', 'GET/s': fmt(r.perSecond), 'p99 ms': fmt(r.p99, 1), errors: String(r.errors) });
    } finally {
      await child.stop();
    }
  }
  const ratio = Number(rows[0]!['GET/s']!.replace(/,/g, '')) / Number(rows[1]!['GET/s']!.replace(/,/g, ''));
  console.log(`rbac benchmark: ${cpus().length} cores, node ${process.version}, ${new Date().toISOString().slice(0, 10)}, 64 clients, ${PHASE_MS} ms; RBAC rate is ${fmt(ratio * 100)} % of AlwaysAllow`);
  console.table(rows);
}
