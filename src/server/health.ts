/**
 * Health endpoints `/livez`, `/readyz`, `/healthz` and their per-check paths (spec 4.9). The bodies follow the
 * reference's text output because scripts and probes grep it (`[+]name ok`, `... check passed`).
 */
export type HealthEndpoint = 'livez' | 'readyz' | 'healthz';
export type HealthCheck = () => Promise<void> | void;

export interface HealthResponse {
  code: number;
  body: string;
}

export interface HealthChecksOptions {
  /** `--livez-grace-period`: for this long after construction failing livez checks report ok. */
  livezGracePeriodMs?: number;
  /** Clock in milliseconds; injectable for tests. */
  now?: () => number;
}

const ENDPOINTS: readonly HealthEndpoint[] = ['livez', 'readyz', 'healthz'];
const SHUTDOWN = 'shutdown';
const NOT_FOUND: HealthResponse = { code: 404, body: '404 page not found\n' };

function reasonOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

export class HealthChecks {
  private readonly checks = new Map<HealthEndpoint, Map<string, HealthCheck>>(ENDPOINTS.map((e) => [e, new Map()]));
  private readonly now: () => number;
  private readonly graceUntil: number;
  private shuttingDown = false;

  constructor(opts: HealthChecksOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.graceUntil = this.now() + (opts.livezGracePeriodMs ?? 0);
    this.add('ping', () => {}, [...ENDPOINTS]);
    // The reference's `log` check fails when logging is stuck; our logger never blocks the process.
    this.add('log', () => {}, [...ENDPOINTS]);
  }

  /** Registers `check` on the given endpoints; it fails by throwing (the message is the reason). */
  add(name: string, check: HealthCheck, on: HealthEndpoint[]): void {
    if (name === '' || name === SHUTDOWN) throw new Error(`health check name ${JSON.stringify(name)} is reserved`);
    for (const endpoint of on) {
      const map = this.checks.get(endpoint);
      if (!map) continue;
      if (map.has(name)) throw new Error(`health check ${JSON.stringify(name)} is already registered on ${endpoint}`);
      map.set(name, check);
    }
  }

  /**
   * Starts failing readyz so load balancers drain the server while it keeps serving (`--shutdown-delay-duration`).
   * The `shutdown` check is always listed on readyz, as in the reference; this turns it red.
   */
  setShuttingDown(): void {
    this.shuttingDown = true;
  }

  /** The checks of an endpoint in output order: registration order, readyz's `shutdown` last. */
  private list(endpoint: HealthEndpoint): [string, HealthCheck][] {
    const entries = [...(this.checks.get(endpoint) ?? [])];
    if (endpoint === 'readyz') {
      entries.push([
        SHUTDOWN,
        () => {
          if (this.shuttingDown) throw new Error('process is shutting down');
        },
      ]);
    }
    return entries;
  }

  /** Runs one check; throws its reason. Livez checks (except ping) pass during the startup grace period. */
  private async run(endpoint: HealthEndpoint, name: string, check: HealthCheck): Promise<void> {
    try {
      await check();
    } catch (err) {
      if (endpoint === 'livez' && name !== 'ping' && this.now() < this.graceUntil) return;
      throw err;
    }
  }

  async handle(endpoint: HealthEndpoint, subPath: string, query: URLSearchParams): Promise<HealthResponse> {
    const entries = this.list(endpoint);
    if (subPath !== '') {
      const found = entries.find(([name]) => name === subPath);
      if (!found) return NOT_FOUND;
      try {
        await this.run(endpoint, found[0], found[1]);
        return { code: 200, body: 'ok' };
      } catch (err) {
        return { code: 500, body: `internal server error: ${reasonOf(err)}\n` };
      }
    }

    const excluded = new Set(query.getAll('exclude'));
    // Checks run concurrently; the output keeps registration order.
    const results = await Promise.all(
      entries.map(async ([name, check]): Promise<{ name: string; state: 'ok' | 'excluded' | 'failed' }> => {
        if (excluded.has(name)) return { name, state: 'excluded' };
        try {
          await this.run(endpoint, name, check);
          return { name, state: 'ok' };
        } catch {
          return { name, state: 'failed' };
        }
      }),
    );

    let out = '';
    let failed = false;
    for (const r of results) {
      excluded.delete(r.name);
      if (r.state === 'excluded') out += `[+]${r.name} excluded: ok\n`;
      // The endpoint is public: the reason stays out of the body; `/<endpoint>/<check>` shows it.
      else if (r.state === 'failed') {
        out += `[-]${r.name} failed: reason withheld\n`;
        failed = true;
      } else out += `[+]${r.name} ok\n`;
    }
    if (excluded.size > 0) {
      const names = [...excluded].sort().map((n) => JSON.stringify(n));
      out += `warn: some health checks cannot be excluded: no matches for ${names.join(',')}\n`;
    }
    // A failure is always verbose so that a probe's log shows which check failed.
    if (failed) return { code: 500, body: `${out}${endpoint} check failed\n` };
    if (!query.has('verbose')) return { code: 200, body: 'ok' };
    return { code: 200, body: `${out}${endpoint} check passed\n` };
  }
}
