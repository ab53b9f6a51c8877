/**
 * A ControllerContext over an in-process server for the tests of test/controllers-misc*.test.ts (until the
 * controller manager exists): the admin client, a private informer factory, an abort signal, a log.
 */
import { Client, type KubeObject } from '../src/client/index.js';
import { connectionForServer } from '../src/client/config/index.js';
import type { ControllerContext, ControllerDescriptor, ControllerManagerSettings } from '../src/controllers/contract.js';
import type { TestServer } from '../src/index.js';

export interface RunningController {
  ctx: ControllerContext;
  client: Client;
  logs: string[];
  /** Aborts, waits for `run` to return (rejecting if it does not within 5 s) and closes the client. */
  stop(): Promise<void>;
}

export function runController(server: TestServer, controller: ControllerDescriptor, settings: Partial<ControllerManagerSettings> = {}): RunningController {
  const client = new Client(connectionForServer(server));
  const informers = client.informerFactory();
  const abort = new AbortController();
  const logs: string[] = [];
  const ctx: ControllerContext = {
    client,
    informers,
    signal: abort.signal,
    log: (m) => logs.push(m),
    now: () => Date.now(),
    settings: { clusterSigningDurationMs: 365 * 24 * 3600_000, terminatedPodGcThreshold: 12500, concurrency: () => 2, ...settings },
  };
  const done = controller.run(ctx);
  return {
    ctx,
    client,
    logs,
    stop: async () => {
      abort.abort();
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_r, reject) => {
        timer = setTimeout(() => reject(new Error(`${controller.name} did not stop within 5 s of the abort`)), 5000);
      });
      try {
        await Promise.race([done, late]);
      } finally {
        clearTimeout(timer);
        await informers.stop();
        client.close();
      }
    },
  };
}

/** Polls `check` every 25 ms until it returns a value other than undefined (or throws after `ms`). */
export async function eventually<T>(what: string, check: () => Promise<T | undefined> | T | undefined, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export const gvr = (group: string, version: string, plural: string) => ({ group, version, plural });
export type { KubeObject };
