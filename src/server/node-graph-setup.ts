import { STORAGE_GROUP } from '../api/naming.js';
import type { ApiObject } from '../api/types.js';
import type { NodeGraph } from '../authz/node/index.js';
import type { Registry } from '../registry/index.js';
import { isUnreadable, itemRef, readableItems, UnreadableLog } from '../registry/readable.js';

interface Feed {
  group: string;
  version: string;
  plural: string;
  upsert(graph: NodeGraph, o: ApiObject): void;
  remove(graph: NodeGraph, o: ApiObject): void;
  replace(graph: NodeGraph, all: ApiObject[]): void;
}

const nameOf = (o: ApiObject) => o.metadata?.name ?? '';

const FEEDS: readonly Feed[] = [
  {
    group: '',
    version: 'v1',
    plural: 'pods',
    upsert: (g, o) => g.upsertPod(o),
    remove: (g, o) => g.removePod(o.metadata?.namespace ?? '', nameOf(o)),
    replace: (g, all) => g.replacePods(all),
  },
  {
    group: '',
    version: 'v1',
    plural: 'persistentvolumes',
    upsert: (g, o) => g.upsertPersistentVolume(o),
    remove: (g, o) => g.removePersistentVolume(nameOf(o)),
    replace: (g, all) => g.replacePersistentVolumes(all),
  },
  {
    group: STORAGE_GROUP,
    version: 'v1',
    plural: 'volumeattachments',
    upsert: (g, o) => g.upsertVolumeAttachment(o),
    remove: (g, o) => g.removeVolumeAttachment(nameOf(o)),
    replace: (g, all) => g.replaceVolumeAttachments(all),
  },
];

/**
 * Keeps a NodeGraph current from the watch caches of pods, persistent volumes and volume attachments (the
 * storage change feed), so the Node authorizer never reads storage and sees writes made through any server
 * on the same store. After a cache relists, the graph's view of that kind is rebuilt from it. An object whose
 * stored value no encryption provider can read is left out of the graph (its edges grant nothing), logged.
 */
export async function feedNodeGraph(registry: Registry, graph: NodeGraph, log: (m: string) => void = () => undefined): Promise<{ stop(): void }> {
  const stops: (() => void)[] = [];
  const unreadable = new UnreadableLog(log, 'node authorizer: leaving an unreadable object out of the graph');
  for (const feed of FEEDS) {
    const store = registry.store(feed.group, feed.version, feed.plural);
    // A kind this server does not serve (turned off by --runtime-config) has no objects to follow.
    if (!store) continue;
    const reader = registry.reader(store.type);
    await reader.cacher.ready;
    const all = () => [...readableItems(reader.cacher.range(reader.cacher.prefix), unreadable.skip)].map((i) => reader.decode(i));
    // Subscribe and load in one tick: nothing falls between the snapshot and the feed.
    stops.push(
      reader.cacher.subscribe(
        (e) => {
          if (isUnreadable(e.item)) {
            if (e.type === 'PUT') unreadable.report(e.item);
            // Whatever an older readable version put in the graph goes: only the key says which object.
            const { namespace, name } = itemRef(reader.type, e.key);
            return feed.remove(graph, { apiVersion: '', kind: '', metadata: { namespace, name } });
          }
          const obj = reader.decode(e.item, e.revision);
          if (e.type === 'PUT') feed.upsert(graph, obj);
          else feed.remove(graph, obj);
        },
        () => feed.replace(graph, all()),
      ),
    );
    feed.replace(graph, all());
  }
  return { stop: () => stops.forEach((s) => s()) };
}
