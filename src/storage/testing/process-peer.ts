import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { BackendSpec } from '../open.js';
import type { Peer, PeerEvent } from './peer.js';

interface Reply {
  id: number;
  ready?: boolean;
  started?: boolean;
  result?: unknown;
  error?: string;
}

/** Starts `peer-process.ts` in a child process on the same store and talks to it over stdin/stdout. */
export async function startProcessPeer(spec: BackendSpec): Promise<Peer> {
  const script = fileURLToPath(new URL('./peer-process.ts', import.meta.url));
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', script, JSON.stringify(spec)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const waiting = new Map<number, { resolve: (r: Reply) => void; started?: () => void }>();
  let ready!: () => void;
  const readyP = new Promise<void>((r) => (ready = r));
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const msg = JSON.parse(line) as Reply;
    if (msg.ready) return ready();
    const w = waiting.get(msg.id);
    if (msg.started) return w?.started?.();
    waiting.delete(msg.id);
    w?.resolve(msg);
  });
  await readyP;
  let next = 1;
  const call = (cmd: object, started?: () => void) =>
    new Promise<unknown>((resolve, reject) => {
      const id = next++;
      waiting.set(id, {
        resolve: (r) => (r.error ? reject(new Error(`peer: ${r.error}`)) : resolve(r.result)),
        ...(started ? { started } : {}),
      });
      child.stdin!.write(`${JSON.stringify({ id, ...cmd })}\n`);
    });
  return {
    create: async (key, value) => (await call({ op: 'create', key, value })) as number,
    collect: async (prefix, from, count) => {
      let started!: () => void;
      const startedP = new Promise<void>((r) => (started = r));
      const result = call({ op: 'collect', prefix, from, count }, started) as Promise<PeerEvent[]>;
      await Promise.race([startedP, result]);
      return result;
    },
    close: async () => {
      await call({ op: 'close' }).catch(() => undefined);
      child.kill();
    },
  };
}
