/** The client library: REST and watch over HTTP/2 (or directly into a server in this process), discovery, informers, work queue, retries, leader election. */
export type { ClusterConnection, CredentialSource, Credentials } from './contract.js';
export { Client, type ObjectOptions } from './client.js';
export { Transport, Http2Transport, RequestTimeoutError, type RequestSpec, type RawResponse, type OpenStream } from './transport.js';
export { DirectTransport, DirectRequest, DirectResponse, type DirectHandler } from './direct-transport.js';
export { Discovery, parseApiVersion, groupVersionOf, type ResourceInfo } from './discovery.js';
export {
  ResourceClient,
  PATCH_CONTENT_TYPES,
  TABLE_ACCEPT,
  partialObjectMetadata,
  type WriteOptions,
  type ListOptions,
  type WatchOptions,
  type PatchType,
  type PatchOptions,
  type DeleteOptions,
  type Table,
} from './resource.js';
export { statusErrorFrom, statusErrorFromStatus, isNotFound, isConflict, isAlreadyExists, isGone } from './status-error.js';
export { watchEvents, LineSplitter } from './watch-frames.js';
export { ListWatcher, type ListWatchHandlers, type ListWatchOptions } from './list-watcher.js';
export { Store, NAMESPACE_INDEX, type IndexFunc } from './store.js';
export { SharedInformer, InformerFactory, stripManagedFields, type EventHandlers, type DeleteInfo, type InformerOptions, type InformerKey, type ResourceSource } from './informer.js';
export { WorkQueue, type WorkQueueOptions } from './workqueue.js';
export { ItemExponentialRateLimiter, TokenBucketRateLimiter, MaxOfRateLimiter, defaultControllerRateLimiter, type RateLimiter } from './rate-limiter.js';
export { realClock, FakeClock, type Clock } from './clock.js';
export { backoff, backoffDelay, retryOnConflict, DEFAULT_RETRY, DEFAULT_BACKOFF, type BackoffOptions } from './retry.js';
export {
  LeaderElector,
  LEASE_GVR,
  DEFAULT_TIMINGS,
  validateLeaderElection,
  timingsFromBlock,
  microTime,
  type LeaderElectionConfig,
  type LeaderElectionTimings,
  type LeaderCallbacks,
  type Lease,
} from './leader-election.js';
export { objectKey, splitKey, type KubeObject, type ObjectMeta, type ObjectList, type WatchEvent, type WatchEventType, type GroupVersionResource } from './types.js';
