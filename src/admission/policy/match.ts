/**
 * Whether a policy's matchConstraints (and a binding's matchResources) select a request, in the
 * reference's order: excluded rules first, then resource rules (with matchPolicy Equivalent, also on an
 * equivalent resource), then the namespace selector and the object selector.
 */
import type { ApiObject } from '../../api/types.js';
import type { GroupVersionResource } from '../types.js';
import type { RequestFacts } from '../webhook/match.js';
import { ruleMatches, type RuleTarget } from '../webhook/rules.js';
import type { CompiledMatch, NamedRule } from './compile.js';

/** The name a request is about: on a create whose name is generated, the object's (possibly empty) name. */
export function requestName(facts: RequestFacts): string {
  return facts.req.name || (facts.req.object?.metadata?.name ?? '');
}

function namedRuleMatches(r: NamedRule, t: RuleTarget, name: string): boolean {
  if (r.resourceNames.length > 0 && !r.resourceNames.includes(name)) return false;
  return ruleMatches(r.rule, t);
}

function anyMatches(rules: readonly NamedRule[], facts: RequestFacts, equivalent: boolean): boolean {
  const t = facts.target;
  const name = requestName(facts);
  for (const r of rules) if (namedRuleMatches(r, t, name)) return true;
  if (!equivalent) return false;
  const same = (a: GroupVersionResource, b: GroupVersionResource) => a.group === b.group && a.version === b.version && a.resource === b.resource;
  for (const r of rules) {
    for (const eq of facts.equivalentResources()) {
      if (!same(eq, t.resource) && namedRuleMatches(r, { ...t, resource: eq }, name)) return true;
    }
  }
  return false;
}

const objectMatches = (m: CompiledMatch, o: ApiObject | undefined): boolean => o !== undefined && m.objectSelector.matches(o.metadata?.labels ?? {});

/** Resolves to whether `m` selects the request; a missing namespace is a 404 the caller passes on. */
export function matchesRequest(m: CompiledMatch, facts: RequestFacts): boolean | Promise<boolean> {
  if (anyMatches(m.excludeResourceRules, facts, m.equivalentMatch)) return false;
  if (m.resourceRules !== undefined && !anyMatches(m.resourceRules, facts, m.equivalentMatch)) return false;
  const req = facts.req;
  if (!m.objectSelector.empty && !objectMatches(m, req.object) && !objectMatches(m, req.oldObject)) return false;
  if (m.namespaceSelector.empty) return true;
  const isNamespace = req.resource.group === '' && req.resource.resource === 'namespaces';
  if (req.namespace === '' && !isNamespace) return true;
  return facts.labelsOfNamespace().then((labels) => m.namespaceSelector.matches(labels));
}
