/**
 * Start-up reconciliation of the default RBAC objects (spec 5.8): add what is missing, never take away
 * what an administrator added, and leave alone objects annotated `autoupdate: "false"`.
 */
import { BOOTSTRAPPING_LABEL, RBAC_AUTOUPDATE_ANNOTATION } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { coveringRules } from './escalation.js';
import { rulesOf, subjectsOf, type ClusterRole, type RoleRef, type Subject } from './types.js';

const isBindingKind = (kind: string | undefined) => kind === 'RoleBinding' || kind === 'ClusterRoleBinding';

// apiGroup is left out: the registry defaults it, so a stored subject may carry it where ours does not.
const sameSubject = (a: Subject, b: Subject) => a.kind === b.kind && a.name === b.name && (a.namespace ?? '') === (b.namespace ?? '');

/** JSON with sorted keys, so equal selectors compare equal whatever their key order. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/** Wanted labels/annotations fill gaps; the existing values win, except the bootstrapping label. */
function mergeMeta(existing: ApiObject, wanted: ApiObject): ApiObject['metadata'] {
  const labels = { ...wanted.metadata?.labels, ...existing.metadata?.labels };
  labels[BOOTSTRAPPING_LABEL] = wanted.metadata?.labels?.[BOOTSTRAPPING_LABEL] ?? 'rbac-defaults';
  const annotations = { ...wanted.metadata?.annotations, ...existing.metadata?.annotations };
  return { ...existing.metadata, labels, ...(Object.keys(annotations).length ? { annotations } : {}) };
}

function reconcileRole(out: ClusterRole, wanted: ClusterRole): boolean {
  let changed = false;
  const have = rulesOf(out);
  // Whole wanted rules are added (not their atomic pieces) to keep the stored role readable.
  const missing = rulesOf(wanted).filter((rule) => !coveringRules(have, [rule]).covered);
  if (missing.length) {
    out.rules = [...have, ...structuredClone(missing)];
    changed = true;
  }
  const want = wanted.aggregationRule?.clusterRoleSelectors ?? [];
  if (wanted.aggregationRule) {
    const cur = out.aggregationRule?.clusterRoleSelectors ?? [];
    const keys = new Set(cur.map(canonical));
    const add = want.filter((s) => !keys.has(canonical(s)));
    if (add.length || !out.aggregationRule) {
      out.aggregationRule = { ...out.aggregationRule, clusterRoleSelectors: [...cur, ...structuredClone(add)] };
      changed = true;
    }
  }
  return changed;
}

function reconcileBinding(out: ApiObject, wanted: ApiObject): boolean {
  let changed = false;
  const have = subjectsOf(out);
  const missing = subjectsOf(wanted).filter((s) => !have.some((h) => sameSubject(h, s)));
  if (missing.length) {
    out.subjects = [...have, ...structuredClone(missing)];
    changed = true;
  }
  if (roleRefChanged(out, wanted)) {
    out.roleRef = structuredClone(wanted.roleRef);
    changed = true;
  }
  return changed;
}

/**
 * A binding's roleRef is immutable (spec 2.7): when this is true the caller must delete the existing
 * binding and create the object `reconcile` returned (it keeps the existing subjects).
 */
export function roleRefChanged(existing: ApiObject, wanted: ApiObject): boolean {
  const [a, b] = [existing.roleRef as RoleRef | undefined, wanted.roleRef as RoleRef | undefined];
  return !!b && (a?.kind !== b.kind || a?.name !== b.name);
}

/**
 * The object to write for one default, or undefined when nothing needs writing. The result keeps the
 * existing metadata (resourceVersion included, so the update is conditional) and extra rules/subjects.
 */
export function reconcile(existing: ApiObject | undefined, wanted: ApiObject): ApiObject | undefined {
  if (!existing) return structuredClone(wanted);
  if (existing.metadata?.annotations?.[RBAC_AUTOUPDATE_ANNOTATION] === 'false') return undefined;
  const out = structuredClone(existing);
  out.metadata = mergeMeta(existing, wanted);
  let changed = canonical(out.metadata) !== canonical(existing.metadata ?? {});
  if (isBindingKind(wanted.kind)) changed = reconcileBinding(out, wanted) || changed;
  else changed = reconcileRole(out as ClusterRole, wanted as ClusterRole) || changed;
  return changed ? out : undefined;
}
