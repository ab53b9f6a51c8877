/**
 * Which resources the collector watches: every served resource (preferred version of its group) that
 * supports list, watch and delete, built-in or custom, except events (never collected, as the
 * reference). The set is discovered again whenever a CustomResourceDefinition changes, so custom types
 * join and leave while the collector runs; nothing is polled.
 */
import { APIEXTENSIONS_GROUP, EVENTS_GROUP } from '../../api/naming.js';
import type { KubeObject, ResourceInfo, SharedInformer } from '../../client/index.js';
import type { ControllerContext } from '../contract.js';
import type { DependencyGraph } from './graph.js';

const CRDS = { group: APIEXTENSIONS_GROUP, version: 'v1', plural: 'customresourcedefinitions' };
/** Pause after a CRD change before discovering again, so a burst of changes costs one discovery. */
const REDISCOVER_DELAY_MS = 200;
const SYNC_TIMEOUT_MS = 30_000;

/** Pure: the resources the collector must watch in a discovery snapshot. */
export function deletableResources(all: ResourceInfo[]): ResourceInfo[] {
  return all.filter(
    (r) =>
      r.preferred &&
      ['list', 'watch', 'delete'].every((v) => r.verbs.includes(v)) &&
      !(r.plural === 'events' && (r.group === '' || r.group === EVENTS_GROUP)),
  );
}

const resourceId = (r: ResourceInfo) => `${r.group}/${r.plural}`;

interface Monitor {
  info: ResourceInfo;
  informer: SharedInformer<KubeObject>;
  off(): void;
}

export class Monitors {
  private readonly active = new Map<string, Monitor>();
  private timer: NodeJS.Timeout | undefined;
  private syncing: Promise<void> = Promise.resolve();

  constructor(private readonly ctx: ControllerContext, private readonly graph: DependencyGraph) {}

  /** Discovers, starts the informers, follows CRDs; resolves once every informer has its first list. */
  async start(): Promise<void> {
    const crds = this.ctx.informers.informerFor({ gvr: CRDS, metadataOnly: true });
    let initial = true;
    const changed = () => {
      if (!initial) this.rediscoverSoon();
    };
    crds.addEventHandler({ onAdd: changed, onUpdate: changed, onDelete: changed });
    crds.start(this.ctx.signal);
    await crds.waitForSync(this.ctx.signal);
    initial = false;
    await this.sync();
    // A resource that cannot be listed must not hold the collector back forever (the reference also
    // goes on after a while); its informer keeps retrying and joins the graph when it succeeds.
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, SYNC_TIMEOUT_MS)));
    const synced = Promise.all([...this.active.values()].map((m) => m.informer.waitForSync(this.ctx.signal))).then(() => true);
    const ok = await Promise.race([synced, timeout.then(() => false)]).finally(() => clearTimeout(timer));
    if (!ok) this.ctx.log(`garbage collector: not every informer listed within ${SYNC_TIMEOUT_MS} ms; going on`);
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (const m of this.active.values()) m.off();
    this.active.clear();
  }

  watched(): ResourceInfo[] {
    return [...this.active.values()].map((m) => m.info);
  }

  /** Waits for a pending rediscovery (tests use it to know a new type is watched). */
  async settled(): Promise<void> {
    while (this.timer) await new Promise((r) => setTimeout(r, REDISCOVER_DELAY_MS));
    await this.syncing;
  }

  private rediscoverSoon(): void {
    if (this.timer || this.ctx.signal.aborted) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.syncing = this.syncing.then(() => this.sync()).catch((e) => {
        this.ctx.log(`garbage collector: discovery failed: ${(e as Error).message}`);
        // A new type not seen yet would go unwatched: try again later.
        this.rediscoverSoon();
      });
    }, REDISCOVER_DELAY_MS);
  }

  private async sync(): Promise<void> {
    this.ctx.client.discovery.invalidate();
    const wanted = new Map(deletableResources(await this.ctx.client.discovery.resources()).map((r) => [resourceId(r), r]));
    for (const [id, m] of this.active) {
      if (wanted.has(id) && wanted.get(id)?.version === m.info.version) continue;
      // Gone (or moved to another version): its objects are no longer visible through it.
      m.off();
      this.active.delete(id);
    }
    for (const [id, info] of wanted) {
      if (this.active.has(id)) continue;
      this.active.set(id, this.monitor(info));
    }
  }

  private monitor(info: ResourceInfo): Monitor {
    // Metadata informers (as the reference's collector): owners, finalizers and uids are all it reads, and
    // every write of every resource reaches it, so it asks for the metadata form only.
    const informer = this.ctx.informers.informerFor<KubeObject>({ gvr: { group: info.group, version: info.version, plural: info.plural }, metadataOnly: true });
    const remove = informer.addEventHandler({
      onAdd: (obj) => this.graph.observe(obj, undefined, info),
      onUpdate: (old, obj) => this.graph.observe(obj, old, info),
      onDelete: (obj) => this.graph.forget(obj),
    });
    informer.start(this.ctx.signal);
    return {
      info,
      informer,
      off: () => {
        remove();
        // The collector no longer sees this resource: its objects leave the graph; their dependents are
        // then checked against the API, which decides whether the owners really went.
        if (!this.ctx.signal.aborted) for (const obj of informer.store.list()) this.graph.forget(obj);
      },
    };
  }
}
