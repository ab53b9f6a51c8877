export { EtcdBackend, type EtcdBackendOptions } from './etcd-backend.js';
export { etcdAvailable, startEtcd, type EtcdProcess } from './etcd-process.js';
export { startEtcdCluster, type EtcdCluster, type EtcdClusterOptions, type EtcdMemberInfo } from './etcd-cluster-process.js';
export { forwardingPlan, type ForwardingPlan, type ForwardedMember } from './etcd-forwarding-plan.js';
