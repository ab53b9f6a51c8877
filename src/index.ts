/**
 * The package entry point: `import { startServer } from "orch"` runs the API server in-process, with the
 * test kit's additions (kubeconfigs, fixtures, reset, fault injection; src/testing/).
 */
export { startTestServer as startServer, type TestServer, type TestServerOptions } from './testing/index.js';
export type { FixtureInput, Injection, InjectionHandle, KubeConfigLike, RecordedRequest, RequestMatch, TestUser } from './testing/index.js';
export { type ServerOptions, type RunningServer } from './server/index.js';
export { ManualClock, systemClock, type Clock } from './util/clock.js';
export { Client, SharedInformer, InformerFactory, WorkQueue, LeaderElector, retryOnConflict, type KubeObject } from './client/index.js';
