/**
 * What the server keeps true of the stored flow-control objects, as pure decisions the server acts on:
 * the `Dangling` condition of each FlowSchema, and the specs of the bootstrap objects (the mandatory ones
 * always; a suggested one while its auto-update annotation says so).
 */
import type { ApiObject } from '../api/types.js';

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});

export const DANGLING = 'Dangling';

export interface Condition {
  type: string;
  status: 'True' | 'False';
  lastTransitionTime: string;
  reason: string;
  message: string;
}

/**
 * The FlowSchema's status with its `Dangling` condition as it should be, or undefined when the stored one
 * already says so (status, reason and message; the transition time moves only when the status changes).
 */
export function danglingStatus(schema: ApiObject, levelExists: (name: string) => boolean, now: Date): Rec | undefined {
  const level = String(rec(rec(schema.spec).priorityLevelConfiguration).name ?? '');
  const missing = !levelExists(level);
  const wanted = {
    status: missing ? 'True' : 'False',
    reason: missing ? 'NotFound' : 'Found',
    message: missing
      ? `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(level)} but there is no such object`
      : `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(level)} and it exists`,
  } as const;
  const status = rec(schema.status);
  const conditions = Array.isArray(status.conditions) ? (status.conditions as Rec[]) : [];
  const current = conditions.find((c) => rec(c).type === DANGLING);
  if (current && current.status === wanted.status && current.reason === wanted.reason && current.message === wanted.message) return undefined;
  const lastTransitionTime =
    current && current.status === wanted.status && typeof current.lastTransitionTime === 'string' ? current.lastTransitionTime : now.toISOString().replace(/\.\d+Z$/, 'Z');
  const condition: Condition = { type: DANGLING, ...wanted, lastTransitionTime };
  return { ...status, conditions: [...conditions.filter((c) => rec(c).type !== DANGLING), condition] };
}

/** The reference's rule: "true"/"false" decide; otherwise only an object never changed by anyone (generation 1) is updated. */
export function autoUpdates(o: ApiObject, annotation: string): boolean {
  const value = rec(o.metadata?.annotations)[annotation];
  if (typeof value === 'string') {
    // Go's strconv.ParseBool spellings.
    if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
    if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  }
  return o.metadata?.generation === 1;
}

export type BootstrapAction = { kind: 'update'; object: ApiObject } | { kind: 'none' };

/**
 * What to do with a stored bootstrap object: a mandatory one gets the built-in spec and annotation back
 * whatever was done to it; a suggested one only while it auto-updates. `sameSpec` compares after defaults.
 */
export function bootstrapAction(
  existing: ApiObject,
  builtin: ApiObject,
  mandatory: boolean,
  annotation: string,
  sameSpec: (a: unknown, b: unknown) => boolean,
): BootstrapAction {
  if (!mandatory && !autoUpdates(existing, annotation)) return { kind: 'none' };
  const annotations = (existing.metadata?.annotations ?? {}) as Record<string, string>;
  if (sameSpec(existing.spec, builtin.spec) && annotations[annotation] === 'true') return { kind: 'none' };
  return {
    kind: 'update',
    object: {
      ...existing,
      metadata: { ...existing.metadata, annotations: { ...annotations, [annotation]: 'true' } },
      spec: structuredClone(builtin.spec),
    },
  };
}
