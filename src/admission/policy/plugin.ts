/**
 * The ValidatingAdmissionPolicy plugin: every binding whose policy and match resources select a request
 * evaluates the policy (once per parameter object); each failure does what the binding's
 * validationActions say: Deny rejects the request (the first denial, once all bindings ran), Warn adds a
 * Warning header, Audit records an audit annotation. Configuration errors (a missing parameter, a policy
 * that does not compile) deny under failurePolicy Fail and are skipped under Ignore.
 */
import { POLICY_VALIDATION_FAILURE_ANNOTATION } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { StatusError, type StatusReason } from '../../errors/index.js';
import { answersFor, requestAuthorizer } from '../authorizer.js';
import { noConfiguration } from '../plugins/common.js';
import type { AdmissionDeps, AdmissionPlugin, AdmissionPluginFactory, AdmissionRequest, GroupVersionKind, GroupVersionResource } from '../types.js';
import { celValue } from '../webhook/conditions.js';
import { convertedObjects, equivalentKind, sameKind } from '../webhook/convert.js';
import { RequestFacts } from '../webhook/match.js';
import { reviewRequest } from '../webhook/review.js';
import { isExemptResource } from '../webhook/rules.js';
import { EvaluationBudget } from './cel.js';
import type { CompiledBinding, CompiledPolicy } from './compile.js';
import { evaluatePolicy, type Inputs } from './evaluate.js';
import { matchesRequest } from './match.js';
import { resolveParams } from './params.js';
import { PolicySource, type PolicyBinding } from './source.js';

export const POLICY_PLUGIN_NAME = 'ValidatingAdmissionPolicy';

const CODES: Record<string, number> = { Forbidden: 403, Unauthorized: 401, RequestEntityTooLarge: 413, Invalid: 422 };

interface Denial {
  readonly message: string;
  readonly reason: string;
  readonly fieldPath: string;
}

/** The reference's denial: the admission Forbidden wording, with the status code of the validation's reason. */
export function denialError(req: AdmissionRequest, d: Denial): StatusError {
  const reason = (CODES[d.reason] ? d.reason : 'Invalid') as StatusReason;
  const r = req.resource;
  const qualified = r.group ? `${r.resource}.${r.group}` : r.resource;
  const name = req.name || (req.object?.metadata?.name ?? '');
  return new StatusError(CODES[reason] ?? 422, reason, `${qualified} "${name}" is forbidden: ${d.message}`, {
    name,
    ...(r.group ? { group: r.group } : {}),
    kind: r.resource,
    // The reference's cause carries only the message (and the validation's fieldPath).
    causes: [{ reason: '', message: d.message, ...(d.fieldPath ? { field: d.fieldPath } : {}) }],
  });
}

const label = (p: CompiledPolicy, b: CompiledBinding) => `ValidatingAdmissionPolicy '${p.name}' with binding '${b.name}'`;

/** Per-request results gathered over all bindings. */
class Verdict {
  denial: Denial | undefined;
  readonly audit: Record<string, unknown>[] = [];

  deny(d: Denial): void {
    this.denial ??= d;
  }
}

async function namespaceObjectOf(req: AdmissionRequest, deps: AdmissionDeps): Promise<ApiObject | null> {
  if (req.namespace === '') return null;
  const ns = deps.objects.peek?.('', 'namespaces', undefined, req.namespace) ?? (await deps.objects.get('', 'namespaces', undefined, req.namespace));
  return ns ?? null;
}

async function applyPair(pair: PolicyBinding, facts: RequestFacts, inputs: PolicyInputs, verdict: Verdict, deps: AdmissionDeps): Promise<void> {
  const { policy, binding } = pair;
  const req = facts.req;
  // The policy's own constraints say which version it sees the request in; the binding's only narrow.
  const matched = await matchesRequest(policy.match, facts);
  if (!matched) return;
  if (binding.match && !(await matchesRequest(binding.match, facts))) return;
  const configError = (what: string, why: string) => {
    deps.log(`${label(policy, binding)}: failed to configure ${what}: ${why}`);
    if (!policy.failOpen) verdict.deny({ message: `${label(policy, binding)} denied request: failed to configure ${what}: ${why}`, reason: 'Invalid', fieldPath: '' });
  };
  if (policy.brokenReason) return configError('policy', policy.brokenReason);
  if (binding.brokenReason) return configError('binding', binding.brokenReason);
  const params = await resolveParams(policy, binding, req, deps);
  if ('error' in params) return configError('binding', params.error);
  const base = await inputs.of(matched);
  const budget = new EvaluationBudget();
  for (const param of params.objects) {
    const withParams = withValue(base, 'params', param === null ? null : celValue(param));
    const outcome = policy.usesAuthorizer ? await evaluateWithAuthorizer(policy, withParams, req, deps) : evaluatePolicy(policy, withParams, budget);
    for (const [key, value] of outcome.annotations) req.annotate(`${policy.name}/${key}`, value);
    for (const f of outcome.failures) {
      for (const action of binding.actions) {
        if (action === 'Deny') verdict.deny({ message: `${label(policy, binding)} denied request: ${f.message}`, reason: f.reason, fieldPath: f.fieldPath });
        else if (action === 'Warn') req.warn(`Validation failed for ${label(policy, binding)}: ${f.message}`);
        else verdict.audit.push({ message: f.message, policy: policy.name, binding: binding.name, expressionIndex: f.expressionIndex, validationActions: binding.actions });
      }
    }
  }
}

