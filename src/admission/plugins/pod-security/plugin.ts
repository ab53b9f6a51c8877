/**
 * PodSecurity (reference plugin, on by default). Namespaces choose a Pod Security Standards level for each
 * mode through their `pod-security.<group>/<mode>[-version]` labels: `enforce` refuses a violating pod (403),
 * `warn` answers with a Warning, `audit` records an audit annotation. Pod controllers' templates are
 * warned and audited, never refused. Namespace labels are validated, and raising a namespace's enforce
 * level warns about the pods already there that would violate it.
 */
import { POD_SECURITY_LABEL_PREFIX } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import { isObject } from '../../../api/types.js';
import { fieldError, invalid } from '../../../errors/index.js';
import { forbiddenFor } from '../common.js';
import type { AdmissionDeps, AdmissionOperation, AdmissionPlugin, AdmissionRequest, ObjectReader } from '../../types.js';
import { evaluatePod, forbiddenDetail, forbiddenReason, type Violation } from './checks.js';
import { levelVersionString, parsePodSecurityConfig, policyFromLabels, sameLevelVersion, type LevelVersion, type Policy, type PodSecurityConfig } from './policy.js';

export const POD_SECURITY = 'PodSecurity';
export const AUDIT_VIOLATIONS_ANNOTATION = `${POD_SECURITY_LABEL_PREFIX}audit-violations`;
export const ENFORCE_POLICY_ANNOTATION = `${POD_SECURITY_LABEL_PREFIX}enforce-policy`;
export const EXEMPT_ANNOTATION = `${POD_SECURITY_LABEL_PREFIX}exempt`;
/** At most this many existing pods are checked when a namespace's enforce level rises. */
export const MAX_PODS_TO_CHECK = 3000;

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec | undefined => (isObject(v) ? (v as Rec) : undefined);

/** Where each pod controller keeps its pod template, by `<group>/<resource>`. */
const TEMPLATE_PATHS: ReadonlyMap<string, readonly string[]> = new Map([
  ['apps/deployments', ['spec', 'template']],
  ['apps/replicasets', ['spec', 'template']],
  ['apps/statefulsets', ['spec', 'template']],
  ['apps/daemonsets', ['spec', 'template']],
  ['batch/jobs', ['spec', 'template']],
  ['batch/cronjobs', ['spec', 'jobTemplate', 'spec', 'template']],
  ['/replicationcontrollers', ['spec', 'template']],
  ['/podtemplates', ['template']],
]);

export function podTemplateOf(o: ApiObject | undefined, path: readonly string[]): Rec | undefined {
  let at: unknown = o;
  for (const k of path) at = rec(at)?.[k];
  return rec(at);
}

const containerImages = (spec: Rec, key: string) => (Array.isArray(spec[key]) ? (spec[key] as unknown[]).map((c) => [rec(c)?.name, rec(c)?.image]) : []);

/**
 * Whether a pod update can change the outcome: the reference looks only at images, the number of
 * containers, added ephemeral containers and seccomp annotations (the rest of a pod's security fields
 * cannot change after creation).
 */
export function significantPodUpdate(pod: ApiObject, old: ApiObject | undefined): boolean {
  if (!old) return true;
  const spec = rec(pod.spec) ?? {};
  const oldSpec = rec(old.spec) ?? {};
  const annotations = rec(pod.metadata?.annotations) ?? {};
  const oldAnnotations = rec(old.metadata?.annotations) ?? {};
  for (const k of new Set([...Object.keys(annotations), ...Object.keys(oldAnnotations)])) {
    if (k.includes('seccomp.security.alpha.') && annotations[k] !== oldAnnotations[k]) return true;
  }
  for (const key of ['containers', 'initContainers']) {
    if (JSON.stringify(containerImages(spec, key)) !== JSON.stringify(containerImages(oldSpec, key))) return true;
  }
  const oldEphemeral = new Map(containerImages(oldSpec, 'ephemeralContainers').map(([n, i]) => [n, i]));
  return containerImages(spec, 'ephemeralContainers').some(([n, i]) => !oldEphemeral.has(n) || oldEphemeral.get(n) !== i);
}

const fullyPrivileged = (p: Policy) => p.enforce.level === 'privileged' && p.audit.level === 'privileged' && p.warn.level === 'privileged';

export class PodSecurityPlugin implements AdmissionPlugin {
  readonly name = POD_SECURITY;
  /** Per namespace object the watch cache shares: its policy, worked out once per stored version. */
  private readonly policies = new WeakMap<ApiObject, Policy>();
  private readonly defaultsPrivileged: boolean;

