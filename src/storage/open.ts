import type { Backend, HistoryOptions } from './backend.js';
import { MemoryBackend } from './memory/memory-backend.js';
import type { CommitPeers } from './sqlite/sqlite-backend.js';
import type { Dialer } from '../util/dialer.js';

export type { CommitPeers } from './sqlite/sqlite-backend.js';

export type BackendSpec =
  | { type: 'memory' }
  /** `peers`: processes sharing this file that announce their commits to each other (see CommitPeers). */
  | { type: 'sqlite'; path: string; peers?: CommitPeers }
  /** `dialer`: the egress selector's `etcd` selection; without one the members are dialled directly. */
  | { type: 'etcd'; endpoints: string[]; keyPrefix?: string; dialer?: Dialer };

/** Opens a backend by name. The SQLite and etcd drivers load only when asked for (start-up time). */
export async function openBackend(spec: BackendSpec, history?: HistoryOptions): Promise<Backend> {
  switch (spec.type) {
    case 'memory':
      return new MemoryBackend(history);
    case 'sqlite': {
      const { SqliteBackend } = await import('./sqlite/sqlite-backend.js');
      return new SqliteBackend({ path: spec.path, ...(history ? { history } : {}), ...(spec.peers ? { peers: spec.peers } : {}) });
    }
    case 'etcd': {
      const { EtcdBackend } = await import('./etcd/etcd-backend.js');
      const opts = { endpoints: spec.endpoints, ...(spec.keyPrefix ? { keyPrefix: spec.keyPrefix } : {}), ...(history ? { history } : {}) };
      if (spec.dialer) return (await import('./etcd/etcd-egress.js')).openEtcdThroughDialer(opts, spec.dialer);
      return new EtcdBackend(opts);
    }
  }
}
