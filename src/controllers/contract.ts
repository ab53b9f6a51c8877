/**
 * The seam between the controller manager (which picks, elects and starts controllers) and each controller
 * (one folder under src/controllers/, a client of the API like any other process: architecture rule 8).
 */
import { WorkQueue, type Client, type InformerFactory, type WorkQueueOptions } from '../client/index.js';

/** What a running controller is given. */
export interface ControllerContext {
  /**
   * The client this controller acts with: the manager's own, or (with --use-service-account-credentials)
   * one authenticated as `system:serviceaccount:<system namespace>:<serviceAccountName>`.
   */
  client: Client;
  /**
   * Informers shared by every controller of this manager. As in the reference they list and watch with the
   * manager's own identity; `client` (a service account's, with --use-service-account-credentials) is for
   * the controller's own API calls, so its `system:controller:*` role need not grant list and watch.
   */
  informers: InformerFactory;
  /** Ends when the manager stops or loses leadership; the controller must stop its work and return. */
  signal: AbortSignal;
  log(msg: string): void;
  /** Milliseconds since the epoch (a test clock may stand in). */
  now(): number;
  /** Manager settings some controllers read (signing files, thresholds, TTLs); see ControllerManagerSettings. */
  settings: ControllerManagerSettings;
  /**
   * A work queue whose depth, adds and retries the manager exports on /metrics (series labelled `name`,
   * default the controller's name). Optional so hand-built contexts in tests need not give one; use
   * `controllerQueue(ctx)` rather than calling it directly.
   */
  newQueue?<K>(opts?: WorkQueueOptions<K> & { name?: string }): WorkQueue<K>;
}

/** The controller's work queue: the manager's instrumented one when it offers it, else a plain one. */
export function controllerQueue<K = string>(ctx: ControllerContext, opts: WorkQueueOptions<K> & { name?: string } = {}): WorkQueue<K> {
  return ctx.newQueue ? ctx.newQueue<K>(opts) : new WorkQueue<K>(opts);
}

/** Manager-wide settings (flags and the OrchControllerManagerConfiguration document) that controllers read. */
export interface ControllerManagerSettings {
  /** `--cluster-signing-cert-file` / `--cluster-signing-key-file` (PEM text, loaded by the manager). */
  clusterSigning?: { certPem: string; keyPem: string };
  /** `--cluster-signing-duration` in ms (default one year). */
  clusterSigningDurationMs: number;
  /** `--terminated-pod-gc-threshold` (default 12500; 0 = off). */
  terminatedPodGcThreshold: number;
  /** The CA bundle published in every namespace by root-ca-cert-publisher (`--root-ca-file`, else the server's CA). */
  rootCaPem?: string;
  /** Concurrent workers per controller where the configuration names them (default 5, GC 20, namespace 10). */
  concurrency(controller: string): number;
}

/** One controller, by the reference's name (`namespace-controller`, `garbage-collector-controller`, ...). */
export interface ControllerDescriptor {
  name: string;
  /** The service account it runs as with --use-service-account-credentials (the reference's, e.g. `namespace-controller`). */
  serviceAccountName: string;
  /** Runs until `ctx.signal` aborts; resolves once stopped. Throwing is logged by the manager and restarts it. */
  run(ctx: ControllerContext): Promise<void>;
}
