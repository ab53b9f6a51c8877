/**
 * Warning events (core/v1 Event) about objects the collector cannot act on, as the reference reports
 * them. Best effort: a failure to record is logged, never retried; one event per object and reason.
 */
import type { ControllerContext } from '../contract.js';
import type { Identity } from './identity.js';

const EVENTS = { group: '', version: 'v1', plural: 'events' };
const COMPONENT = 'garbage-collector-controller';
const reported = new WeakMap<ControllerContext, Set<string>>();

export async function recordWarning(ctx: ControllerContext, about: Identity, reason: string, message: string): Promise<void> {
  let seen = reported.get(ctx);
  if (!seen) reported.set(ctx, (seen = new Set()));
  const key = `${about.uid}/${reason}`;
  if (seen.has(key)) return;
  // Bounded memory: forgetting old entries only means a repeated event later.
  if (seen.size >= 10_000) seen.clear();
  seen.add(key);
  // Cluster-scoped objects' events go to the default namespace, as the reference's recorder does.
  const namespace = about.namespace || 'default';
  const now = new Date(ctx.now()).toISOString().replace(/\.\d+Z$/, 'Z');
  try {
    await ctx.client.resource(EVENTS, namespace).create({
      apiVersion: 'v1',
      kind: 'Event',
      // The reference's recorder names events `<object>.<time in hex>`.
      metadata: { name: `${about.name}.${(BigInt(ctx.now()) * 1_000_000n).toString(16)}`, namespace },
      involvedObject: { apiVersion: about.apiVersion, kind: about.kind, name: about.name, uid: about.uid, ...(about.namespace ? { namespace: about.namespace } : {}) },
      reason,
      message,
      type: 'Warning',
      source: { component: COMPONENT },
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
    });
  } catch (e) {
    ctx.log(`garbage collector: could not record event ${reason} for ${about.kind} ${about.name}: ${(e as Error).message}`);
  }
}
