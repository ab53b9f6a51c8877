/**
 * `orch-controller-manager` flags → manager options. `--config` (an OrchControllerManagerConfiguration,
 * spec 2.12) is read first; a flag given on the command line overrides the file's field, as the reference
 * does. Every problem is an Error naming the flag (or the file and the field path).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CONTROLLER_MANAGER_LEASE_NAME, SYSTEM_NAMESPACE } from '../api/naming.js';
import { validateLeaderElection } from '../client/index.js';
import { parseControllerManagerConfiguration, type ControllerManagerConfiguration } from '../config/controller-manager.js';
import { normalizeControllerList } from '../config/controller-names.js';
import type { Decoded } from '../config/fields.js';
import type { ManagerLeaderElection } from '../controllers/manager.js';
import type { SettingsInput } from '../controllers/settings.js';
import { parseGoDuration } from '../util/duration.js';

export const USAGE = `orch-controller-manager: runs the built-in controllers against an API server

  --kubeconfig=PATH                      the server and credential to use (else the usual kubeconfig search)
  --config=PATH                          an OrchControllerManagerConfiguration file; flags override its fields
  --controllers=LIST                     "*" (all but bootstrap-signer and token-cleaner), NAME, -NAME; first item for a name wins (default *)
  --use-service-account-credentials      run each controller as its own service account in the system namespace
  --leader-elect=true                    campaign for the lease before running controllers
  --leader-elect-lease-duration=15s      --leader-elect-renew-deadline=10s   --leader-elect-retry-period=2s
  --leader-elect-resource-lock=leases    --leader-elect-resource-name=NAME   --leader-elect-resource-namespace=NS
  --cluster-signing-cert-file=PATH       --cluster-signing-key-file=PATH     CA that signs approved CSRs of the built-in signers
  --cluster-signing-duration=8760h       longest validity of a signed certificate
  --terminated-pod-gc-threshold=12500    terminated pods kept before pod GC deletes the oldest (0 = off)
  --root-ca-file=PATH                    CA bundle published in every namespace (else the kubeconfig's CA)
  --concurrent-namespace-syncs=10        --concurrent-gc-syncs=20            --concurrent-ttl-after-finished-syncs=5
  --controller-start-interval=0s         pause between starting two controllers
  --secure-port=10257                    HTTPS port of /healthz and /metrics (0 = none)
  --bind-address=0.0.0.0                 address of the secure port
  -h, --help
`;

export interface ControllerManagerCli {
  kubeconfig?: string;
  controllers: string[];
  useServiceAccountCredentials: boolean;
  leaderElection: ManagerLeaderElection;
  clusterSigningCertFile?: string;
  clusterSigningKeyFile?: string;
  settings: Omit<SettingsInput, 'clusterSigning' | 'rootCaPem'>;
  rootCaFile?: string;
  controllerStartIntervalMs: number;
  securePort: number;
  bindAddress: string;
}

const DURATION_FLAGS = ['leader-elect-lease-duration', 'leader-elect-renew-deadline', 'leader-elect-retry-period', 'cluster-signing-duration', 'controller-start-interval'] as const;
const STRING_FLAGS = ['kubeconfig', 'config', 'controllers', 'leader-elect-resource-lock', 'leader-elect-resource-name', 'leader-elect-resource-namespace', 'cluster-signing-cert-file', 'cluster-signing-key-file', 'root-ca-file', 'bind-address'] as const;
const INT_FLAGS = ['terminated-pod-gc-threshold', 'concurrent-namespace-syncs', 'concurrent-gc-syncs', 'concurrent-ttl-after-finished-syncs', 'secure-port'] as const;
const BOOL_FLAGS = ['leader-elect', 'use-service-account-credentials'] as const;

function duration(flag: string, v: string): number {
  const ms = parseGoDuration(v);
  if (ms === undefined || ms < 0) throw new Error(`--${flag}: invalid duration "${v}" (examples: 15s, 1m30s, 8760h)`);
  return ms;
}

function int(flag: string, v: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!/^-?\d+$/.test(v) || Number(v) < min || Number(v) > max) throw new Error(`--${flag}: invalid value "${v}" (an integer from ${min}${max === Number.MAX_SAFE_INTEGER ? '' : ` to ${max}`})`);
  return Number(v);
}

function bool(flag: string, v: string | boolean): boolean {
  if (v === true || v === 'true' || v === '1') return true;
  if (v === false || v === 'false' || v === '0') return false;
  throw new Error(`--${flag}: invalid boolean "${v}" (true or false)`);
}

/** The file's values for the fields the flags also set; defaults when no file is given. */
function fromFile(path: string | undefined): ControllerManagerConfiguration | undefined {
  if (path === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new Error(`--config: cannot read ${path}: ${(e as Error).message}`);
  }
  try {
    return parseControllerManagerConfiguration(text);
  } catch (e) {
    throw new Error(`--config: ${path}: ${(e as Error).message}`);
  }
}

