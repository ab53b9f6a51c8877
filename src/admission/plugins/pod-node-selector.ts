/**
 * PodNodeSelector (reference plugin, off by default). A namespace's node selector comes from its annotation
 * `scheduler.alpha.orch.io/node-selector` (present but empty means "none"), else from the configuration's
 * `clusterDefaultNodeSelector`. A new pod whose own `spec.nodeSelector` gives another value for one of those
 * keys is refused; otherwise the namespace's selector is merged into the pod's (the pod's keys win). The
 * configuration may also give a namespace a whitelist: the pod's final selector must then only use labels
 * (key and value) of it. Selectors are `key=value` pairs separated by commas.
 *
 * Configuration (optional, the AdmissionConfiguration `path` or `configuration`):
 *   podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: "<selector>", <namespace>: "<selector>", ... }
 */
import { NAMESPACE_NODE_SELECTOR_ANNOTATION } from '../../api/naming.js';
import { isObject, type ApiObject } from '../../api/types.js';
import { labelKeyErrors, labelValueErrors } from '../../selectors/index.js';
import { TextMemo } from '../../util/text-memo.js';
import { CLUSTER_DEFAULT_KEY, parseNodeSelectorDocument } from '../../config/pod-node-selector.js';
import { annotationOf, forbiddenNamed, namespaceNamed, objectName } from './placement-common.js';
import { andThen, isPodWrite, specOf } from './pod-request.js';
import type { AdmissionDeps, AdmissionOperation, AdmissionPlugin, AdmissionRequest, ObjectReader } from '../types.js';

export const POD_NODE_SELECTOR = 'PodNodeSelector';
export { POD_NODE_SELECTOR_CONFIG_FIELD as CONFIG_FIELD, CLUSTER_DEFAULT_KEY } from '../../config/pod-node-selector.js';

const CONFLICT = 'pod node label selector conflicts with its namespace node label selector';
const NOT_WHITELISTED = 'pod node label selector labels conflict with its namespace whitelist';

export type Labels = Readonly<Record<string, string>>;

/** Parses `k1=v1,k2=v2` (blanks around keys and values ignored; '' is no labels); throws an Error saying why. */
export function parseSelectorLabels(selector: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (selector === '') return out;
  for (const pair of selector.split(',')) {
    const parts = pair.split('=');
    if (parts.length !== 2) throw new Error(`invalid selector: [${parts.join(' ')}]`);
    const key = (parts[0] as string).trim();
    const value = (parts[1] as string).trim();
    const keyErrs = labelKeyErrors(key);
    if (keyErrs.length > 0) throw new Error(`Invalid value: ${JSON.stringify(key)}: ${keyErrs.join('; ')}`);
    const valueErrs = labelValueErrors(value);
    if (valueErrs.length > 0) throw new Error(`Invalid value: ${JSON.stringify(value)}: ${valueErrs.join('; ')}`);
    out[key] = value;
  }
  return out;
}

/** Whether a key is in both with different values. */
export function conflicts(a: Labels, b: Labels): boolean {
  for (const [k, v] of Object.entries(a)) if (Object.hasOwn(b, k) && b[k] !== v) return true;
  return false;
}

/** Every label of `sub` is in `whitelist` with the same value; an empty whitelist allows everything. */
export function withinWhitelist(sub: Labels, whitelist: Labels): boolean {
  if (Object.keys(whitelist).length === 0) return true;
  return Object.entries(sub).every(([k, v]) => Object.hasOwn(whitelist, k) && whitelist[k] === v);
}

/** The plugin's configuration: namespace (or the cluster default key) → its parsed labels. */
export function parsePodNodeSelectorConfiguration(raw: unknown): Map<string, Labels> {
  return parseNodeSelectorDocument(raw, parseSelectorLabels);
}

const NO_LABELS: Labels = Object.freeze({});

export class PodNodeSelectorPlugin implements AdmissionPlugin {
  readonly name = POD_NODE_SELECTOR;
  private readonly clusterDefault: Labels;
  /** Namespaces' annotations, parsed once per distinct text (an Error when unusable). */
  private readonly parsed = new TextMemo<Labels | Error>(256, 4096);

  constructor(
    private readonly objects: ObjectReader,
    private readonly selectors: ReadonlyMap<string, Labels>,
  ) {
    this.clusterDefault = selectors.get(CLUSTER_DEFAULT_KEY) ?? NO_LABELS;
  }

  handles(op: AdmissionOperation): boolean {
    return op === 'CREATE';
  }

  admit(req: AdmissionRequest): Promise<void> | void {
    if (!isPodWrite(req) || !specOf(req.object)) return;
    return andThen(namespaceNamed(this.objects, req.namespace), (ns) => {
      const spec = specOf(req.object);
      if (!spec) return;
      const nsLabels = this.namespaceLabels(req, ns);
      const own = isObject(spec.nodeSelector) ? (spec.nodeSelector as Labels) : NO_LABELS;
      if (conflicts(nsLabels, own)) throw forbiddenNamed(req, objectName(req.object), CONFLICT);
      const merged: Record<string, string> = { ...nsLabels, ...own };
      const keys = Object.keys(merged).sort();
      if (keys.length > 0) spec.nodeSelector = Object.fromEntries(keys.map((k) => [k, merged[k]]));
      this.check(req, nsLabels);
    });
  }

  validate(req: AdmissionRequest): Promise<void> | void {
    if (!isPodWrite(req) || !specOf(req.object)) return;
    return andThen(namespaceNamed(this.objects, req.namespace), (ns) => this.check(req, this.namespaceLabels(req, ns)));
  }

  /** No conflict with the namespace's selector, and only whitelisted labels when the namespace has a whitelist. */
  private check(req: AdmissionRequest, nsLabels: Labels): void {
    const spec = specOf(req.object);
    const own = spec && isObject(spec.nodeSelector) ? (spec.nodeSelector as Labels) : NO_LABELS;
    if (conflicts(nsLabels, own)) throw forbiddenNamed(req, objectName(req.object), CONFLICT);
    if (!withinWhitelist(own, this.selectors.get(req.namespace) ?? NO_LABELS)) throw forbiddenNamed(req, objectName(req.object), NOT_WHITELISTED);
  }

  /** The namespace's annotation when set (even to ''), else the cluster default. */
  private namespaceLabels(req: AdmissionRequest, ns: ApiObject): Labels {
    const annotation = annotationOf(ns, NAMESPACE_NODE_SELECTOR_ANNOTATION);
    if (annotation === undefined) return this.clusterDefault;
    const labels = this.parsed.get(annotation) ?? this.parsed.set(annotation, parseOrError(annotation));
    if (labels instanceof Error) {
      throw forbiddenNamed(req, objectName(req.object), `namespace ${req.namespace} has an unusable ${NAMESPACE_NODE_SELECTOR_ANNOTATION} annotation: ${labels.message}`);
    }
    return labels;
  }
}

function parseOrError(selector: string): Labels | Error {
  try {
    return Object.freeze(parseSelectorLabels(selector));
  } catch (e) {
    return e as Error;
  }
}

export function podNodeSelectorPlugin(deps: AdmissionDeps, configuration: unknown): AdmissionPlugin {
  return new PodNodeSelectorPlugin(deps.objects, parsePodNodeSelectorConfiguration(configuration));
}
