/**
 * Client configuration: kubeconfig files, the client's global flags and credential sources (token, token
 * file, client certificate, exec plugins), resolved into the `ClusterConnection` of ../contract.ts.
 */
export {
  emptyKubeconfig,
  parseKubeconfig,
  readKubeconfigFile,
  type AuthProviderConfig,
  type ClusterInfo,
  type ContextInfo,
  type Entry,
  type ExecConfig,
  type ExecEnvVar,
  type Kubeconfig,
  type NamedExtension,
  type UserInfo,
} from './model.js';
export { homeDirectory, loadKubeconfigs, loadingPrecedence, mergeKubeconfigs, type ClientEnv, type LoadedKubeconfig, type LoadingPrecedence } from './load.js';
export {
  normaliseServer,
  parseRequestTimeout,
  resolveClientConfig,
  type ClientConfigFlags,
  type Impersonation,
  type ResolveOptions,
  type ResolvedClientConfig,
} from './resolve.js';
export { FILE_RECHECK_MS, RefreshingFile, staticCredentials, type Material } from './credentials.js';
export {
  DEFAULT_EXEC_TIMEOUT_MS,
  EXEC_API_VERSIONS,
  EXEC_KIND,
  ExecCredentialSource,
  checkExecConfig,
  sharedExecSource,
  type CheckedExecConfig,
  type ExecClusterInfo,
  type ExecSourceOptions,
  type InteractiveMode,
} from './exec.js';
export {
  getContexts,
  minify,
  redact,
  saveKubeconfig,
  setCluster,
  setContext,
  setCredentials,
  useContext,
  view,
  type ClusterPatch,
  type ContextPatch,
  type ContextRow,
  type CredentialsPatch,
  type ViewOptions,
} from './write.js';
export { connectionForServer, type StartedServerFacts } from './testing.js';
export type { ClusterConnection, CredentialSource, Credentials } from '../contract.js';
