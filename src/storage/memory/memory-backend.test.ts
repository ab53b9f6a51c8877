import { backendContract, sameProcessPeer } from '../testing/contract.js';
import { MemoryBackend } from './memory-backend.js';

backendContract('memory', {
  open: async () => new MemoryBackend({ compactIntervalMs: 0 }),
  peer: async (b) => sameProcessPeer(b),
});
