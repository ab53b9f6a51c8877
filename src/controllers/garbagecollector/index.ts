/**
 * The garbage collector (issue 19, spec 3.1): deletes objects whose owners are gone, carries out
 * Foreground deletion (`foregroundDeletion` finalizer) and orphaning (`orphan` finalizer), over every
 * resource the API serves. A client of the API only: informers feed its graph, writes go through the API.
 */
import { setMaxListeners } from 'node:events';
import type { ControllerContext, ControllerDescriptor } from '../contract.js';
import { GarbageCollector } from './collector.js';
import { Monitors } from './monitors.js';

export const GARBAGE_COLLECTOR_NAME = 'garbage-collector-controller';

/** Starts the collector and answers once it watches every resource and its workers run. */
export async function startGarbageCollector(ctx: ControllerContext): Promise<{ collector: GarbageCollector; monitors: Monitors; done: Promise<void> }> {
  // Every in-flight request of the workers listens to the stop signal: that many listeners is expected.
  setMaxListeners(0, ctx.signal);
  const collector = new GarbageCollector(ctx);
  const monitors = new Monitors(ctx, collector.graph);
  await monitors.start();
  const workers = collector.runWorkers(Math.max(1, ctx.settings.concurrency(GARBAGE_COLLECTOR_NAME)));
  const done = new Promise<void>((resolve) => {
    const stop = () => {
      monitors.stop();
      void collector.shutDown().then(() => workers).then(() => resolve());
    };
    if (ctx.signal.aborted) stop();
    else ctx.signal.addEventListener('abort', stop, { once: true });
  });
  return { collector, monitors, done };
}

export const garbageCollectorController: ControllerDescriptor = {
  name: GARBAGE_COLLECTOR_NAME,
  serviceAccountName: 'generic-garbage-collector',
  async run(ctx: ControllerContext): Promise<void> {
    const { done } = await startGarbageCollector(ctx);
    await done;
  },
};

export { GarbageCollector } from './collector.js';
export { DependencyGraph, type GraphNode, type GraphSink } from './graph.js';
export { deletableResources } from './monitors.js';
