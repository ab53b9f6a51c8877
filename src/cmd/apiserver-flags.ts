import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { ServerOptions } from '../server/index.js';
import type { BackendSpec } from '../storage/index.js';

export const USAGE = `orch-apiserver: the cluster resource API server

  --secure-port=6443              HTTPS port (HTTP/2 and HTTP/1.1); 0 picks a free port
  --bind-address=127.0.0.1        address to listen on
  --data-dir=./orch-data          certificates, admin credentials, admin.kubeconfig and the SQLite store
  --storage-backend=sqlite        sqlite | etcd | memory
  --etcd-servers=URL[,URL]        etcd client URLs (with --storage-backend=etcd)
  --tls-cert-file, --tls-private-key-file   serve this certificate instead of the generated one
  --token-auth-file=PATH          static tokens: CSV token,user,uid[,groups...]
  --anonymous-auth=true           treat requests without credentials as system:anonymous
  --authorization-mode=AlwaysAllow   comma list: AlwaysAllow, AlwaysDeny
  --shutdown-delay-duration=0s    keep serving this long after SIGTERM while /readyz fails
  --livez-grace-period=0s         failing livez checks report ok for this long after start
  --feature-gates=WatchList=true  alpha/beta features (WatchList: alpha, off; APIResponseCompression: beta, on)
  --max-requests-inflight=400     concurrent read requests before 429 (0 = unlimited)
  --max-mutating-requests-inflight=200   concurrent writes before 429 (0 = unlimited)
`;

/** Parses a duration like `70s`, `1m30s`, `500ms` or a bare number of seconds. */
export function parseDuration(flag: string, v: string): number {
  if (/^\d+(\.\d+)?$/.test(v)) return Number(v) * 1000;
  const re = /(\d+(?:\.\d+)?)(ms|h|m|s)/gy;
  let total = 0;
  let m: RegExpExecArray | null;
  let consumed = 0;
  while ((m = re.exec(v))) {
    const n = Number(m[1]);
    total += m[2] === 'ms' ? n : m[2] === 's' ? n * 1000 : m[2] === 'm' ? n * 60_000 : n * 3_600_000;
    consumed = re.lastIndex;
  }
  if (consumed !== v.length || v === '') throw new Error(`${flag}: invalid duration "${v}" (examples: 30s, 1m30s, 500ms)`);
  return total;
}

function parseBool(flag: string, v: string): boolean {
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw new Error(`${flag}: invalid boolean "${v}" (true or false)`);
}

/** `--feature-gates=A=true,B=false` */
export function parseFeatureGates(v: string): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const part of v.split(',').map((p) => p.trim()).filter(Boolean)) {
    const [k, val] = part.split('=');
    if (!k || (val !== 'true' && val !== 'false')) throw new Error(`--feature-gates: invalid entry "${part}" (expected Name=true or Name=false)`);
    out[k] = val === 'true';
  }
  return out;
}

function parseCount(flag: string, v: string): number {
  if (!/^\d+$/.test(v)) throw new Error(`${flag}: invalid count "${v}" (a non-negative integer; 0 = unlimited)`);
  return Number(v);
}

/** Flags to ServerOptions. Every problem is an Error naming the flag (a start-up error, exit code 1). */
export function parseFlags(argv: string[]): ServerOptions | 'help' {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      help: { type: 'boolean', short: 'h' },
      'secure-port': { type: 'string' },
      'bind-address': { type: 'string' },
      'data-dir': { type: 'string' },
      'storage-backend': { type: 'string' },
      'etcd-servers': { type: 'string' },
      'etcd-prefix': { type: 'string' },
      'tls-cert-file': { type: 'string' },
      'tls-private-key-file': { type: 'string' },
      'token-auth-file': { type: 'string' },
      'anonymous-auth': { type: 'string' },
      'authorization-mode': { type: 'string' },
      'shutdown-delay-duration': { type: 'string' },
      'livez-grace-period': { type: 'string' },
      'max-requests-inflight': { type: 'string' },
      'feature-gates': { type: 'string' },
      'max-mutating-requests-inflight': { type: 'string' },
    },
  });
  if (values.help) return 'help';
  const port = Number(values['secure-port'] ?? 6443);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--secure-port: invalid port "${values['secure-port']}"`);
  const dataDir = resolve(values['data-dir'] ?? './orch-data');
  const kind = values['storage-backend'] ?? 'sqlite';
  let storage: BackendSpec;
  if (kind === 'sqlite') storage = { type: 'sqlite', path: resolve(dataDir, 'orch.db') };
  else if (kind === 'memory') storage = { type: 'memory' };
  else if (kind === 'etcd') {
    const servers = (values['etcd-servers'] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    if (servers.length === 0) throw new Error('--etcd-servers: required with --storage-backend=etcd');
    storage = { type: 'etcd', endpoints: servers, ...(values['etcd-prefix'] ? { keyPrefix: values['etcd-prefix'] } : {}) };
  } else throw new Error(`--storage-backend: unknown backend "${kind}" (sqlite, etcd or memory)`);
  const opts: ServerOptions = {
    dataDir,
    bindAddress: values['bind-address'] ?? '127.0.0.1',
    port,
    storage,
    anonymousAuth: values['anonymous-auth'] === undefined ? true : parseBool('--anonymous-auth', values['anonymous-auth']),
    authorizationModes: (values['authorization-mode'] ?? 'AlwaysAllow').split(',').map((s) => s.trim()),
    shutdownDelayMs: parseDuration('--shutdown-delay-duration', values['shutdown-delay-duration'] ?? '0s'),
    livezGracePeriodMs: parseDuration('--livez-grace-period', values['livez-grace-period'] ?? '0s'),
    writeKubeconfig: true,
    maxRequestsInflight: parseCount('--max-requests-inflight', values['max-requests-inflight'] ?? '400'),
    maxMutatingRequestsInflight: parseCount('--max-mutating-requests-inflight', values['max-mutating-requests-inflight'] ?? '200'),
  };
  if (values['tls-cert-file']) opts.tlsCertFile = resolve(values['tls-cert-file']);
  if (values['tls-private-key-file']) opts.tlsPrivateKeyFile = resolve(values['tls-private-key-file']);
  if (values['feature-gates']) opts.featureGates = parseFeatureGates(values['feature-gates']);
  if (values['token-auth-file']) opts.tokenAuthFile = resolve(values['token-auth-file']);
  return opts;
}
