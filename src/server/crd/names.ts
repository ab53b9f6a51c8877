/**
 * The status the CRD controllers want for a CRD (pure): accepted names and the NamesAccepted condition as
 * the reference's naming controller decides them (a name another CRD of the group accepted is refused,
 * each kind of clash with its own reason), Established once the names are accepted, and the storage
 * version listed in storedVersions.
 */
import type { Crd, CrdCondition, CrdNames, CrdStatus } from '../../registry/custom/crd.js';
import { storageVersionOf } from '../../registry/custom/crd.js';

const sameList = (a: readonly string[] | undefined, b: readonly string[] | undefined) => JSON.stringify(a ?? []) === JSON.stringify(b ?? []);

/** Sets a condition; the transition time moves only when its status does. */
export function withCondition(conditions: readonly CrdCondition[] | undefined, c: CrdCondition, now: string): CrdCondition[] {
  const list = [...(conditions ?? [])];
  const at = list.findIndex((x) => x.type === c.type);
  const old = at >= 0 ? list[at] : undefined;
  const next: CrdCondition = { ...c, lastTransitionTime: old && old.status === c.status && old.lastTransitionTime ? old.lastTransitionTime : now };
  if (at >= 0) list[at] = next;
  else list.push(next);
  return list;
}

/** A requested name is fine when it is the one already accepted, or when no other CRD of the group uses it. */
function clash(requested: string | undefined, accepted: string | undefined, used: Set<string>): string | undefined {
  if (!requested || requested === accepted || !used.has(requested)) return undefined;
  return `"${requested}" is already in use`;
}

/** Names claimed by the other CRDs of the group: resource names (plural, singular, short) and kinds. */
function claimed(others: readonly Crd[], group: string, self: string) {
  const resources = new Set<string>();
  const kinds = new Set<string>();
  for (const o of others) {
    if (o.spec?.group !== group || o.metadata?.name === self) continue;
    const n = o.status?.acceptedNames;
    if (!n) continue;
    for (const r of [n.plural, n.singular, ...(n.shortNames ?? [])]) if (r) resources.add(r);
    for (const k of [n.kind, n.listKind]) if (k) kinds.add(k);
  }
  return { resources, kinds };
}

export function desiredStatus(crd: Crd, others: readonly Crd[], now: string): CrdStatus {
  const { resources, kinds } = claimed(others, crd.spec.group, crd.metadata?.name ?? '');
  const want = crd.spec.names;
  const had: Partial<CrdNames> = crd.status?.acceptedNames ?? {};
  const names: CrdNames = { plural: had.plural ?? '', kind: had.kind ?? '', ...had } as CrdNames;
  let refused: { reason: string; message: string } | undefined;
  const check = (problem: string | undefined, reason: string, accept: () => void) => {
    if (problem) refused ??= { reason, message: problem };
    else accept();
  };
  check(clash(want.plural, had.plural, resources), 'PluralConflict', () => (names.plural = want.plural));
  check(clash(want.singular, had.singular, resources), 'SingularConflict', () => (names.singular = want.singular ?? ''));
  if (!sameList(want.shortNames, had.shortNames)) {
    const mine = new Set(had.shortNames ?? []);
    const problems = (want.shortNames ?? []).filter((s) => !mine.has(s)).map((s) => clash(s, '', resources)).filter((p): p is string => p !== undefined);
    check(problems.length > 0 ? problems.join(', ') : undefined, 'ShortNamesConflict', () => {
      if (want.shortNames && want.shortNames.length > 0) names.shortNames = [...want.shortNames];
      else delete names.shortNames;
    });
  }
  check(clash(want.kind, had.kind, kinds), 'KindConflict', () => (names.kind = want.kind));
  check(clash(want.listKind, had.listKind, kinds), 'ListKindConflict', () => (names.listKind = want.listKind ?? ''));
  if (want.categories && want.categories.length > 0) names.categories = [...want.categories];
  else delete names.categories;

  let conditions = crd.status?.conditions;
  const accepted = refused === undefined;
  conditions = withCondition(
    conditions,
    accepted
      ? { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' }
      : { type: 'NamesAccepted', status: 'False', reason: (refused as { reason: string }).reason, message: (refused as { message: string }).message },
    now,
  );
  const established = conditions.find((c) => c.type === 'Established');
  // Once established a CRD stays so (its served names keep working) even if a later name change clashes.
  if (established?.status !== 'True') {
    conditions = withCondition(
      conditions,
      accepted
        ? { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }
        : { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' },
      now,
    );
  }
  const stored = [...(crd.status?.storedVersions ?? [])];
  const storage = storageVersionOf(crd);
  if (storage && !stored.includes(storage)) stored.push(storage);
  return { ...(crd.status ?? {}), conditions, acceptedNames: names, storedVersions: stored };
}
