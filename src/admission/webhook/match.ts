/**
 * Whether a webhook is called for a request, and as which resource (the reference's order of checks):
 * rules on the requested resource, else (matchPolicy Equivalent) on an equivalent one; then the
 * namespace selector, the object selector, and last the CEL match conditions.
 */
import type { ApiObject } from '../../api/types.js';
import { forbidden, notFound } from '../../errors/index.js';
import { answersFor, requestAuthorizer } from '../authorizer.js';
import type { AdmissionDeps, AdmissionRequest, GroupVersionResource } from '../types.js';
import type { CompiledWebhook } from './compile.js';
import { celValue, evaluateConditions } from './conditions.js';
import { convertedObjects, equivalentKind, sameKind, sameResource } from './convert.js';
import { reviewRequest, type Invocation } from './review.js';
import { ruleMatches, type RuleTarget } from './rules.js';
import type { Labels } from './selector.js';

/** Per-request facts looked up at most once, however many webhooks ask. */
export class RequestFacts {
  private namespaceLabels?: Promise<Labels>;
  private equivalents?: GroupVersionResource[];

  constructor(
    readonly req: AdmissionRequest,
    readonly deps: AdmissionDeps,
  ) {}

  get target(): RuleTarget {
    const r = this.req;
    return { operation: r.operation, resource: r.requestResource, subResource: r.requestSubResource, namespace: r.namespace };
  }

  equivalentResources(): GroupVersionResource[] {
    this.equivalents ??= this.deps.equivalentResources(this.req.requestResource);
    return this.equivalents;
  }

  /** The labels of the request's namespace; of the object itself when it is a Namespace being written. */
  labelsOfNamespace(): Promise<Labels> {
    this.namespaceLabels ??= this.lookUpNamespaceLabels();
    return this.namespaceLabels;
  }

  private async lookUpNamespaceLabels(): Promise<Labels> {
    const r = this.req;
    const isNamespace = r.resource.group === '' && r.resource.resource === 'namespaces' && r.subResource === '';
    if (isNamespace && (r.operation === 'CREATE' || r.operation === 'UPDATE')) return r.object?.metadata?.labels;
    const name = r.namespace || (r.resource.group === '' && r.resource.resource === 'namespaces' ? r.name : '');
    const ns = await this.deps.objects.get('', 'namespaces', undefined, name);
    if (!ns) throw notFound({ resource: 'namespaces', name });
    return ns.metadata?.labels;
  }
}

/** The invocation when a rule selects the request: on its own resource, or (Equivalent) on an equivalent one. */
function ruleInvocation(hook: CompiledWebhook, facts: RequestFacts): Invocation | undefined {
  const req = facts.req;
  const t = facts.target;
  for (const rule of hook.rules) {
    if (ruleMatches(rule, t)) return { kind: req.requestKind, resource: req.requestResource, subResource: req.requestSubResource };
  }
  if (!hook.equivalentMatch) return undefined;
  // Earlier rules first; the requested resource itself was checked above.
  for (const rule of hook.rules) {
    for (const eq of facts.equivalentResources()) {
      if (sameResource(eq, req.requestResource) || !ruleMatches(rule, { ...t, resource: eq })) continue;
      return { kind: equivalentKind(eq, facts.deps), resource: eq, subResource: req.requestSubResource };
    }
  }
  return undefined;
}

/** The invocation with the objects in its version; a promise only when the conversion calls out. */
function withConvertedObjects(inv: Invocation, req: AdmissionRequest, deps: AdmissionDeps): Invocation | Promise<Invocation> {
  // A match on the request's own resource, or an equivalent one serving the same kind (a scale subresource).
  if (inv.resource === req.requestResource || sameKind(inv.kind, req.kind)) return inv;
  const converted = convertedObjects(req, inv.resource, deps);
  return converted instanceof Promise ? converted.then((c) => ({ ...inv, converted: c })) : { ...inv, converted };
}

/** An absent object (the new object of a DELETE) matches no selector; one without labels has none. */
const objectMatches = (hook: CompiledWebhook, o: ApiObject | undefined): boolean => o !== undefined && hook.objectSelector.matches(o.metadata?.labels ?? {});

/**
 * The invocation, or undefined when the webhook does not apply. Throws the request's failure when the
 * namespace is missing (404) or a match condition fails under failurePolicy Fail (403).
 */
export async function invocationFor(hook: CompiledWebhook, facts: RequestFacts): Promise<Invocation | undefined> {
  const matched = ruleInvocation(hook, facts);
  if (!matched) return undefined;
  const req = facts.req;
  if (!hook.namespaceSelector.empty) {
    const clusterScoped = req.namespace === '' && !(req.resource.group === '' && req.resource.resource === 'namespaces');
    if (!clusterScoped && !hook.namespaceSelector.matches(await facts.labelsOfNamespace())) return undefined;
  }
  if (!hook.objectSelector.empty) {
    if (!objectMatches(hook, req.object) && !objectMatches(hook, req.oldObject)) return undefined;
  }
  // Converted only for a webhook that applies (the reference's order): labels are the same in every version.
  const found = withConvertedObjects(matched, req, facts.deps);
  const inv = found instanceof Promise ? await found : found;
  if (hook.conditions.length === 0) return inv;
  const request = reviewRequest(req, inv);
  delete request.object;
  delete request.oldObject;
  // Conditions see the objects as the webhook would (in its version).
  const object = inv.converted ? inv.converted.object : req.object;
  const oldObject = inv.converted ? inv.converted.oldObject : req.oldObject;
  const vars = { object: celValue(object ?? null), oldObject: celValue(oldObject ?? null), request: celValue(request) };
  let outcome;
  if (hook.conditions.some((c) => c.usesAuthorizer)) {
    // Evaluated again until the outcome rests on real authorization answers only (cel/authorizer-answers.ts).
    const answers = answersFor(req, facts.deps);
    const withAuthorizer = { ...vars, authorizer: requestAuthorizer(req, answers, inv.resource, inv.subResource) };
    outcome = await answers.evaluate(() => evaluateConditions(hook.conditions, withAuthorizer));
  } else {
    outcome = evaluateConditions(hook.conditions, vars);
  }
  if ('error' in outcome) {
    if (hook.failOpen) return undefined;
    const gr = req.resource.group ? `${req.resource.resource}.${req.resource.group}` : req.resource.resource;
    throw forbidden(`${gr} ${JSON.stringify(req.name)} is forbidden: ${outcome.error}`, { resource: req.resource.resource, group: req.resource.group, name: req.name });
  }
  return outcome.match ? inv : undefined;
}
