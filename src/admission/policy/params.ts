/**
 * The parameter objects a binding gives its policy (`paramKind` + `paramRef`): one by name, or every
 * object a selector picks; in the paramRef's namespace, else the request's. None found: the policy is
 * skipped (parameterNotFoundAction Allow) or it is a configuration error (Deny).
 */
import type { ApiObject } from '../../api/types.js';
import type { AdmissionDeps, AdmissionRequest, GroupVersionResource } from '../types.js';
import type { CompiledBinding, CompiledPolicy } from './compile.js';

export type ParamsResult = { objects: readonly (ApiObject | null)[] } | { error: string };

const NO_PARAMS: ParamsResult = Object.freeze({ objects: Object.freeze([null]) });

/** The resource serving a kind: the plural forms a kind usually takes, confirmed by the server's own mapping. */
export function resourceForKind(deps: AdmissionDeps, group: string, version: string, kind: string): GroupVersionResource | undefined {
  const lower = kind.toLowerCase();
  const candidates = [`${lower}s`, `${lower}es`, lower.endsWith('y') ? `${lower.slice(0, -1)}ies` : '', lower].filter((c) => c !== '');
  for (const resource of candidates) {
    const r = { group, version, resource };
    const k = deps.kindOf(r);
    if (k && k.kind === kind) return r;
  }
  return undefined;
}

export async function resolveParams(policy: CompiledPolicy, binding: CompiledBinding, req: AdmissionRequest, deps: AdmissionDeps): Promise<ParamsResult> {
  const kind = policy.paramKind;
  if (!kind) return NO_PARAMS;
  const ref = binding.paramRef;
  if (!ref) return { error: 'policy with paramKind requires a binding with paramRef' };
  const gvr = resourceForKind(deps, kind.group, kind.version, kind.kind);
  const apiVersion = kind.group ? `${kind.group}/${kind.version}` : kind.version;
  if (!gvr) return { error: `failed to find resource referenced by paramKind: '${apiVersion}, Kind=${kind.kind}'` };
  const namespace = ref.namespace || req.namespace || undefined;
  let objects: ApiObject[];
  if (ref.name !== '') {
    const o = deps.objects.peek?.(gvr.group, gvr.resource, namespace, ref.name) ?? (await deps.objects.get(gvr.group, gvr.resource, namespace, ref.name));
    objects = o ? [o] : [];
  } else {
    const selector = ref.selector;
    const all = deps.objects.peekList?.(gvr.group, gvr.resource, namespace) ?? (await deps.objects.list(gvr.group, gvr.resource, namespace));
    objects = all.filter((o) => !selector || selector.matches(o.metadata?.labels ?? {}));
  }
  if (objects.length > 0) return { objects };
  if (ref.denyWhenMissing) return { error: 'no params found for policy binding with `Deny` parameterNotFoundAction' };
  return { objects: [] };
}
