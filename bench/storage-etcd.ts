/** The etcd part of the storage benchmark: our backend, and raw puts straight to etcd for comparison. */
import type { Backend } from '../src/storage/index.js';
import { EtcdBackend, startEtcd } from '../src/storage/etcd/index.js';
import { EtcdRpc } from '../src/storage/etcd/etcd-rpc.js';
import { fmt, runFor } from './stats.js';

const PHASE_MS = Number(process.env.BENCH_PHASE_MS ?? 3000);

export async function measureEtcd(
  measure: (name: string, b: Backend) => Promise<Record<string, string>>,
): Promise<Record<string, string>[]> {
  const etcd = await startEtcd();
  try {
    const raw = new EtcdRpc([etcd.endpoint], 10_000);
    const value = Buffer.alloc(1024, 'v');
    const puts = await runFor(PHASE_MS, 64, (w, i) => raw.unary('Put', { key: Buffer.from(`/raw/${w}/${i}`), value }));
    raw.close();
    const b = new EtcdBackend({ endpoints: [etcd.endpoint], history: { compactIntervalMs: 0 } });
    const row = await measure('etcd 3.4 (local)', b);
    await b.close();
    const ours = Number(row['create/s (64)']!.replace(/,/g, ''));
    return [
      { ...row, 'raw etcd put/s (64)': fmt(puts.perSecond), 'create vs raw put': `${fmt((100 * ours) / puts.perSecond)} %` },
    ];
  } finally {
    await etcd.stop();
  }
}
