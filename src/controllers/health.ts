/**
 * The controller manager's secure port: `/healthz` (with `verbose`, `exclude` and `/healthz/<check>`, in the
 * API server's format, spec 4.9) and `/metrics`. As in the reference, the health paths are open to anyone
 * (`--authorization-always-allow-paths`), and every other path is authenticated and authorized through the
 * API server (a TokenReview, then a SubjectAccessReview for the non-resource URL).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { AUTHENTICATION_GROUP, AUTHORIZATION_GROUP } from '../api/naming.js';
import type { Client, KubeObject } from '../client/index.js';

export interface HealthCheck {
  name: string;
  /** Throws when failing. */
  check(): void | Promise<void>;
}

/** Answers whether the bearer token may `get` the path; undefined token = anonymous. */
export type PathAuthorizer = (token: string | undefined, path: string) => Promise<boolean>;

export interface ManagerServerOptions {
  bindAddress: string;
  port: number;
  certPem: string;
  keyPem: string;
  checks: () => HealthCheck[];
  metrics: () => Promise<string>;
  metricsContentType: string;
  authorize: PathAuthorizer;
  /** Paths served without authorization (default the reference's: /healthz, /readyz, /livez). */
  alwaysAllowPaths?: readonly string[];
}

export interface RunningManagerServer {
  port: number;
  close(): Promise<void>;
}

export const DEFAULT_ALWAYS_ALLOW_PATHS = ['/healthz', '/readyz', '/livez'];

/** Pure: the `/healthz` answer for the check results (spec 4.9's verbose format). */
export function healthReport(results: { name: string; error?: string }[], query: URLSearchParams, only?: string): { status: number; body: string } {
  if (only !== undefined) {
    const one = results.find((r) => r.name === only);
    if (!one) return { status: 404, body: `no health check named "${only}"\n` };
    return one.error === undefined ? { status: 200, body: 'ok' } : { status: 500, body: `internal server error: ${one.error}\n` };
  }
  const excluded = new Set(query.getAll('exclude').flatMap((v) => v.split(',')));
  const lines: string[] = [];
  let failed = false;
  for (const r of results) {
    if (excluded.has(r.name)) lines.push(`[+]${r.name} excluded: ok`);
    else if (r.error === undefined) lines.push(`[+]${r.name} ok`);
    else {
      failed = true;
      lines.push(`[-]${r.name} failed: reason withheld`);
    }
  }
  const verbose = query.has('verbose') && query.get('verbose') !== 'false';
  if (!failed) return { status: 200, body: verbose ? `${lines.join('\n')}\nhealthz check passed\n` : 'ok' };
  return { status: 500, body: `${lines.join('\n')}\nhealthz check failed\n` };
}

async function runChecks(checks: HealthCheck[]): Promise<{ name: string; error?: string }[]> {
  return Promise.all(
    checks.map(async (c) => {
      try {
        await c.check();
        return { name: c.name };
      } catch (e) {
        return { name: c.name, error: e instanceof Error ? e.message : String(e) };
      }
    }),
  );
}

export async function startManagerServer(o: ManagerServerOptions): Promise<RunningManagerServer> {
  const open = new Set(o.alwaysAllowPaths ?? DEFAULT_ALWAYS_ALLOW_PATHS);
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'https://manager');
    const path = url.pathname;
    const send = (status: number, body: string, type = 'text/plain; charset=utf-8') => {
      res.writeHead(status, { 'content-type': type, 'x-content-type-options': 'nosniff' });
      res.end(body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'method not allowed\n');
    const allowedOpenly = open.has(path) || [...open].some((p) => p.endsWith('*') && path.startsWith(p.slice(0, -1))) || (open.has('/healthz') && path.startsWith('/healthz/'));
    if (!allowedOpenly) {
      const auth = req.headers.authorization;
      const token = auth?.startsWith('Bearer ') ? auth.slice(7).trim() : undefined;
      let allowed = false;
      try {
        allowed = await o.authorize(token, path);
      } catch (e) {
        return send(500, `authorization failed: ${e instanceof Error ? e.message : String(e)}\n`);
      }
      if (!allowed) return send(403, `forbidden: ${token ? 'this user may not' : 'anonymous users may not'} get path "${path}"\n`);
    }
    if (path === '/healthz' || path.startsWith('/healthz/')) {
      const only = path === '/healthz' ? undefined : decodeURIComponent(path.slice('/healthz/'.length));
      const r = healthReport(await runChecks(o.checks()), url.searchParams, only);
      return send(r.status, r.body);
    }
    if (path === '/metrics') return send(200, await o.metrics(), o.metricsContentType);
    return send(404, '404 page not found\n');
  };
  const server: Server = createServer({ cert: o.certPem, key: o.keyPem }, (req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(`internal error: ${e instanceof Error ? e.message : String(e)}\n`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.bindAddress, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

interface Review extends KubeObject {
  spec: Record<string, unknown>;
  status?: { authenticated?: boolean; allowed?: boolean; user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> } };
}

/** How long an answer of the API server is reused, as the reference's delegating defaults (10 s). */
const CACHE_MS = 10_000;

/**
 * Delegated authorization through the API server, with answers cached for ten seconds per token and path.
 * Anonymous requests are reviewed as `system:anonymous`.
 */
export function delegatedAuthorizer(client: Client, now: () => number = Date.now): PathAuthorizer {
  const cache = new Map<string, { allowed: boolean; until: number }>();
  const tokenReviews = client.resource<Review>({ group: AUTHENTICATION_GROUP, version: 'v1', plural: 'tokenreviews' });
  const accessReviews = client.resource<Review>({ group: AUTHORIZATION_GROUP, version: 'v1', plural: 'subjectaccessreviews' });
  return async (token, path) => {
    const key = `${token ?? ''}\u0000${path}`;
    const hit = cache.get(key);
    if (hit && hit.until > now()) return hit.allowed;
    let user: NonNullable<NonNullable<Review['status']>['user']> = { username: 'system:anonymous', groups: ['system:unauthenticated'] };
    let allowed = false;
    if (token !== undefined) {
      const tr = await tokenReviews.create({ apiVersion: `${AUTHENTICATION_GROUP}/v1`, kind: 'TokenReview', metadata: {}, spec: { token } });
      if (tr.status?.authenticated && tr.status.user) user = tr.status.user;
      else user = { username: '' };
    }
    if (user.username) {
      const sar = await accessReviews.create({
        apiVersion: `${AUTHORIZATION_GROUP}/v1`,
        kind: 'SubjectAccessReview',
        metadata: {},
        spec: { user: user.username, ...(user.uid ? { uid: user.uid } : {}), groups: user.groups ?? [], ...(user.extra ? { extra: user.extra } : {}), nonResourceAttributes: { path, verb: 'get' } },
      });
      allowed = sar.status?.allowed === true;
    }
    if (cache.size > 1000) cache.clear();
    cache.set(key, { allowed, until: now() + CACHE_MS });
    return allowed;
  };
}
