/**
 * Wiring of API priority and fairness: the FlowControl the chain asks, fed from the watch caches of the
 * v1 FlowSchemas and PriorityLevelConfigurations (so an edit through any server on the same store takes
 * effect), and, where this process runs the controllers, the upkeep of the stored objects: bootstrap specs
 * at start and each FlowSchema's `Dangling` condition whenever the configuration changes.
 */
import { isDeepStrictEqual } from 'node:util';
import { APF_AUTOUPDATE_ANNOTATION } from '../api/naming.js';
import type { ApiObject } from '../api/types.js';
import { bootstrapAction, danglingStatus, FlowControl } from '../flowcontrol/index.js';
import type { GenericStore, Registry } from '../registry/index.js';
import { isUnreadable, readableItems, UnreadableLog } from '../registry/readable.js';
import {
  MANDATORY_FLOW_SCHEMAS,
  MANDATORY_PRIORITY_LEVELS,
  SUGGESTED_FLOW_SCHEMAS,
  SUGGESTED_PRIORITY_LEVELS,
} from '../registry/resources/flowcontrol/bootstrap.js';
import { defaultFlowSchema, defaultPriorityLevel } from '../registry/resources/flowcontrol/defaults.js';
import { FLOWCONTROL_GROUP } from '../registry/resources/flowcontrol/index.js';

export interface FlowControlOptions {
  /** `--enable-priority-and-fairness` (default true). Off: the two max-in-flight limits apply instead. */
  enablePriorityAndFairness?: boolean;
  /** How long a request may wait in a priority level's queue before a 429. Default 15 s (tests shorten it). */
  apfQueueWaitMs?: number;
}

/** The server's FlowControl, or undefined when priority and fairness is off. A bad limit fails the start. */
export function planFlowControl(opts: FlowControlOptions & { maxRequestsInflight?: number; maxMutatingRequestsInflight?: number }): FlowControl | undefined {
  if (opts.enablePriorityAndFairness === false) return undefined;
  const limit = (opts.maxRequestsInflight ?? 400) + (opts.maxMutatingRequestsInflight ?? 200);
  if (limit <= 0) {
    throw new Error('--max-requests-inflight, --max-mutating-requests-inflight: their sum must be positive when --enable-priority-and-fairness is true');
  }
  return new FlowControl({
    serverLimit: limit,
    ...(opts.apfQueueWaitMs !== undefined ? { queueWaitMs: opts.apfQueueWaitMs } : {}),
    mandatory: { flowSchemas: MANDATORY_FLOW_SCHEMAS, priorityLevels: MANDATORY_PRIORITY_LEVELS },
  });
}

const stores = (registry: Registry) => {
  const flowSchemas = registry.store(FLOWCONTROL_GROUP, 'v1', 'flowschemas');
  const levels = registry.store(FLOWCONTROL_GROUP, 'v1', 'prioritylevelconfigurations');
  return flowSchemas && levels ? { flowSchemas, levels } : undefined;
};

/**
 * Keeps `flowControl` configured from the watch caches (started already). Without the flowcontrol API
 * (`--runtime-config` turned it off) the built-in mandatory and suggested objects are the configuration.
 */
export async function followFlowControlConfig(
  registry: Registry,
  flowControl: FlowControl,
  ctx: { controllers: boolean; log: (m: string) => void },
): Promise<() => void> {
  const s = stores(registry);
  if (!s) {
    flowControl.configure([...MANDATORY_FLOW_SCHEMAS, ...SUGGESTED_FLOW_SCHEMAS], [...MANDATORY_PRIORITY_LEVELS, ...SUGGESTED_PRIORITY_LEVELS]);
    return () => undefined;
  }
  const fsReader = registry.reader(s.flowSchemas.type);
  const plReader = registry.reader(s.levels.type);
  await fsReader.cacher.ready;
  await plReader.cacher.ready;
  // An object no encryption provider can read is left out (logged); the mandatory ones are filled in anyway.
  const unreadable = new UnreadableLog(ctx.log, 'flowcontrol: skipping an unreadable configuration object');
  const all = (reader: typeof fsReader) => [...readableItems(reader.cacher.range(reader.cacher.prefix), unreadable.skip)].map((i) => reader.decode(i));
  const status = ctx.controllers ? danglingConditionWriter(s.flowSchemas, ctx.log) : undefined;
  let scheduled = false;
  const apply = () => {
    scheduled = false;
    const schemas = all(fsReader);
    const levels = all(plReader);
    flowControl.configure(schemas, levels);
    status?.(schemas, new Set(levels.map((l) => l.metadata?.name)));
  };
  // Several events of one write burst make one new configuration.
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(apply);
  };
  const stops = [fsReader.cacher.subscribe(schedule, schedule), plReader.cacher.subscribe(schedule, schedule)];
  apply();
  return () => stops.forEach((stop) => stop());
}