/** Parses the command line; every problem is an Error naming the flag. */
export function parseControllerManagerFlags(argv: string[]): ControllerManagerCli | 'help' {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = { help: { type: 'boolean', short: 'h' } };
  for (const f of [...STRING_FLAGS, ...DURATION_FLAGS, ...INT_FLAGS]) options[f] = { type: 'string' };
  // Booleans take `--flag`, `--flag=true` and `--flag=false`, as the reference's; parseArgs sees strings.
  for (const f of BOOL_FLAGS) options[f] = { type: 'string' };
  const bare = argv.map((a) => (BOOL_FLAGS.some((f) => a === `--${f}`) ? `${a}=true` : a));
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({ args: bare, options, strict: true, allowPositionals: false }).values as Record<string, string | boolean | undefined>;
  } catch (e) {
    throw new Error((e as Error).message.replace(/\. To specify a positional argument.*$/s, ''));
  }
  if (values.help) return 'help';
  const s = (f: string) => values[f] as string | undefined;
  const file = fromFile(s('config'));
  const g = file?.Generic;
  const le = g?.LeaderElection as Decoded | undefined;
  const block = (name: string) => (file?.[name] as Decoded | undefined) ?? {};

  let controllers = g?.Controllers ?? ['*'];
  const listFlag = s('controllers');
  if (listFlag !== undefined) {
    const problems: string[] = [];
    controllers = normalizeControllerList(listFlag === '' ? [] : listFlag.split(',').map((x) => x.trim()), '--controllers', problems);
    if (problems.length) throw new Error(problems.join('; '));
  }
  if (block('GarbageCollectorController').EnableGarbageCollector === false && listFlag === undefined) controllers = ['-garbage-collector-controller', ...controllers];

  const leaderElection: ManagerLeaderElection = {
    leaderElect: s('leader-elect') !== undefined ? bool('leader-elect', s('leader-elect') as string) : ((le?.leaderElect as boolean | undefined) ?? true),
    leaseDurationMs: s('leader-elect-lease-duration') !== undefined ? duration('leader-elect-lease-duration', s('leader-elect-lease-duration') as string) : ((le?.leaseDuration as number | undefined) ?? 15_000),
    renewDeadlineMs: s('leader-elect-renew-deadline') !== undefined ? duration('leader-elect-renew-deadline', s('leader-elect-renew-deadline') as string) : ((le?.renewDeadline as number | undefined) ?? 10_000),
    retryPeriodMs: s('leader-elect-retry-period') !== undefined ? duration('leader-elect-retry-period', s('leader-elect-retry-period') as string) : ((le?.retryPeriod as number | undefined) ?? 2_000),
    resourceLock: s('leader-elect-resource-lock') ?? ((le?.resourceLock as string | undefined) ?? 'leases'),
    resourceName: s('leader-elect-resource-name') ?? ((le?.resourceName as string | undefined) || CONTROLLER_MANAGER_LEASE_NAME),
    resourceNamespace: s('leader-elect-resource-namespace') ?? ((le?.resourceNamespace as string | undefined) || SYSTEM_NAMESPACE),
  };
  if (leaderElection.leaderElect) {
    const flagOf: Record<string, string> = { leaseDuration: 'lease-duration', renewDeadline: 'renew-deadline', retryPeriod: 'retry-period', resourceLock: 'resource-lock', resourceName: 'resource-name', resourceNamespace: 'resource-namespace' };
    const errs = validateLeaderElection(leaderElection);
    const where = (field: string) => {
      const flag = `leader-elect-${flagOf[field] ?? field}`;
      return s(flag) === undefined && file ? `--config: ${s('config')}: Generic.LeaderElection.${field}` : `--${flag}`;
    };
    if (errs.length) throw new Error(errs.map((e) => `${where(e.split(':')[0] as string)}: ${e.slice(e.indexOf(':') + 1).trim()}`).join('; '));
  }

  const signing = block('CSRSigningController');
  const concurrency: Record<string, number> = {};
  const conc = (flag: string, controller: string, fileValue: unknown) => {
    const v = s(flag);
    if (v !== undefined) concurrency[controller] = int(flag, v, 1);
    else if (typeof fileValue === 'number') concurrency[controller] = fileValue;
  };
  conc('concurrent-namespace-syncs', 'namespace-controller', block('NamespaceController').ConcurrentNamespaceSyncs);
  conc('concurrent-gc-syncs', 'garbage-collector-controller', block('GarbageCollectorController').ConcurrentGCSyncs);
  conc('concurrent-ttl-after-finished-syncs', 'ttl-after-finished-controller', block('TTLAfterFinishedController').ConcurrentTTLSyncs);

  const cert = s('cluster-signing-cert-file') ?? ((signing.ClusterSigningCertFile as string | undefined) || undefined);
  const key = s('cluster-signing-key-file') ?? ((signing.ClusterSigningKeyFile as string | undefined) || undefined);
  if ((cert === undefined) !== (key === undefined)) throw new Error(`--${cert === undefined ? 'cluster-signing-cert-file' : 'cluster-signing-key-file'}: required together with --${cert === undefined ? 'cluster-signing-key-file' : 'cluster-signing-cert-file'}`);
  const gcThreshold = s('terminated-pod-gc-threshold');
  const rootCa = s('root-ca-file') ?? ((block('SAController').RootCAFile as string | undefined) || undefined);
  const kubeconfig = s('kubeconfig') ?? (((g?.ClientConnection as Decoded | undefined)?.kubeconfig as string | undefined) || undefined);
  return {
    ...(kubeconfig ? { kubeconfig } : {}),
    controllers,
    useServiceAccountCredentials: s('use-service-account-credentials') !== undefined ? bool('use-service-account-credentials', s('use-service-account-credentials') as string) : (block('KubeCloudShared').UseServiceAccountCredentials as boolean | undefined) ?? false,
    leaderElection,
    ...(cert ? { clusterSigningCertFile: cert } : {}),
    ...(key ? { clusterSigningKeyFile: key } : {}),
    settings: {
      clusterSigningDurationMs: s('cluster-signing-duration') !== undefined ? duration('cluster-signing-duration', s('cluster-signing-duration') as string) : ((signing.ClusterSigningDuration as number | undefined) ?? 365 * 24 * 3600 * 1000),
      terminatedPodGcThreshold: gcThreshold !== undefined ? int('terminated-pod-gc-threshold', gcThreshold, 0) : ((block('PodGCController').TerminatedPodGCThreshold as number | undefined) ?? 12500),
      concurrency,
    },
    ...(rootCa ? { rootCaFile: rootCa } : {}),
    controllerStartIntervalMs: s('controller-start-interval') !== undefined ? duration('controller-start-interval', s('controller-start-interval') as string) : ((g?.ControllerStartInterval as number | undefined) ?? 0),
    securePort: int('secure-port', s('secure-port') ?? '10257', 0, 65535),
    bindAddress: s('bind-address') ?? '0.0.0.0',
  };
}
