/**
 * The current policies paired with their bindings, from the watch cache. Objects are compiled once per
 * resourceVersion; a request with no bindings at all costs one cache look-up and no allocation.
 */
import { ADMISSIONREGISTRATION_GROUP } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import type { ObjectReader } from '../types.js';
import { compileBinding, compilePolicy, type CompiledBinding, type CompiledPolicy } from './compile.js';

export const POLICIES = 'validatingadmissionpolicies';
export const BINDINGS = 'validatingadmissionpolicybindings';

export interface PolicyBinding {
  readonly policy: CompiledPolicy;
  readonly binding: CompiledBinding;
}

const NONE: readonly PolicyBinding[] = Object.freeze([]);

/** Compiled forms by uid, kept while the resourceVersion stays; entries of deleted objects are dropped. */
class CompiledCache<T> {
  private entries = new Map<string, { rv: string; value: T }>();

  constructor(private readonly compile: (o: ApiObject) => T) {}

  all(objects: readonly ApiObject[]): T[] {
    const next = new Map<string, { rv: string; value: T }>();
    const out: T[] = [];
    for (const o of objects) {
      const key = o.metadata?.uid ?? o.metadata?.name ?? '';
      const rv = o.metadata?.resourceVersion ?? '';
      let entry = this.entries.get(key);
      if (!entry || entry.rv !== rv) entry = { rv, value: this.compile(o) };
      next.set(key, entry);
      out.push(entry.value);
    }
    this.entries = next;
    return out;
  }
}

/** The cache hands out the same decoded object while its version stays, so unchanged lists compare item by item. */
function sameItems(a: readonly ApiObject[], b: readonly ApiObject[] | undefined): boolean {
  if (a === b) return true;
  if (!b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

export class PolicySource {
  private readonly policies = new CompiledCache(compilePolicy);
  private readonly bindings = new CompiledCache(compileBinding);
  private lastBindings: readonly ApiObject[] | undefined;
  private lastPolicies: readonly ApiObject[] | undefined;
  private lastPairs: readonly PolicyBinding[] = NONE;

  constructor(private readonly objects: ObjectReader) {}

  /** Pairs in policy then binding name order; synchronous when the cache has loaded. */
  current(): readonly PolicyBinding[] | Promise<readonly PolicyBinding[]> {
    const bindings = this.objects.peekList?.(ADMISSIONREGISTRATION_GROUP, BINDINGS);
    if (bindings !== undefined && bindings.length === 0) return NONE;
    const policies = bindings === undefined ? undefined : this.objects.peekList?.(ADMISSIONREGISTRATION_GROUP, POLICIES);
    if (bindings !== undefined && policies !== undefined) return this.pair(bindings, policies);
    return Promise.all([this.objects.list(ADMISSIONREGISTRATION_GROUP, BINDINGS), this.objects.list(ADMISSIONREGISTRATION_GROUP, POLICIES)]).then(([b, p]) =>
      this.pair(b, p),
    );
  }

  private pair(bindingObjects: readonly ApiObject[], policyObjects: readonly ApiObject[]): readonly PolicyBinding[] {
    if (bindingObjects.length === 0) return NONE;
    if (sameItems(bindingObjects, this.lastBindings) && sameItems(policyObjects, this.lastPolicies)) return this.lastPairs;
    const policies = new Map(this.policies.all(policyObjects).map((p) => [p.name, p]));
    const pairs: PolicyBinding[] = [];
    for (const binding of this.bindings.all(bindingObjects).sort(byName)) {
      // A binding of a policy that does not exist (yet) does nothing, as in the reference.
      const policy = policies.get(binding.policyName);
      if (policy) pairs.push({ policy, binding });
    }
    pairs.sort((a, b) => byName(a.policy, b.policy));
    this.lastBindings = bindingObjects;
    this.lastPolicies = policyObjects;
    this.lastPairs = pairs;
    return pairs;
  }
}
