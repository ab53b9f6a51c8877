/**
 * The list-then-watch loop under informers (the reference's reflector): list (paged), watch from the list's
 * resourceVersion, resume from the last seen one when the server ends the watch, list again on 410, and
 * back off after other errors. Optionally the list is replaced by a watch with `sendInitialEvents`.
 */
import { INITIAL_EVENTS_END_ANNOTATION } from '../api/naming.js';
import type { ResourceClient } from './resource.js';
import { sleep } from './retry.js';
import { isGone } from './status-error.js';
import type { KubeObject, WatchEvent } from './types.js';

export interface ListWatchHandlers<T extends KubeObject> {
  /** The complete state: after the first list and after every relist. */
  onReplace(items: T[], resourceVersion: string): void;
  /** ADDED, MODIFIED, DELETED (bookmarks only move the resourceVersion). */
  onEvent(e: WatchEvent<T>): void;
  /** A failure the loop will retry after a pause (for logs and metrics). */
  onError?(e: unknown): void;
}

export interface ListWatchOptions {
  labelSelector?: string;
  fieldSelector?: string;
  /** Items per list page; default 500. */
  pageSize?: number;
  /** Start with a watch that sends the initial state (needs the server's WatchList feature). */
  useWatchList?: boolean;
  /** Pause after a failure: doubles from `initialMs` up to `capMs` (defaults 800 ms and 30 s, as the reference). */
  errorBackoff?: { initialMs: number; capMs: number };
}

export class ListWatcher<T extends KubeObject> {
  /** The last resourceVersion seen; '' until the first list. */
  resourceVersion = '';
  /** Lists done so far (the first and every relist). */
  lists = 0;

  constructor(
    private readonly resource: ResourceClient<T>,
    private readonly handlers: ListWatchHandlers<T>,
    private readonly opts: ListWatchOptions = {},
  ) {}

  /** Runs until `signal` aborts; never rejects for server failures (they are retried). */
  async run(signal: AbortSignal): Promise<void> {
    const pause = this.opts.errorBackoff ?? { initialMs: 800, capMs: 30_000 };
    let failures = 0;
    while (!signal.aborted) {
      try {
        if (!this.resourceVersion && !this.opts.useWatchList) await this.list(signal);
        await this.watch(signal);
        failures = 0;
      } catch (e) {
        if (signal.aborted) return;
        if (isGone(e)) {
          // History no longer reaches our resourceVersion: start over from a fresh list at once.
          this.resourceVersion = '';
          continue;
        }
        this.handlers.onError?.(e);
        const delay = Math.min(pause.initialMs * 2 ** failures, pause.capMs);
        failures++;
        await sleep(delay, signal).catch(() => undefined);
      }
    }
  }

  private async list(signal: AbortSignal): Promise<void> {
    const { items, resourceVersion } = await this.resource.listAll({
      labelSelector: this.opts.labelSelector,
      fieldSelector: this.opts.fieldSelector,
      limit: this.opts.pageSize ?? 500,
      signal,
    });
    this.lists++;
    this.resourceVersion = resourceVersion;
    this.handlers.onReplace(items, resourceVersion);
  }

  private async watch(signal: AbortSignal): Promise<void> {
    const initial = !this.resourceVersion && this.opts.useWatchList;
    let pending: T[] | undefined = initial ? [] : undefined;
    const events = this.resource.watch({
      labelSelector: this.opts.labelSelector,
      fieldSelector: this.opts.fieldSelector,
      allowWatchBookmarks: true,
      ...(initial ? { sendInitialEvents: true } : { resourceVersion: this.resourceVersion }),
      signal,
    });
    for await (const e of events) {
      const rv = e.object.metadata?.resourceVersion;
      if (pending) {
        // The initial state arrives as ADDED events and ends with a marked bookmark.
        if (e.type === 'ADDED') pending.push(e.object);
        else if (e.type === 'BOOKMARK' && e.object.metadata.annotations?.[INITIAL_EVENTS_END_ANNOTATION] === 'true') {
          this.lists++;
          this.resourceVersion = rv ?? '';
          this.handlers.onReplace(pending, this.resourceVersion);
          pending = undefined;
        }
        continue;
      }
      if (rv) this.resourceVersion = rv;
      if (e.type !== 'BOOKMARK') this.handlers.onEvent(e);
    }
  }
}
