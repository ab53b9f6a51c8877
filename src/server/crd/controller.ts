/**
 * The CRD controllers (run where `controllers` is on; idempotent, so several servers may run them at once):
 * status (accepted names, NamesAccepted, Established, storedVersions), the cleanup finalizer on every live
 * CRD, and deletion: Terminating, every custom resource deleted (their own finalizers honoured), then the
 * finalizer removed so the CRD leaves storage.
 */
import { CRD_CLEANUP_FINALIZER } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { jsonEqual } from '../../patch/index.js';
import type { GenericStore, Registry } from '../../registry/index.js';
import { listObjects } from '../../registry/index.js';
import { nowTimestamp } from '../../registry/object-meta.js';
import { storageVersionOf, type Crd } from '../../registry/custom/crd.js';
import { desiredStatus, withCondition } from './names.js';
import type { CustomTypeServing } from './serving.js';

const WRITE_ATTEMPTS = 8;
const RETRY_MS = 500;

export interface ControllerDeps {
  registry: Registry;
  /** The CRDs' own store. */
  store: GenericStore;
  serving: CustomTypeServing;
  /** Every CRD as this process's cache holds it now. */
  all(): Crd[];
  log(msg: string): void;
}

const code = (e: unknown) => (e as { code?: number }).code;

export class CrdController {
  private readonly queue = new Set<string>();
  private running = false;
  private stopped = false;
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly d: ControllerDeps) {}

  /** Asks for a CRD to be looked at (soon, once; later requests while queued are merged). */
  enqueue(name: string): void {
    if (this.stopped) return;
    this.queue.add(name);
    if (!this.running) void this.drain();
  }

  stop(): void {
    this.stopped = true;
    this.queue.clear();
    for (const t of this.timers) clearTimeout(t);
  }

  private later(name: string): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      this.enqueue(name);
    }, RETRY_MS);
    t.unref();
    this.timers.add(t);
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (!this.stopped && this.queue.size > 0) {
        const name = this.queue.values().next().value as string;
        this.queue.delete(name);
        try {
          if (await this.reconcile(name)) this.later(name);
        } catch (e) {
          if (this.stopped) return;
          this.d.log(`CustomResourceDefinition ${name}: ${(e as Error).message}; retrying`);
          this.later(name);
        }
      }
    } finally {
      this.running = false;
    }
  }

  /** One pass over a CRD; true when it must be looked at again (instances still being deleted). */
  private async reconcile(name: string): Promise<boolean> {
    const crd = await this.read(name);
    if (!crd) return false;
    if (crd.metadata?.deletionTimestamp) return this.finalize(crd);
    const finalizers = crd.metadata?.finalizers ?? [];
    if (!finalizers.includes(CRD_CLEANUP_FINALIZER)) {
      await this.write(name, false, (c) => {
        if (c.metadata?.deletionTimestamp || (c.metadata?.finalizers ?? []).includes(CRD_CLEANUP_FINALIZER)) return undefined;
        (c.metadata ??= {}).finalizers = [...(c.metadata.finalizers ?? []), CRD_CLEANUP_FINALIZER];
        return c;
      });
    }
    await this.write(name, true, (c) => {
      if (c.metadata?.deletionTimestamp) return undefined;
      const others = this.d.all().filter((o) => o.metadata?.name !== name);
      const status = desiredStatus(c, others, nowTimestamp());
      if (jsonEqual(status, c.status ?? {})) return undefined;
      c.status = status;
      return c;
    });
    // A CRD whose names clashed may be accepted now that this one settled: look at its group again.
    for (const o of this.d.all()) {
      if (o.spec?.group === crd.spec.group && o.metadata?.name !== name && !o.metadata?.deletionTimestamp && (o.status?.conditions ?? []).some((x) => x.type === 'NamesAccepted' && x.status !== 'True')) this.enqueue(o.metadata?.name ?? '');
    }
    return false;
  }

  /** Deletion: every instance goes first, then the finalizer. True while instances remain. */
  private async finalize(crd: Crd): Promise<boolean> {
    const name = crd.metadata?.name ?? '';
    if (!(crd.metadata?.finalizers ?? []).includes(CRD_CLEANUP_FINALIZER)) return false;
    const setTerminating = (reason: string, message: string) =>
      this.write(name, true, (c) => {
        const conditions = withCondition(c.status?.conditions, { type: 'Terminating', status: 'True', reason, message }, nowTimestamp());
        if (jsonEqual(conditions, c.status?.conditions)) return undefined;
        c.status = { ...(c.status ?? {}), conditions };
        return c;
      });
    const types = this.d.serving.typesOf(name);
    // The storage version's type: its stored objects need no conversion (no webhook call) to be deleted.
    const storage = storageVersionOf(crd);
    const owner = types.find((t) => t.version === storage) ?? types[0];
    if (owner) {
      await setTerminating('InstanceDeletionInProgress', 'CustomResource deletion is in progress');
      const store = this.d.registry.store(owner.group, owner.version, owner.plural);
      if (!store) return true; // replaced in the meantime: next pass
      const backend = this.d.registry.backend;
      const { items } = await listObjects(owner, backend, undefined, {});
      for (const item of items) {
        if (item.metadata?.deletionTimestamp) continue; // waiting for its own finalizers
        await store.delete(item.metadata?.namespace, item.metadata?.name ?? '').catch((e: unknown) => {
          if (code(e) !== 404) throw e;
        });
      }
      const left = (await listObjects(owner, backend, undefined, {})).items.length;
      if (left > 0) {
        await setTerminating('InstanceDeletionCheck', `could not confirm zero CustomResources remaining: ${left} left`);
        return true;
      }
      await setTerminating('InstanceDeletionCompleted', 'removed all instances');
    }
    await this.write(name, false, (c) => {
      const list = c.metadata?.finalizers ?? [];
      if (!list.includes(CRD_CLEANUP_FINALIZER)) return undefined;
      (c.metadata ??= {}).finalizers = list.filter((f) => f !== CRD_CLEANUP_FINALIZER);
      return c;
    });
    return false;
  }

  private async read(name: string): Promise<Crd | undefined> {
    try {
      return (await this.d.store.get(undefined, name)) as Crd;
    } catch (e) {
      if (code(e) === 404) return undefined;
      throw e;
    }
  }

  /** A read-modify-write of the CRD (or its status), retried while others write it in between. */
  private async write(name: string, status: boolean, change: (crd: Crd) => Crd | undefined): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const cur = await this.read(name);
      if (!cur) return;
      const next = change(structuredClone(cur));
      if (!next) return;
      try {
        await this.d.store.update(undefined, name, next as ApiObject, status ? { subresource: 'status' } : {});
        return;
      } catch (e) {
        if ((code(e) === 409 || code(e) === 404) && attempt < WRITE_ATTEMPTS) continue;
        throw e;
      }
    }
  }
}
