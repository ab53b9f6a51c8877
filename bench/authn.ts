/**
 * Authentication cost (issue 16): GET throughput with an OIDC ID token (verified once, then served from the
 * verified-token cache) against the same GETs with a static token, on one in-process server, alternating
 * the two so that drift in the machine's load hits both alike. `npm run bench -- authn [--rounds N]`
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startServer } from '../src/index.js';
import { startOidcIssuer } from '../test/helpers/oidc-issuer.js';
import { connectAll, request, type Target } from './api.js';
import { fmt, runFor } from './stats.js';

const PHASE_MS = Number(process.env.BENCH_PHASE_MS ?? 3000);
const CLIENTS = 64;
const SESSIONS = 8;

export async function main(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { rounds: { type: 'string' } } });
  const rounds = Number(values.rounds ?? 2);
  const dir = mkdtempSync(join(tmpdir(), 'orch-bench-authn-'));
  const issuer = await startOidcIssuer();
  writeFileSync(join(dir, 'users.csv'), 'bench-static-token,bench-static,bench-uid\n');
  const server = await startServer({
    port: 0,
    dataDir: join(dir, 'data'),
    storage: { type: 'memory' },
    authorizationModes: ['AlwaysAllow'], // the same authorization for both users: only authentication differs
    tokenAuthFile: join(dir, 'users.csv'),
    oidc: { issuerURL: issuer.url, clientID: 'orch-test', caFile: issuer.caFile },
  });
  try {
    const admin: Target = { url: server.url, token: server.adminToken, ca: server.caCertPem };
    const sessions = await connectAll(admin, SESSIONS);
    const path = '/api/v1/namespaces/default/configmaps/target';
    await request(sessions[0]!, admin, 'POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'target' }, data: { a: 'b' } });
    const users: Record<string, Target> = {
      static: { ...admin, token: 'bench-static-token' },
      oidc: { ...admin, token: issuer.mint({ sub: 'bench-oidc', exp: Math.floor(Date.now() / 1000) + 3600 }) },
    };
    // Warm up both paths (the first OIDC request verifies the token and fetches the issuer's keys).
    for (const t of Object.values(users)) await request(sessions[0]!, t, 'GET', path);
    const totals: Record<string, { ops: number; seconds: number; p99: number[]; errors: number }> = {};
    for (let r = 0; r < rounds; r++) {
      for (const [name, t] of Object.entries(users)) {
        const res = await runFor(PHASE_MS, CLIENTS, (w) => request(sessions[w % SESSIONS]!, t, 'GET', path));
        const acc = (totals[name] ??= { ops: 0, seconds: 0, p99: [], errors: 0 });
        acc.ops += res.ops;
        acc.seconds += res.seconds;
        acc.p99.push(res.p99);
        acc.errors += res.errors;
      }
    }
    for (const s of sessions) s.close();
    const rate = (n: string) => totals[n]!.ops / totals[n]!.seconds;
    const rows = Object.keys(users).map((n) => ({ token: n, 'GET/s': fmt(rate(n)), 'p99 ms (worst round)': fmt(Math.max(...totals[n]!.p99), 1), errors: String(totals[n]!.errors) }));
    console.log(
      `authn benchmark: ${cpus().length} cores, node ${process.version}, ${new Date().toISOString().slice(0, 10)}, in-process server, ${CLIENTS} clients, ` +
        `${rounds} alternating rounds of ${PHASE_MS} ms; OIDC rate is ${fmt((rate('oidc') / rate('static')) * 100)} % of static; issuer calls: ${issuer.calls.discovery} discovery, ${issuer.calls.jwks} JWKS`,
    );
    console.table(rows);
  } finally {
    await server.close();
    await issuer.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
