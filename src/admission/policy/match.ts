/**
 * Whether a policy's matchConstraints (and a binding's matchResources) select a request, in the
 * reference's order: excluded rules first, then resource rules (with matchPolicy Equivalent, also on an
 * equivalent resource), then the object selector and the namespace selector.
 */
import type { ApiObject } from '../../api/types.js';
import type { GroupVersionResource } from '../types.js';
import { sameResource } from '../webhook/convert.js';
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

/**
 * The resource a rule list selects the request as: its own, or (with `equivalent`) the first equivalent
 * resource in another version a rule names; undefined when none selects it.
 */
function matchedResource(rules: readonly NamedRule[], facts: RequestFacts, equivalent: boolean): GroupVersionResource | undefined {
  const t = facts.target;
  const name = requestName(facts);
  for (const r of rules) if (namedRuleMatches(r, t, name)) return t.resource;
  if (!equivalent) return undefined;
  for (const r of rules) {
    for (const eq of facts.equivalentResources()) {
      if (!sameResource(eq, t.resource) && namedRuleMatches(r, { ...t, resource: eq }, name)) return eq;
    }
  }
  return undefined;
}

const objectMatches = (m: CompiledMatch, o: ApiObject | undefined): boolean => o !== undefined && m.objectSelector.matches(o.metadata?.labels ?? {});

/**
 * The resource `m` selects the request as (the request's own, or with matchPolicy Equivalent another
 * version of it, whose objects the policy then sees converted), or undefined when `m` does not select it.
 * A promise only when the namespace's labels must be looked up; a missing namespace is a 404 the caller
 * passes on.
 */
export function matchesRequest(m: CompiledMatch, facts: RequestFacts): GroupVersionResource | undefined | Promise<GroupVersionResource | undefined> {
  if (matchedResource(m.excludeResourceRules, facts, m.equivalentMatch)) return undefined;
  const matched = m.resourceRules === undefined ? facts.target.resource : matchedResource(m.resourceRules, facts, m.equivalentMatch);
  if (matched === undefined) return undefined;
  const req = facts.req;
  if (!m.objectSelector.empty && !objectMatches(m, req.object) && !objectMatches(m, req.oldObject)) return undefined;
  if (m.namespaceSelector.empty) return matched;
  const isNamespace = req.resource.group === '' && req.resource.resource === 'namespaces';
  if (req.namespace === '' && !isNamespace) return matched;
  return facts.labelsOfNamespace().then((labels) => (m.namespaceSelector.matches(labels) ? matched : undefined));
}
