export { EtcdBackend, type EtcdBackendOptions } from './etcd-backend.js';
export { etcdAvailable, startEtcd, type EtcdProcess } from './etcd-process.js';