  constructor(private readonly objects: ObjectReader, private readonly config: PodSecurityConfig) {
    this.defaultsPrivileged = fullyPrivileged(config.defaults);
  }

  handles(op: AdmissionOperation): boolean {
    return op === 'CREATE' || op === 'UPDATE';
  }

  validate(req: AdmissionRequest): Promise<void> | void {
    const r = req.resource;
    if (r.group === '' && r.resource === 'pods') {
      if (req.subResource !== '' && req.subResource !== 'ephemeralcontainers') return;
      return this.withPolicy(req, (policy) => this.checkPod(req, policy));
    }
    // Only core, apps and batch objects concern this plugin: others leave before any key is built.
    if (req.subResource !== '' || (r.group !== '' && r.group !== 'apps' && r.group !== 'batch')) return;
    if (r.group === '' && r.resource === 'namespaces') return this.checkNamespace(req);
    const path = TEMPLATE_PATHS.get(`${r.group}/${r.resource}`);
    if (path) return this.withPolicy(req, (policy) => this.checkTemplate(req, policy, path));
  }

  /** Runs `then` with the namespace's policy, synchronously when the watch cache holds the namespace. */
  private withPolicy(req: AdmissionRequest, then: (p: Policy) => void): Promise<void> | void {
    if (this.config.exemptNamespaces.has(req.namespace)) return req.annotate(EXEMPT_ANNOTATION, 'namespace');
    if (this.config.exemptUsernames.has(req.user.username)) return req.annotate(EXEMPT_ANNOTATION, 'user');
    const ns = this.objects.peek?.('', 'namespaces', undefined, req.namespace);
    if (ns) return this.applyPolicy(ns, then);
    return this.objects.get('', 'namespaces', undefined, req.namespace).then((found) => (found ? this.applyPolicy(found, then) : this.defaultsPrivileged ? undefined : then(this.config.defaults)));
  }

  private applyPolicy(ns: ApiObject, then: (p: Policy) => void): void {
    let policy = this.policies.get(ns);
    if (!policy) this.policies.set(ns, (policy = policyFromLabels(rec(ns.metadata?.labels), this.config.defaults).policy));
    if (!fullyPrivileged(policy)) then(policy);
  }

  private exemptRuntimeClass(req: AdmissionRequest, spec: Rec): boolean {
    if (typeof spec.runtimeClassName !== 'string' || !this.config.exemptRuntimeClasses.has(spec.runtimeClassName)) return false;
    req.annotate(EXEMPT_ANNOTATION, 'runtimeClass');
    return true;
  }

  private checkPod(req: AdmissionRequest, policy: Policy): void {
    const pod = req.object;
    if (!pod || (req.operation === 'UPDATE' && !significantPodUpdate(pod, req.oldObject))) return;
    const spec = rec(pod.spec) ?? {};
    if (this.exemptRuntimeClass(req, spec)) return;
    const meta = (pod.metadata ?? {}) as Rec;
    const results = new Map<string, Violation[]>();
    const evaluate = (lv: LevelVersion) => {
      const key = levelVersionString(lv);
      let vs = results.get(key);
      if (!vs) results.set(key, (vs = evaluatePod(lv.level, lv.minor, meta, spec)));
      return vs;
    };
    req.annotate(ENFORCE_POLICY_ANNOTATION, levelVersionString(policy.enforce));
    const enforced = evaluate(policy.enforce);
    this.audit(req, policy.audit, evaluate(policy.audit));
    if (enforced.length > 0) {
      const name = req.name || String(pod.metadata?.name ?? '');
      throw forbiddenFor({ ...req, name } as AdmissionRequest, `violates PodSecurity ${JSON.stringify(levelVersionString(policy.enforce))}: ${forbiddenDetail(enforced)}`);
    }
    this.warn(req, policy.warn, evaluate(policy.warn));
  }

  /** Controllers' templates: audit and warn only; the pods they create meet enforce themselves. */
  private checkTemplate(req: AdmissionRequest, policy: Policy, path: readonly string[]): void {
    const template = podTemplateOf(req.object, path);
    if (!template) return;
    if (req.operation === 'UPDATE' && JSON.stringify(template) === JSON.stringify(podTemplateOf(req.oldObject, path) ?? null)) return;
    const spec = rec(template.spec) ?? {};
    if (this.exemptRuntimeClass(req, spec)) return;
    const meta = rec(template.metadata) ?? {};
    const audited = evaluatePod(policy.audit.level, policy.audit.minor, meta, spec);
    this.audit(req, policy.audit, audited);
    this.warn(req, policy.warn, sameLevelVersion(policy.audit, policy.warn) ? audited : evaluatePod(policy.warn.level, policy.warn.minor, meta, spec));
  }

