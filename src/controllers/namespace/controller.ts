/**
 * The namespace controller (spec 3.1, last line): a namespace being deleted is emptied through the API,
 * every namespaced type found by discovery, objects with finalizers waited for; its conditions say how far
 * it got; when nothing is left, its own finalizer is removed through `finalize` and the server drops it.
 * Event-driven: only namespaces with a deletionTimestamp are queued, and only while content remains is a
 * namespace looked at again (with growing pauses), so an idle cluster costs nothing.
 */
import { setMaxListeners } from 'node:events';
import { NAMESPACE_FINALIZER } from '../../api/naming.js';
import { WorkQueue, isNotFound, retryOnConflict, type KubeObject } from '../../client/index.js';
import type { ControllerContext, ControllerDescriptor } from '../contract.js';
import { conditionTime, deletionConditions, hasFailures, hasRemaining, mergeConditions, type NamespaceCondition } from './conditions.js';
import { sweepNamespace } from './content.js';
import { discoverDeletable } from './discovery.js';

export const NAMESPACE_CONTROLLER = 'namespace-controller';
const NAMESPACES = { group: '', version: 'v1', plural: 'namespaces' };

interface Namespace extends KubeObject {
  spec?: { finalizers?: string[] };
  status?: { phase?: string; conditions?: NamespaceCondition[] };
}

/** Pure: the pause before looking again at a namespace whose content is still going (`attempt` from 0). */
export function remainingContentDelay(attempt: number): number {
  return Math.min(250 * 2 ** attempt, 5000);
}

const finalizersOf = (ns: Namespace) => ns.spec?.finalizers ?? [];

/** What a sync concluded: gone or finalized, or content still there. */
type Outcome = 'done' | 'waiting';

class NamespaceController {
  private readonly queue = new WorkQueue<string>();
  /** Passes in a row that found content left, per namespace (for the pause before the next). */
  private readonly waits = new Map<string, number>();
  private readonly namespaces;
  /**
   * Aborts with ctx.signal. Every request of every pass listens to it (tens at once with several workers),
   * so they hang on this one rather than each adding a listener to the manager's signal.
   */
  private readonly stopping = new AbortController();

  constructor(private readonly ctx: ControllerContext) {
    this.namespaces = ctx.client.resource<Namespace>(NAMESPACES);
    setMaxListeners(0, this.stopping.signal);
  }

  async run(): Promise<void> {
    const { ctx, queue } = this;
    const informer = ctx.informers.informerFor<Namespace>({ gvr: NAMESPACES });
    const consider = (ns: Namespace) => {
      if (ns.metadata.deletionTimestamp && ns.metadata.name) queue.add(ns.metadata.name);
    };
    const removeHandler = informer.addEventHandler({
      onAdd: consider,
      onUpdate: (_old, ns) => consider(ns),
      onDelete: (ns) => this.waits.delete(ns.metadata.name ?? ''),
    });
    const stop = () => {
      this.stopping.abort();
      queue.shutDown();
    };
    ctx.signal.addEventListener('abort', stop, { once: true });
    try {
      if (ctx.signal.aborted) return;
      informer.start(ctx.signal);
      const workers = Math.max(1, ctx.settings.concurrency(NAMESPACE_CONTROLLER));
      await Promise.all(Array.from({ length: workers }, () => this.work()));
    } finally {
      removeHandler();
      ctx.signal.removeEventListener('abort', stop);
      stop();
    }
  }

  private async work(): Promise<void> {
    for (;;) {
      const name = await this.queue.get();
      if (name === undefined) return;
      if (this.ctx.signal.aborted) {
        this.queue.done(name); // stopping: what is still queued waits for the next leader
        continue;
      }
      try {
        const outcome = await this.sync(name);
        this.queue.forget(name);
        if (outcome === 'done') this.waits.delete(name);
        else {
          const attempt = this.waits.get(name) ?? 0;
          this.waits.set(name, attempt + 1);
          this.queue.addAfter(name, remainingContentDelay(attempt));
        }
      } catch (e) {
        if (!this.ctx.signal.aborted) {
          this.ctx.log(`${NAMESPACE_CONTROLLER}: namespace ${name}: ${(e as Error).message}`);
          this.queue.addRateLimited(name);
        }
      } finally {
        this.queue.done(name);
      }
    }
  }

  /** One pass over a namespace: read it fresh, empty it, record the conditions, finalize when empty. */
  private async sync(name: string): Promise<Outcome> {
    const { client } = this.ctx;
    const signal = this.stopping.signal;
    const ns = await this.namespaces.get(name, { signal }).catch((e: unknown) => {
      if (isNotFound(e)) return undefined;
      throw e;
    });
    if (!ns?.metadata.deletionTimestamp || !finalizersOf(ns).includes(NAMESPACE_FINALIZER)) return 'done';
    const discovered = await discoverDeletable(client.transport, signal);
    const findings = await sweepNamespace(client, discovered, name, signal);
    await this.recordConditions(ns, deletionConditions(findings));
    if (hasFailures(findings)) {
      const all = [...findings.discoveryFailures, ...findings.parseFailures, ...findings.contentFailures];
      throw new Error(`content not deleted yet: ${all.join('; ')}`);
    }
    if (hasRemaining(findings)) return 'waiting';
    await this.finalize(name);
    return 'done';
  }

  /** Writes the deletion conditions through `/status` when they changed. */
  private async recordConditions(first: Namespace, wanted: NamespaceCondition[]): Promise<void> {
    let ns: Namespace | undefined = first;
    await retryOnConflict(async () => {
      ns ??= await this.namespaces.get(first.metadata.name ?? '', { signal: this.stopping.signal });
      const { conditions, changed } = mergeConditions(ns.status?.conditions ?? [], wanted, conditionTime(this.ctx.now()));
      const current: Namespace = ns;
      ns = undefined; // a conflict re-reads it
      if (!changed) return;
      await this.namespaces.updateStatus({ ...current, status: { ...current.status, conditions } }, { signal: this.stopping.signal }).catch((e: unknown) => {
        if (!isNotFound(e)) throw e;
      });
    });
  }

  /** Removes this controller's finalizer through `finalize`; the server deletes the namespace if none remain. */
  private async finalize(name: string): Promise<void> {
    await retryOnConflict(async () => {
      const ns = await this.namespaces.get(name, { signal: this.stopping.signal }).catch((e: unknown) => {
        if (isNotFound(e)) return undefined;
        throw e;
      });
      if (!ns || !finalizersOf(ns).includes(NAMESPACE_FINALIZER)) return;
      const spec = { ...ns.spec, finalizers: finalizersOf(ns).filter((f) => f !== NAMESPACE_FINALIZER) };
      await this.namespaces.update({ ...ns, spec }, { subresource: 'finalize', signal: this.stopping.signal }).catch((e: unknown) => {
        if (!isNotFound(e)) throw e;
      });
    });
  }
}

export const namespaceController: ControllerDescriptor = {
  name: NAMESPACE_CONTROLLER,
  serviceAccountName: 'namespace-controller',
  run: (ctx: ControllerContext) => new NamespaceController(ctx).run(),
};