/**
 * A policy that names `authorizer`: evaluated until its outcome rests on real authorization answers only
 * (see cel/authorizer-answers.ts). Each run gets a fresh budget, as it is a whole evaluation of its own.
 */
function evaluateWithAuthorizer(policy: CompiledPolicy, inputs: Inputs, req: AdmissionRequest, deps: AdmissionDeps) {
  const answers = answersFor(req, deps);
  const withAuthorizer = withValue(inputs, 'authorizer', requestAuthorizer(req, answers, req.resource, req.subResource));
  return answers.evaluate(() => evaluatePolicy(policy, withAuthorizer, new EvaluationBudget()));
}

/** `inputs` plus one more variable (a small plain object: CEL reads it fastest). */
function withValue(inputs: Inputs, name: string, value: unknown): Inputs {
  return { ...inputs, [name]: value };
}

/** The AdmissionReview request as policies see it: without the objects (those are inputs of their own). */
function requestInput(req: AdmissionRequest, kind: GroupVersionKind, resource: GroupVersionResource): Record<string, unknown> {
  const request = reviewRequest(req, { kind, resource, subResource: req.subResource });
  delete request.object;
  delete request.oldObject;
  return request;
}

/**
 * The CEL inputs of one request, built once per resource some policy matched it as, and only when a
 * binding applies. A policy whose matchConstraints name another version of the resource (matchPolicy
 * Equivalent) sees the objects converted to that version and `request.kind`/`request.resource` of it,
 * as the reference does; `request.requestKind`/`requestResource` stay the request's. Converting a whole
 * object to CEL costs more than most expressions, so only the inputs some policy names are built.
 */
class PolicyInputs {
  private own: Promise<Inputs> | undefined;
  private others: Map<GroupVersionResource, Promise<Inputs>> | undefined;

  constructor(
    private readonly pairs: readonly PolicyBinding[],
    private readonly req: AdmissionRequest,
    private readonly deps: AdmissionDeps,
  ) {}

  of(matched: GroupVersionResource): Promise<Inputs> {
    const req = this.req;
    if (matched === req.requestResource) return (this.own ??= this.build(req.kind, req.resource, req.object, req.oldObject));
    this.others ??= new Map();
    let inputs = this.others.get(matched);
    if (inputs === undefined) this.others.set(matched, (inputs = this.inVersionOf(matched)));
    return inputs;
  }

  private async inVersionOf(eq: GroupVersionResource): Promise<Inputs> {
    const req = this.req;
    const kind = equivalentKind(eq, this.deps);
    if (sameKind(kind, req.kind)) return this.build(kind, eq, req.object, req.oldObject);
    // Converted whether or not an expression reads the objects: a failed conversion fails the request.
    const found = convertedObjects(req, eq, this.deps);
    const converted = found instanceof Promise ? await found : found;
    return this.build(kind, eq, converted.object, converted.oldObject);
  }

  private async build(kind: GroupVersionKind, resource: GroupVersionResource, object: ApiObject | undefined, oldObject: ApiObject | undefined): Promise<Inputs> {
    const named = (name: string) => this.pairs.some((p) => p.policy.inputs.has(name));
    return {
      object: named('object') ? celValue(object ?? null) : null,
      oldObject: named('oldObject') ? celValue(oldObject ?? null) : null,
      request: named('request') ? celValue(requestInput(this.req, kind, resource)) : null,
      namespaceObject: named('namespaceObject') ? celValue(await namespaceObjectOf(this.req, this.deps)) : null,
    };
  }
}

async function validateWith(pairs: readonly PolicyBinding[], req: AdmissionRequest, deps: AdmissionDeps): Promise<void> {
  const facts = new RequestFacts(req, deps);
  const inputs = new PolicyInputs(pairs, req, deps);
  const verdict = new Verdict();
  for (const pair of pairs) await applyPair(pair, facts, inputs, verdict, deps);
  if (verdict.audit.length > 0) req.annotate(POLICY_VALIDATION_FAILURE_ANNOTATION, JSON.stringify(verdict.audit));
  if (verdict.denial) throw denialError(req, verdict.denial);
}

export function createPolicyPlugin(deps: AdmissionDeps, source: PolicySource): AdmissionPlugin {
  return {
    name: POLICY_PLUGIN_NAME,
    handles: () => true,
    validate(req) {
      if (isExemptResource(req.resource)) return undefined;
      const pairs = source.current();
      if (Array.isArray(pairs)) return pairs.length === 0 ? undefined : validateWith(pairs as readonly PolicyBinding[], req, deps);
      return (pairs as Promise<readonly PolicyBinding[]>).then((p) => (p.length === 0 ? undefined : validateWith(p, req, deps)));
    },
  };
}

export const validatingAdmissionPolicyPlugin: AdmissionPluginFactory = (deps, configuration) => {
  noConfiguration(POLICY_PLUGIN_NAME, configuration);
  return createPolicyPlugin(deps, new PolicySource(deps.objects));
};