/** Writes the `Dangling` conditions that differ, one pass at a time (a later change schedules another). */
function danglingConditionWriter(store: GenericStore, log: (m: string) => void) {
  let running: Promise<void> | undefined;
  let again: (() => void) | undefined;
  const pass = async (schemas: ApiObject[], levels: Set<unknown>) => {
    for (const fs of schemas) {
      const status = danglingStatus(fs, (name) => levels.has(name), new Date());
      if (!status) continue;
      const name = String(fs.metadata?.name);
      await store.update(undefined, name, { ...fs, status }, { subresource: 'status' }).catch((e: { code?: number; message?: string }) => {
        // A conflict or a deletion is followed by a cache event and so by another pass.
        if (e.code !== 409 && e.code !== 404) log(`flowcontrol: cannot update the status of flowschema ${name}: ${e.message ?? String(e)}`);
      });
    }
  };
  return (schemas: ApiObject[], levels: Set<unknown>) => {
    if (running) {
      again = () => void (running = pass(schemas, levels).finally(next));
      return;
    }
    running = pass(schemas, levels).finally(next);
  };
  function next() {
    running = undefined;
    const run = again;
    again = undefined;
    run?.();
  }
}

/**
 * At start: the mandatory objects get their built-in spec back whatever was done to them; a suggested one
 * while it auto-updates (annotation "true", or never edited); a missing one is created. An object still
 * marked for auto-update that is no longer part of the built-in set is removed, as the reference does.
 */
export async function ensureFlowControlObjects(registry: Registry, log: (m: string) => void): Promise<void> {
  const s = stores(registry);
  if (!s) return;
  const kinds = [
    { store: s.levels, mandatory: MANDATORY_PRIORITY_LEVELS, suggested: SUGGESTED_PRIORITY_LEVELS, defaults: (o: ApiObject) => defaultPriorityLevel(o, 'v1') },
    { store: s.flowSchemas, mandatory: MANDATORY_FLOW_SCHEMAS, suggested: SUGGESTED_FLOW_SCHEMAS, defaults: defaultFlowSchema },
  ];
  for (const k of kinds) {
    const sameSpec = (stored: unknown, builtin: unknown) => {
      const o = { spec: structuredClone(builtin) } as ApiObject;
      k.defaults(o);
      return isDeepStrictEqual(stored, o.spec);
    };
    const builtins = [...k.mandatory.map((o) => ({ o, mandatory: true })), ...k.suggested.map((o) => ({ o, mandatory: false }))];
    const fail = (what: string) => (e: { code?: number; message?: string }) => {
      if (e.code !== 409 && e.code !== 404) log(`flowcontrol: cannot ${what}: ${e.message ?? String(e)}`);
    };
    const reader = registry.reader(k.store.type);
    for (const { o, mandatory } of builtins) {
      const name = String(o.metadata?.name);
      // Unreadable (a removed encryption key): neither compared nor overwritten, only logged.
      const cached = reader.cacher.get(k.store.key(undefined, name));
      if (cached && isUnreadable(cached)) {
        log(`flowcontrol: cannot check the built-in ${k.store.type.plural}/${name}: ${cached.unreadable.message}`);
        continue;
      }
      const existing = await k.store.get(undefined, name).catch((e: { code?: number }) => {
        if (e.code === 404) return undefined;
        throw e;
      });
      if (!existing) {
        await k.store.create(undefined, structuredClone(o)).catch(fail(`create ${k.store.type.plural}/${name}`));
        continue;
      }
      const action = bootstrapAction(existing, o, mandatory, APF_AUTOUPDATE_ANNOTATION, sameSpec);
      if (action.kind === 'update') {
        log(`flowcontrol: restoring the built-in spec of ${k.store.type.plural}/${name}`);
        await k.store.update(undefined, name, action.object).catch(fail(`update ${k.store.type.plural}/${name}`));
      }
    }
    const builtinNames = new Set(builtins.map((b) => b.o.metadata?.name));
    for (const item of [...readableItems(reader.cacher.range(reader.cacher.prefix), () => undefined)]) {
      const obj = reader.decode(item);
      const name = String(obj.metadata?.name);
      if (builtinNames.has(name) || obj.metadata?.annotations?.[APF_AUTOUPDATE_ANNOTATION] !== 'true') continue;
      log(`flowcontrol: removing ${k.store.type.plural}/${name}, marked for auto-update but not a built-in object`);
      await k.store.delete(undefined, name).catch(fail(`delete ${k.store.type.plural}/${name}`));
    }
  }
}
