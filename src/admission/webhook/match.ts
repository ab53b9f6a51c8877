/**
 * Whether a webhook is called for a request, and as which resource (the reference's order of checks):
 * rules on the requested resource, else (matchPolicy Equivalent) on an equivalent one; then the
 * namespace selector, the object selector, and last the CEL match conditions.
 */
import type { ApiObject } from '../../api/types.js';
import { forbidden, internalError, notFound } from '../../errors/index.js';
import { answersFor, requestAuthorizer } from '../authorizer.js';
import type { AdmissionDeps, AdmissionRequest, GroupVersionKind, GroupVersionResource } from '../types.js';
import type { CompiledWebhook } from './compile.js';
import { celValue, evaluateConditions } from './conditions.js';
import { reviewRequest, type ConvertedObjects, type Invocation } from './review.js';
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

const sameResource = (a: GroupVersionResource, b: GroupVersionResource) =>
  a.group === b.group && a.version === b.version && a.resource === b.resource;

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
      const kind = facts.deps.kindOf(eq);
      if (!kind) throw internalError(`unable to convert to ${eq.group}/${eq.version}, Resource=${eq.resource}: unknown kind`);
      const converted = sameKind(kind, req.kind) ? undefined : convertedObjects(req, eq, kind, facts.deps);
      return { kind, resource: eq, subResource: req.requestSubResource, ...(converted ? { converted } : {}) };
    }
  }
  return undefined;
}

const sameKind = (a: GroupVersionKind, b: GroupVersionKind) => a.group === b.group && a.version === b.version && a.kind === b.kind;

/**
 * The request's objects in the version of the equivalent resource `to` (kind `kind`), and the way back
 * for a patch made against them. Without a conversion between the two versions the request fails rather
 * than showing the webhook an object of another version than the one it registered for.
 */
function convertedObjects(req: AdmissionRequest, to: GroupVersionResource, kind: GroupVersionKind, deps: AdmissionDeps): ConvertedObjects {
  const from = req.resource;
  const fail = () => internalError(`unable to convert ${req.kind.kind} from ${from.group}/${from.version} to ${to.group}/${to.version}: no conversion between these versions`);
  const convert = (o: ApiObject | undefined, a: GroupVersionResource, b: GroupVersionResource) => {
    if (o === undefined) return undefined;
    const out = deps.convertObject?.(o, a, b);
    if (!out) throw fail();
    return out;
  };
  return {
    object: convert(req.object, from, to),
    oldObject: convert(req.oldObject, from, to),
    toRequestVersion: (o) => convert(o, to, from) as ApiObject,
  };
}

/** An absent object (the new object of a DELETE) matches no selector; one without labels has none. */
const objectMatches = (hook: CompiledWebhook, o: ApiObject | undefined): boolean => o !== undefined && hook.objectSelector.matches(o.metadata?.labels ?? {});

/**
 * The invocation, or undefined when the webhook does not apply. Throws the request's failure when the
 * namespace is missing (404) or a match condition fails under failurePolicy Fail (403).
 */
export async function invocationFor(hook: CompiledWebhook, facts: RequestFacts): Promise<Invocation | undefined> {
  const inv = ruleInvocation(hook, facts);
  if (!inv) return undefined;
  const req = facts.req;
  if (!hook.namespaceSelector.empty) {
    const clusterScoped = req.namespace === '' && !(req.resource.group === '' && req.resource.resource === 'namespaces');
    if (!clusterScoped && !hook.namespaceSelector.matches(await facts.labelsOfNamespace())) return undefined;
  }
  if (!hook.objectSelector.empty) {
    if (!objectMatches(hook, req.object) && !objectMatches(hook, req.oldObject)) return undefined;
  }
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
