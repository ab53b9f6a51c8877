/**
 * The server as tests embed it: `startServer()` from the package entry. Adds to the running server what a
 * test needs (kubeconfigs, fixtures, snapshot and reset, fault injection, request recording, extra users)
 * without putting any of it in the server's own request path: the one hook is the chain's observer.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer as startApiServer, type RunningServer, type ServerOptions } from '../server/index.js';
import { AdminClient } from './admin-client.js';
import { FaultInjector, type Injection, type InjectionHandle, type RecordedRequest } from './faults.js';
import { FixtureLoader, loadManifests, type FixtureInput } from './fixtures.js';
import { clientNodeKubeConfig, kubeconfigObject, kubeconfigText, removeTemps, writeKubeconfigFile, type KubeConfigLike } from './kubeconfig.js';
import { resetTo, takeSnapshot } from './snapshot.js';
import { writeUserTokens, type TestUser } from './users.js';

/** ServerOptions, with `port` defaulting to 0 (a free port) rather than 6443. */
export interface TestServerOptions extends ServerOptions {
  /** Extra users, each with a bearer token (`server.tokens[name]`, `server.kubeconfigFor(name)`). */
  users?: TestUser[];
  /** CustomResourceDefinitions (objects, files, folders, YAML) applied and Established before start returns. */
  crds?: FixtureInput;
  /** Admission webhook configurations (or any other objects) created before start returns. */
  webhooks?: FixtureInput;
  /** `server.requests()` keeps request bodies too. */
  recordBodies?: boolean;
}

export interface TestServer extends RunningServer {
  /** The admin kubeconfig, as a parsed document and as YAML text. */
  kubeconfig: Record<string, unknown>;
  kubeconfigYaml: string;
  /** Bearer token of each extra user (and `admin`). */
  tokens: Record<string, string>;
  /** Writes the admin kubeconfig (to a private temp file by default, removed at close); returns the path. */
  writeKubeconfig(path?: string): string;
  /** The kubeconfig YAML of one extra user. */
  kubeconfigFor(user: string): string;
  /** A `KubeConfig` of `@kubernetes/client-node` (an optional peer dependency) for the admin or a user. */
  kubeConfig(user?: string): Promise<KubeConfigLike>;
  /** Server-side applies manifests in dependency order; returns the stored objects. */
  apply(input: FixtureInput): Promise<Record<string, unknown>[]>;
  /** Records the store's state; `reset()` returns to it. */
  snapshot(): Promise<void>;
  /** Back to the last snapshot (else the state right after start); open watches end cleanly. */
  reset(): Promise<void>;
  inject(spec: Injection): InjectionHandle;
  requests(): RecordedRequest[];
  clearRequests(): void;
}

const ADMIN = 'admin';

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const { users, crds, webhooks, recordBodies, ...serverOptions } = options;
  if (crds !== undefined) {
    loadManifests(crds).forEach((m) => {
      if (m.object.kind !== 'CustomResourceDefinition') throw new Error(`crds: ${m.source}, document ${m.document}: kind ${String(m.object.kind)} is not CustomResourceDefinition`);
    });
  }
  const temps: string[] = [];
  let tokens: Record<string, string> = {};
  if (users && users.length > 0) {
    const dir = mkdtempSync(join(tmpdir(), 'orch-users-'));
    temps.push(dir);
    try {
      const written = writeUserTokens(users, dir, serverOptions.tokenAuthFile);
      serverOptions.tokenAuthFile = written.file;
      tokens = written.tokens;
    } catch (e) {
      removeTemps(temps);
      throw e;
    }
  }
  const faults = new FaultInjector(recordBodies === true);
  let inner: RunningServer;
  try {
    // Port 0 unless given: parallel test workers each get a free port.
    inner = await startApiServer({ port: 0, ...serverOptions, requestObserver: faults });
  } catch (e) {
    removeTemps(temps);
    throw e;
  }
  const admin = new AdminClient(inner.url, inner.caCertPem, inner.adminToken);
  const fixtures = new FixtureLoader(admin);
  // The server's own close ends open watches (the observer's signals are joined with its shutdown).
  const release = async (stop: () => Promise<void>) => {
    admin.close();
    await stop();
    removeTemps(temps);
  };
  try {
    if (crds !== undefined) await fixtures.apply(crds);
    if (webhooks !== undefined) await fixtures.apply(webhooks);
  } catch (e) {
    await release(() => inner.close());
    throw e;
  }
  tokens[ADMIN] = inner.adminToken;
  const adminYaml = kubeconfigText(inner, { user: ADMIN, token: inner.adminToken });
  const yamlFor = (user: string) => {
    if (user === ADMIN) return adminYaml;
    const token = tokens[user];
    if (token === undefined) throw new Error(`no user ${user} on this server; give it in startServer({ users: [{ name: '${user}' }] })`);
    return kubeconfigText(inner, { user, token });
  };
  let snap = await takeSnapshot(inner.storageBackend);
  let closing: Promise<void> | undefined;

  return {
    ...inner,
    kubeconfig: kubeconfigObject(adminYaml),
    kubeconfigYaml: adminYaml,
    tokens,
    writeKubeconfig: (path) => writeKubeconfigFile(adminYaml, temps, path),
    kubeconfigFor: yamlFor,
    kubeConfig: (user = ADMIN) => clientNodeKubeConfig(yamlFor(user)),
    apply: (input) => fixtures.apply(input),
    snapshot: async () => {
      snap = await takeSnapshot(inner.storageBackend);
    },
    reset: async () => {
      faults.closeAllWatches();
      const done = await resetTo(inner.storageBackend, snap);
      if (done.keys.length > 0 && !(await inner.cachesReached(done.keys, done.revision))) {
        throw new Error('reset: the watch caches did not catch up with the restored store within 5 s');
      }
    },
    inject: (spec) => faults.inject(spec),
    requests: () => faults.requests(),
    clearRequests: () => faults.clearRequests(),
    close: () => (closing ??= release(() => inner.close())),
    shutdown: () => (closing ??= release(() => inner.shutdown())),
  };
}


