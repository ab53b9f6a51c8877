import type { Peer } from '../testing/peer.js';
import { backendContract, take } from '../testing/contract.js';
import { MemoryBackend } from './memory-backend.js';

/** The memory store has no second process; its "peer" is a second view of the same object. */
function samePeer(b: MemoryBackend): Peer {
  return {
    create: async (key, value) => (await b.create(key, new TextEncoder().encode(value))).modRevision,
    collect: async (prefix, from, count) => {
      const ac = new AbortController();
      const events = await take(b.watch(prefix, from, ac.signal), count);
      ac.abort();
      return events.map((e) => ({ type: e.type, key: e.type === 'PUT' ? e.kv.key : e.key, revision: e.revision }));
    },
    close: async () => undefined,
  };
}

backendContract('memory', {
  open: async () => new MemoryBackend({ compactIntervalMs: 0 }),
  peer: async (b) => samePeer(b as MemoryBackend),
});
