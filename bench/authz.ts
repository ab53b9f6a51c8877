/**
 * Webhook authorization cost (issue 16): GET throughput for a user authorized by a SubjectAccessReview
 * webhook whose answers are cached (warm cache), against the same user authorized by RBAC. Both servers run
 * at once and are measured in alternating phases, so drift on a shared machine hits both alike.
 *   npm run bench -- authz [--rounds N]       # BENCH_PHASE_MS sets the phase length (default 5000)
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { AUTHORIZATION_CONFIG_GROUP, AUTHORIZATION_GROUP, RBAC_GROUP } from '../src/api/naming.js';
import { ensureServingCerts } from '../src/server/tls.js';
import { connectAll, request, startChild, type Target } from './api.js';
import { fmt, runFor } from './stats.js';

const PHASE_MS = Number(process.env.BENCH_PHASE_MS ?? 5000);
const CLIENTS = 64;
const PATH = '/api/v1/namespaces/default/configmaps/target';

/** An HTTPS SubjectAccessReview webhook that allows everything and counts its calls. */
async function allowingWebhook(): Promise<{ url: string; caPem: string; calls: () => number; close(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'orch-bench-sar-'));
  const certs = await ensureServingCerts(dir, { hosts: ['127.0.0.1'] });
  let calls = 0;
  const answer = JSON.stringify({ apiVersion: `${AUTHORIZATION_GROUP}/v1`, kind: 'SubjectAccessReview', status: { allowed: true } });
  const server = https.createServer({ cert: certs.certPem, key: certs.keyPem }, (req, res) => {
    req.resume();
    req.on('end', () => {
      calls++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/authorize`,
    caPem: certs.caCertPem,
    calls: () => calls,
    close: () => {
      server.closeAllConnections();
      server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function main(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { rounds: { type: 'string' } } });
  const rounds = Number(values.rounds ?? 2);
  const hook = await allowingWebhook();
  const tokens = (dir: string) => writeFileSync(join(dir, 'users.csv'), 'bench-token,bench-user,bench-uid,bench-group\n');
  const withWebhook = (dir: string) => {
    tokens(dir);
    writeFileSync(join(dir, 'hook.kubeconfig'), `clusters:\n- name: hook\n  cluster:\n    server: ${hook.url}\n    certificate-authority-data: ${Buffer.from(hook.caPem).toString('base64')}\n`);
    const webhook = {
      timeout: '3s',
      subjectAccessReviewVersion: 'v1',
      matchConditionSubjectAccessReviewVersion: 'v1',
      failurePolicy: 'NoOpinion',
      connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: join(dir, 'hook.kubeconfig') },
    };
    const authorizers = [{ type: 'Webhook', name: 'bench', webhook }, { type: 'RBAC', name: 'rbac' }];
    writeFileSync(join(dir, 'authz.json'), JSON.stringify({ apiVersion: `${AUTHORIZATION_CONFIG_GROUP}/v1beta1`, kind: 'AuthorizationConfiguration', authorizers }));
  };
  const rbacChild = await startChild(['--authorization-mode=RBAC', '--token-auth-file={dir}/users.csv'], tokens);
  const hookChild = await startChild(['--authorization-config={dir}/authz.json', '--token-auth-file={dir}/users.csv'], withWebhook);
  const results: Record<string, number[]> = { RBAC: [], Webhook: [] };
  const p99: Record<string, number[]> = { RBAC: [], Webhook: [] };
  const errors: Record<string, number> = { RBAC: 0, Webhook: 0 };
  try {
    const servers: [string, Target][] = [['RBAC', rbacChild.target], ['Webhook', hookChild.target]];
    for (const [, admin] of servers) {
      const [s] = await connectAll(admin, 1);
      await request(s!, admin, 'POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'target' }, data: { a: 'b' } });
      await request(s!, admin, 'POST', `/apis/${RBAC_GROUP}/v1/clusterrolebindings`, {
        apiVersion: `${RBAC_GROUP}/v1`, kind: 'ClusterRoleBinding', metadata: { name: 'bench-view' },
        roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'User', apiGroup: RBAC_GROUP, name: 'bench-user' }],
      });
      s!.close();
    }
    await new Promise((r) => setTimeout(r, 500));
    // A short unmeasured phase each, so neither server's first measured phase pays for JIT warm-up.
    for (const [, admin] of servers) {
      const user: Target = { ...admin, token: 'bench-token' };
      const sessions = await connectAll(user, 8);
      await runFor(Math.min(PHASE_MS, 1500), CLIENTS, (w) => request(sessions[w % 8]!, user, 'GET', PATH));
      for (const s of sessions) s.close();
    }
    for (let round = 0; round < rounds; round++) {
      for (const [mode, admin] of servers) {
        const user: Target = { ...admin, token: 'bench-token' };
        const sessions = await connectAll(user, 8);
        await request(sessions[0]!, user, 'GET', PATH); // warms the webhook's cache
        const r = await runFor(PHASE_MS, CLIENTS, (w) => request(sessions[w % 8]!, user, 'GET', PATH));
        for (const s of sessions) s.close();
        results[mode]!.push(r.perSecond);
        p99[mode]!.push(r.p99);
        errors[mode]! += r.errors;
      }
    }
  } finally {
    await rbacChild.stop();
    await hookChild.stop();
    hook.close();
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const rows = (['RBAC', 'Webhook'] as const).map((mode) => ({
    authorizer: mode === 'RBAC' ? 'RBAC' : 'Webhook (warm cache), then RBAC',
    'GET/s (mean)': fmt(mean(results[mode]!)),
    'GET/s per phase': results[mode]!.map((x) => fmt(x)).join(' / '),
    'p99 ms': fmt(Math.max(...p99[mode]!), 1),
    errors: String(errors[mode]),
  }));
  const ratio = mean(results.Webhook!) / mean(results.RBAC!);
  console.log(`authz benchmark: ${cpus().length} cores, node ${process.version}, ${new Date().toISOString().slice(0, 10)}, ${CLIENTS} clients, ${rounds} x ${PHASE_MS} ms phases; webhook calls: ${hook.calls()}; webhook rate is ${fmt(ratio * 100)} % of RBAC`);
  console.table(rows);
}
