/**
 * The status conditions a terminating namespace carries while the namespace controller empties it, with the
 * reference's types, reasons and messages, so that `describe namespace` shows why a deletion is stuck.
 * Pure: a pass's findings in, the namespace's new condition list out.
 */

export interface NamespaceCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** What one deletion pass found. */
export interface DeletionFindings {
  discoveryFailures: readonly string[];
  parseFailures: readonly string[];
  /** `<resource>: <error>` for each resource whose content could not be deleted. */
  contentFailures: readonly string[];
  /** Objects left, by `resource.group` (core resources by plural alone). */
  remaining: ReadonlyMap<string, number>;
  /** Finalizers on the objects left, with how many objects carry each. */
  finalizers: ReadonlyMap<string, number>;
}

export const DISCOVERY_FAILURE = 'NamespaceDeletionDiscoveryFailure';
export const GROUP_VERSION_PARSING_FAILURE = 'NamespaceDeletionGroupVersionParsingFailure';
export const CONTENT_FAILURE = 'NamespaceDeletionContentFailure';
export const CONTENT_REMAINING = 'NamespaceContentRemaining';
export const FINALIZERS_REMAINING = 'NamespaceFinalizersRemaining';

/** In the order the reference lists them. */
export const DELETION_CONDITION_TYPES: readonly string[] = [DISCOVERY_FAILURE, GROUP_VERSION_PARSING_FAILURE, CONTENT_FAILURE, CONTENT_REMAINING, FINALIZERS_REMAINING];

/** `name has N resource instances`, sorted by name so the message is stable between passes. */
const counted = (m: ReadonlyMap<string, number>, phrase: (key: string, n: number) => string) =>
  [...m.entries()]
    .filter(([, n]) => n > 0)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, n]) => phrase(k, n))
    .join(', ');

/** Pure: the five deletion conditions as `f` makes them (time not set). */
export function deletionConditions(f: DeletionFindings): NamespaceCondition[] {
  const remaining = counted(f.remaining, (r, n) => `${r} has ${n} resource instances`);
  const finalizers = counted(f.finalizers, (name, n) => `${name} in ${n} resource instances`);
  return [
    f.discoveryFailures.length
      ? { type: DISCOVERY_FAILURE, status: 'True', reason: 'DiscoveryFailed', message: `Discovery failed for some groups, ${f.discoveryFailures.length} failing: ${f.discoveryFailures.join(', ')}` }
      : { type: DISCOVERY_FAILURE, status: 'False', reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' },
    f.parseFailures.length
      ? { type: GROUP_VERSION_PARSING_FAILURE, status: 'True', reason: 'GroupVersionParsingFailed', message: `Group versions that could not be parsed: ${f.parseFailures.join(', ')}` }
      : { type: GROUP_VERSION_PARSING_FAILURE, status: 'False', reason: 'ParsedGroupVersions', message: 'All group versions successfully parsed' },
    f.contentFailures.length
      ? { type: CONTENT_FAILURE, status: 'True', reason: 'ContentDeletionFailed', message: `Failed to delete all resource types, ${f.contentFailures.length} remaining: ${f.contentFailures.join(', ')}` }
      : { type: CONTENT_FAILURE, status: 'False', reason: 'ContentDeleted', message: 'All content successfully deleted, may be waiting on finalization' },
    remaining
      ? { type: CONTENT_REMAINING, status: 'True', reason: 'SomeResourcesRemain', message: `Some resources are remaining: ${remaining}` }
      : { type: CONTENT_REMAINING, status: 'False', reason: 'ContentRemoved', message: 'All content successfully removed' },
    finalizers
      ? { type: FINALIZERS_REMAINING, status: 'True', reason: 'SomeFinalizersRemain', message: `Some content in the namespace has finalizers remaining: ${finalizers}` }
      : { type: FINALIZERS_REMAINING, status: 'False', reason: 'ContentHasNoFinalizers', message: 'All content-preserving finalizers finished' },
  ];
}

/**
 * Pure: `current` with each of `wanted` put in place. A condition whose status, reason and message are
 * unchanged keeps its transition time; a new or changed one gets `now`. Other condition types stay as they
 * are. `changed` says whether a status write is needed at all.
 */
export function mergeConditions(current: readonly NamespaceCondition[], wanted: readonly NamespaceCondition[], now: string): { conditions: NamespaceCondition[]; changed: boolean } {
  const conditions = current.map((c) => ({ ...c }));
  let changed = false;
  for (const w of wanted) {
    const i = conditions.findIndex((c) => c.type === w.type);
    const old = i >= 0 ? conditions[i] : undefined;
    if (old && old.status === w.status && old.reason === w.reason && old.message === w.message) continue;
    changed = true;
    const next = { ...w, lastTransitionTime: now };
    if (i >= 0) conditions[i] = next;
    else conditions.push(next);
  }
  return { conditions, changed };
}

/** Pure: whether a pass found a failure (the namespace is retried with backoff, not finalized). */
export const hasFailures = (f: DeletionFindings) => f.discoveryFailures.length + f.parseFailures.length + f.contentFailures.length > 0;

/** Pure: whether objects are still there (the namespace is looked at again later). */
export const hasRemaining = (f: DeletionFindings) => [...f.remaining.values()].some((n) => n > 0);

/** RFC 3339 to the second, as conditions carry it. */
export const conditionTime = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
