/** The test kit: what `startServer()` from the package entry adds for tests (see test-server.ts). */
export { startTestServer, type TestServer, type TestServerOptions } from './test-server.js';
export type { Injection, InjectionHandle, RecordedRequest, RequestMatch } from './faults.js';
export type { FixtureInput } from './fixtures.js';
export type { KubeConfigLike } from './kubeconfig.js';
export type { TestUser } from './users.js';