  private audit(req: AdmissionRequest, lv: LevelVersion, vs: Violation[]): void {
    if (vs.length > 0) req.annotate(AUDIT_VIOLATIONS_ANNOTATION, `would violate PodSecurity ${JSON.stringify(levelVersionString(lv))}: ${forbiddenDetail(vs)}`);
  }

  private warn(req: AdmissionRequest, lv: LevelVersion, vs: Violation[]): void {
    if (vs.length > 0) req.warn(`would violate PodSecurity ${JSON.stringify(levelVersionString(lv))}: ${forbiddenDetail(vs)}`);
  }

  /** Labels must parse; raising enforce warns about existing pods that would now be refused. */
  private checkNamespace(req: AdmissionRequest): Promise<void> | void {
    const ns = req.object;
    if (!ns) return;
    const labels = rec(ns.metadata?.labels);
    const name = req.name || String(ns.metadata?.name ?? '');
    const next = policyFromLabels(labels, this.config.defaults);
    const refuse = () => invalid({ kind: 'namespaces', name }, next.errors.map((e) => fieldError.invalid(e.field, e.value, e.message)));
    if (req.operation === 'CREATE') {
      if (next.errors.length > 0) throw refuse();
      return;
    }
    const before = policyFromLabels(rec(req.oldObject?.metadata?.labels), this.config.defaults);
    if (next.errors.length > 0 && JSON.stringify(next.errors) !== JSON.stringify(before.errors)) throw refuse();
    const [now, was] = [next.policy.enforce, before.policy.enforce];
    if (sameLevelVersion(now, was) || now.level === 'privileged') return;
    const relaxed = now.minor === was.minor && ['privileged', 'baseline', 'restricted'].indexOf(now.level) <= ['privileged', 'baseline', 'restricted'].indexOf(was.level);
    if (relaxed) return;
    if (this.config.exemptNamespaces.has(name)) return req.annotate(EXEMPT_ANNOTATION, 'namespace');
    return this.warnExistingPods(req, name, now);
  }

  private async warnExistingPods(req: AdmissionRequest, namespace: string, enforce: LevelVersion): Promise<void> {
    const all = (await this.objects.list('', 'pods', namespace)).slice().sort((a, b) => String(a.metadata?.name).localeCompare(String(b.metadata?.name)));
    const pods = all.slice(0, MAX_PODS_TO_CHECK);
    for (const w of existingPodWarnings(namespace, enforce, pods, all.length)) req.warn(w);
  }
}

/** The warnings about pods that violate a namespace's new enforce level, grouped by reasons, in the reference's form. */
export function existingPodWarnings(namespace: string, enforce: LevelVersion, pods: readonly ApiObject[], total = pods.length): string[] {
  const byReason = new Map<string, { first: string; count: number }>();
  for (const pod of pods) {
    const vs = evaluatePod(enforce.level, enforce.minor, (pod.metadata ?? {}) as Rec, rec(pod.spec) ?? {});
    if (vs.length === 0) continue;
    const reason = forbiddenReason(vs);
    const name = String(pod.metadata?.name ?? '');
    const seen = byReason.get(reason);
    if (!seen) byReason.set(reason, { first: name, count: 1 });
    else (seen.count++, name < seen.first && (seen.first = name));
  }
  const out: string[] = [];
  if (pods.length < total) out.push(`new PodSecurity enforce level only checked against the first ${pods.length} of ${total} existing pods`);
  if (byReason.size > 0) out.push(`existing pods in namespace ${JSON.stringify(namespace)} violate the new PodSecurity enforce level ${JSON.stringify(levelVersionString(enforce))}`);
  const decorated = [...byReason].map(([reason, { first, count }]) =>
    count === 1 ? `${first}: ${reason}` : count === 2 ? `${first} (and 1 other pod): ${reason}` : `${first} (and ${count - 1} other pods): ${reason}`);
  return [...out, ...decorated.sort()];
}

export function podSecurityPlugin(deps: AdmissionDeps, configuration: unknown): AdmissionPlugin {
  return new PodSecurityPlugin(deps.objects, parsePodSecurityConfig(configuration));
}
