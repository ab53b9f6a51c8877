/**
 * Custom resources on this server: follows the CustomResourceDefinitions in its watch cache (so a CRD
 * written through any server on the store is served here within moments) and registers and removes their
 * types; where controllers run, keeps their status and carries out their deletion.
 */
import { APIEXTENSIONS_GROUP } from '../../api/naming.js';
import type { Registry } from '../../registry/index.js';
import { isUnreadable, itemRef, readableItems, UnreadableLog } from '../../registry/readable.js';
import type { Crd } from '../../registry/custom/crd.js';
import { compileCustomSchema } from '../../registry/custom/schema/index.js';
import type { Dialer } from '../../util/dialer.js';
import { CachedObjectReader } from '../admission-setup.js';
import { conversionWebhooks } from './conversion.js';
import { CrdController } from './controller.js';
import { CustomTypeServing } from './serving.js';

export interface CrdSetupOptions {
  /** Run the status and deletion controllers (worker 1 of a server with several processes). */
  controllers: boolean;
  /** The CustomResourceFieldSelectors gate. */
  fieldSelectors: boolean;
  /** Egress selections for conversion webhook calls (`--egress-selector-config-file`); absent: direct. */
  egress?: { readonly controlplane?: Dialer; readonly cluster?: Dialer };
  log(msg: string): void;
}

/** Starts following CRDs; resolves once every CRD stored now is served. Returns the function that stops it. */
export async function followCustomResourceDefinitions(registry: Registry, opts: CrdSetupOptions): Promise<() => void> {
  const store = registry.store(APIEXTENSIONS_GROUP, 'v1', 'customresourcedefinitions');
  // Turned off by --runtime-config: no custom resources are served.
  if (!store) return () => undefined;
  const reader = registry.reader(store.type);
  await reader.cacher.ready;
  // A CRD no encryption provider can read is not served (logged); the others are.
  const unreadable = new UnreadableLog(opts.log, 'customresourcedefinitions: not serving an unreadable definition');
  const all = () => [...readableItems(reader.cacher.range(reader.cacher.prefix), unreadable.skip)].map((i) => reader.decode(i) as Crd);
  const webhookConversion = conversionWebhooks({ objects: new CachedObjectReader(registry), ...(opts.egress ? { egress: opts.egress } : {}) });
  const serving = new CustomTypeServing(registry, { compile: compileCustomSchema, fieldSelectors: opts.fieldSelectors, webhookConversion, log: opts.log });
  const controller = opts.controllers ? new CrdController({ registry, store, serving, all, log: opts.log }) : undefined;
  const nameOf = (c: Crd) => c.metadata?.name ?? '';
  const everything = () => {
    const crds = all();
    serving.syncAll(crds);
    for (const c of crds) controller?.enqueue(nameOf(c));
  };
  // Subscribe and load in one tick: no event falls between the snapshot and the feed.
  const unsubscribe = reader.cacher.subscribe((e) => {
    if (isUnreadable(e.item)) {
      if (e.type === 'PUT') unreadable.report(e.item);
      return serving.sync(itemRef(reader.type, e.key).name, undefined);
    }
    const crd = reader.decode(e.item, e.revision) as Crd;
    serving.sync(nameOf(crd), e.type === 'PUT' ? crd : undefined);
    if (!controller) return;
    if (e.type === 'PUT') controller.enqueue(nameOf(crd));
    // Names a deleted CRD held are free again for the others of its group.
    else for (const o of all()) if (o.spec?.group === crd.spec?.group) controller.enqueue(nameOf(o));
  }, everything);
  everything();
  return () => {
    unsubscribe();
    controller?.stop();
  };
}
