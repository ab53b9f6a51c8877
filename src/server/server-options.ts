/**
 * What `startServer` takes (the flags of `orch-apiserver` as options) and what it returns. Kept apart from
 * the start-up sequence in server.ts so that file reads as that sequence.
 */
import type { DirectHandler } from '../client/index.js';
import type { Naming } from '../api/naming.js';
import type { AuditWebhookOptions } from '../audit/webhook-sink.js';
import type { AdmissionOptions } from '../admission/index.js';
import type { RuntimeConfig } from '../registry/resources/versions.js';
import type { Backend, BackendSpec, HistoryOptions } from '../storage/index.js';
import type { AuthOptions } from './auth-setup.js';
import type { AuditOptions } from './audit-setup.js';
import type { EncryptionOptions } from './encryption-setup.js';
import type { FlowControlOptions } from './apf-setup.js';
import type { MetricsOptions } from './metrics-setup.js';
import type { RequestObserver } from './chain.js';
import type { InProcessManagerOptions } from './controllers-setup.js';

export interface ServerOptions extends AuthOptions, AdmissionOptions, AuditOptions, EncryptionOptions, FlowControlOptions, MetricsOptions {
  /** Certificates, the admin token file, admin.kubeconfig and the SQLite file live here. Default: a temp dir. */
  dataDir?: string;
  bindAddress?: string;
  /** 0 picks a free port. */
  port?: number;
  storage?: BackendSpec;
  history?: HistoryOptions;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  shutdownDelayMs?: number;
  livezGracePeriodMs?: number;
  /** Defaults 400 and 200, as the reference; 0 = unlimited. */
  maxRequestsInflight?: number;
  maxMutatingRequestsInflight?: number;
  /** `--feature-gates`: name to on/off, resolved by FeatureGates.resolve (src/features/). */
  featureGates?: Record<string, boolean>;
  /** `--runtime-config` (spec 9.4): the flag's text, or key to on/off; unknown or removed versions fail the start. */
  runtimeConfig?: string | RuntimeConfig;
  /** Watch tuning (tests shorten these): bookmark period, and the base of the randomized default timeout. */
  watchBookmarkIntervalMs?: number;
  minRequestTimeoutSeconds?: number;
  /** Events a watcher may fall behind before its watch is ended. Default 10,000. */
  watchMaxQueue?: number;
  /** The same bound in bytes of queued events. Default 64 MiB. */
  watchMaxQueueBytes?: number;
  /** A response with bytes to send that makes no progress for this long is cut off. Default 60 s; 0 = never. */
  writeStallTimeoutMs?: number;
  /** Write admin.kubeconfig into the data dir (the CLI does; in-process servers need not). */
  writeKubeconfig?: boolean;
  /**
   * Run the start-up bootstrap (default namespaces, default RBAC) and the in-process controller manager
   * (src/controllers/, over HTTPS loopback, under leader election). Default true (= every controller `*`
   * turns on); a list is `--controllers` (spec 2.12 rule), and an empty list keeps the bootstrap but runs
   * no manager (a separate orch-controller-manager does the work). false = neither: the extra worker
   * processes of one server (`--workers`) leave both to worker 1. The RBAC index feed runs either way.
   */
  controllers?: boolean | string[];
  /** Tuning of the in-process controller manager (lease timings, service account credentials). */
  controllerManager?: InProcessManagerOptions;
  log?: (msg: string) => void;
  /** `--service-cluster-ip-range` (default 10.0.0.0/24) and `--service-node-port-range` (default 30000-32767). */
  serviceClusterIPRange?: string;
  serviceNodePortRange?: string;
  /** `--audit-webhook-*`: the audit webhook backend (buildWebhookAuditSink in audit/webhook-sink.ts). */
  auditWebhook?: AuditWebhookOptions;
  /** `--egress-selector-config-file`: how webhook and etcd calls leave the server (src/egress/). */
  egressSelectorConfigFile?: string;
  /** `--tracing-config-file`: request, storage and webhook spans exported over OTLP/gRPC (src/tracing/). */
  tracingConfigFile?: string;
  /** Test tooling's hook into the filter chain (src/testing/): recording, injected faults. */
  requestObserver?: RequestObserver;
  /** Identifiers spelled as the spec does (`orch`, default) or as the reference does (`k8s`; issue 21). */
  naming?: Naming;
}

export interface RunningServer {
  url: string;
  port: number;
  caCertPem: string;
  adminToken: string;
  dataDir: string;
  kubeconfigPath?: string;
  backend: Backend;
  /** The store itself, under encryption at rest: values as stored (what a snapshot of the store copies). */
  storageBackend: Backend;
  /** The naming this server's identifiers are spelled in. */
  naming: Naming;
  /**
   * The filter chain, for clients in this process: `new Client({ server: url, credentials, direct })` sends
   * its requests straight into it (authentication, authorization, admission and audit as for any request),
   * without TLS or HTTP/2. The in-process controller manager connects this way.
   */
  direct: DirectHandler;
  /**
   * Resolves true once every watch cache holding one of `keys` has seen the store at `revision` (false after
   * `timeoutMs`): direct backend writes (a test reset) are then visible to every reader.
   */
  cachesReached(keys: readonly string[], revision: number, timeoutMs?: number): Promise<boolean>;
  /** `/readyz` fails, the server keeps serving for the shutdown delay, drains requests, then closes. */
  shutdown(): Promise<void>;
  /** Stops at once (after in-flight requests) and releases every handle. */
  close(): Promise<void>;
}
