/**
 * The last-applied annotation of client-side apply: the configuration given to `apply` (compact JSON,
 * without the annotation itself) stored on the object, read back as the next apply's `original`.
 */
import { LAST_APPLIED_ANNOTATION } from '../../api/naming.js';
import type { KubeObject } from '../../client/index.js';
import type { SchemaNode } from './patch-schema.js';
import { threeWayPatch } from './three-way.js';

type JsonMap = Record<string, unknown>;

/** A deep copy of `obj` without the annotation (and without an annotations map left empty by removing it). */
function withoutAnnotation(obj: KubeObject): KubeObject {
  const copy = structuredClone(obj);
  const annotations = copy.metadata?.annotations;
  if (annotations && Object.hasOwn(annotations, LAST_APPLIED_ANNOTATION)) {
    delete annotations[LAST_APPLIED_ANNOTATION];
    if (Object.keys(annotations).length === 0) delete copy.metadata.annotations;
  }
  return copy;
}

/** `obj` as it is sent: carrying the annotation that records it. */
export function withLastApplied(obj: KubeObject): KubeObject {
  const bare = withoutAnnotation(obj);
  const text = JSON.stringify(bare);
  const out = structuredClone(bare);
  out.metadata = { ...(out.metadata ?? {}), annotations: { ...(out.metadata?.annotations ?? {}), [LAST_APPLIED_ANNOTATION]: text } };
  return out;
}

/** The configuration applied last, or undefined when the object has none (or it is not a JSON object). */
export function lastApplied(current: KubeObject): JsonMap | undefined {
  const text = current.metadata?.annotations?.[LAST_APPLIED_ANNOTATION];
  if (typeof text !== 'string' || text === '') return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as JsonMap) : undefined;
  } catch {
    return undefined;
  }
}

export const hasLastApplied = (current: KubeObject): boolean => typeof current.metadata?.annotations?.[LAST_APPLIED_ANNOTATION] === 'string';

/** The patch `apply` sends for `obj` against `current`; `{}` means unchanged. */
export function applyPatch(obj: KubeObject, current: KubeObject, schema: SchemaNode | undefined): JsonMap {
  return threeWayPatch(lastApplied(current), withLastApplied(obj) as JsonMap, current as JsonMap, schema);
}
