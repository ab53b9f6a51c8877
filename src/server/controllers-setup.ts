/**
 * The controller manager run inside the API server (issue 19): the same ControllerManager as
 * `orch-controller-manager`, a client of this server like any other. Its requests go straight into the
 * server's filter chain (the client's direct transport) instead of over HTTPS loopback, so authentication,
 * authorization, admission and audit apply to every controller request, without TLS and HTTP/2 framing for
 * each watch event.
 *
 * Its credential is the server's admin token (group system:masters), the counterpart of the reference's
 * privileged loopback client: it works under every authorization mode (RBAC, Webhook, ABAC, Node), where a
 * separate user would need the administrator to grant it in each of them. With leader election on (the
 * default), several servers on one store run one active set of controllers.
 */
import { CONTROLLER_MANAGER_LEASE_NAME, SYSTEM_NAMESPACE } from '../api/naming.js';
import { DEFAULT_TIMINGS, validateLeaderElection, type DirectHandler, type LeaderElectionTimings } from '../client/index.js';
import { normalizeControllerList } from '../config/controller-names.js';
import { ALL_CONTROLLERS, ControllerManager, controllerSettings, type ControllerDescriptor } from '../controllers/index.js';

/** Tuning of the in-process manager (tests shorten the lease; the defaults are the reference's). */
export interface InProcessManagerOptions extends Partial<LeaderElectionTimings> {
  leaderElect?: boolean;
  useServiceAccountCredentials?: boolean;
  /** Replaces the built-in controllers (tests run probes). */
  descriptors?: readonly ControllerDescriptor[];
  identity?: string;
}

/**
 * The `controllers` server option to the manager's list: undefined/true = `*`, false or an empty list = no
 * manager. A bad name fails the start with the option's name and the item's index.
 */
export function controllerList(option: boolean | readonly string[] | undefined): string[] | undefined {
  if (option === false) return undefined;
  if (option === undefined || option === true) return ['*'];
  if (option.length === 0) return undefined;
  const problems: string[] = [];
  const list = normalizeControllerList(option, '--controllers', problems);
  if (problems.length) throw new Error(problems.join('; '));
  return list;
}

/** Checks the tuning before anything is opened; throws naming the option and field. */
export function checkInProcessManager(o: InProcessManagerOptions | undefined): void {
  if (!o) return;
  const errs = validateLeaderElection(o);
  if (errs.length) throw new Error(`controllerManager: ${errs.join('; ')}`);
}

export interface LoopbackFacts {
  url: string;
  caCertPem: string;
  /** The CA's key when the server made its own CA: the in-process CSR signer signs with it. */
  caKeyPem?: string;
  adminToken: string;
  /** The server's filter chain: the manager's requests enter it directly. */
  handler: DirectHandler;
}

/** Starts the manager (after the server listens); the returned function stops it and releases the lease. */
export function startInProcessControllers(list: string[], server: LoopbackFacts, o: InProcessManagerOptions, log: (m: string) => void): () => Promise<void> {
  const credentials = { token: server.adminToken };
  const manager = new ControllerManager({
    connection: { server: server.url, caPem: server.caCertPem, credentials: { get: () => credentials }, userAgent: 'orch-apiserver/controller-manager', direct: server.handler },
    descriptors: o.descriptors ?? ALL_CONTROLLERS,
    controllers: list,
    ...(o.identity ? { identity: o.identity } : {}),
    leaderElection: {
      leaderElect: o.leaderElect ?? true,
      leaseDurationMs: o.leaseDurationMs ?? DEFAULT_TIMINGS.leaseDurationMs,
      renewDeadlineMs: o.renewDeadlineMs ?? DEFAULT_TIMINGS.renewDeadlineMs,
      retryPeriodMs: o.retryPeriodMs ?? DEFAULT_TIMINGS.retryPeriodMs,
      resourceLock: 'leases',
      resourceName: CONTROLLER_MANAGER_LEASE_NAME,
      resourceNamespace: SYSTEM_NAMESPACE,
    },
    useServiceAccountCredentials: o.useServiceAccountCredentials ?? false,
    settings: controllerSettings({
      rootCaPem: server.caCertPem,
      ...(server.caKeyPem ? { clusterSigning: { certPem: server.caCertPem, keyPem: server.caKeyPem } } : {}),
    }),
    log: (m) => log(`controller manager: ${m}`),
  });
  manager.start();
  return () => manager.stop();
}
