/**
 * PodTolerationRestriction (reference plugin, off by default). On a pod create, the namespace's default
 * tolerations (annotation `scheduler.alpha.orch.io/defaultTolerations`, a JSON list; when absent, the
 * configuration's `default`) are merged into the pod's; on create and update a pod that is not BestEffort
 * also tolerates the memory-pressure NoSchedule taint. Then every toleration of the pod must be covered by
 * the namespace's whitelist (annotation `scheduler.alpha.orch.io/tolerationsWhitelist`; when absent, the
 * configuration's `whitelist`); an empty whitelist allows everything. An annotation set to '' means an
 * empty list, not "use the configuration".
 *
 * Configuration (optional): `Configuration` (`podtolerationrestriction.admission.orch.io/v1alpha1`) with
 * `default` and `whitelist` lists of tolerations.
 */
import {
  NAMESPACE_DEFAULT_TOLERATIONS_ANNOTATION,
  NAMESPACE_TOLERATIONS_WHITELIST_ANNOTATION,
  TAINT_NODE_MEMORY_PRESSURE,
} from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { TextMemo } from '../../util/text-memo.js';
import { parseTolerationRestrictionDocument, type TolerationRestrictionConfig } from '../../config/pod-toleration-restriction.js';
import { annotationOf, forbiddenNamed, namespaceNamed, objectName } from './placement-common.js';
import { andThen, isPodWrite, objectsIn, specOf, type Obj } from './pod-request.js';
import { isBestEffort } from './quota-scopes.js';
import { isSuperset, mergeTolerations } from './toleration-merge.js';
import { decodeTolerations } from './toleration-rules.js';
import type { AdmissionDeps, AdmissionOperation, AdmissionPlugin, AdmissionRequest, ObjectReader } from '../types.js';

export const POD_TOLERATION_RESTRICTION = 'PodTolerationRestriction';
export {
  POD_TOLERATION_RESTRICTION_CONFIG_API_VERSION,
  POD_TOLERATION_RESTRICTION_CONFIG_KIND,
  type TolerationRestrictionConfig,
} from '../../config/pod-toleration-restriction.js';

/** The plugin's configuration, checked with the API's toleration rules; none given is empty lists. */
export function parsePodTolerationRestrictionConfiguration(raw: unknown): TolerationRestrictionConfig {
  return parseTolerationRestrictionDocument(raw, (list, field) => decodeTolerations(list, field, true));
}

/** Whether every toleration is covered by one of the whitelist (an empty whitelist or list passes). */
export function allowedByWhitelist(tolerations: readonly Obj[], whitelist: readonly Obj[]): boolean {
  if (whitelist.length === 0) return true;
  return tolerations.every((t) => whitelist.some((w) => isSuperset(w, t)));
}

const memoryPressureToleration = (): Obj => ({ key: TAINT_NODE_MEMORY_PRESSURE, operator: 'Exists', effect: 'NoSchedule' });
const copies = (list: readonly Obj[]): Obj[] => list.map((t) => ({ ...t }));

export class PodTolerationRestrictionPlugin implements AdmissionPlugin {
  readonly name = POD_TOLERATION_RESTRICTION;
  /** Annotation texts, decoded once per distinct text (an Error when unusable); shared, never changed. */
  private readonly decoded = new TextMemo<readonly Obj[] | Error>(256, 16 * 1024);

  constructor(
    private readonly objects: ObjectReader,
    private readonly config: TolerationRestrictionConfig,
  ) {}

  handles(op: AdmissionOperation): boolean {
    return op === 'CREATE' || op === 'UPDATE';
  }

  admit(req: AdmissionRequest): Promise<void> | void {
    if (!isPodWrite(req) || !specOf(req.object)) return;
    if (req.operation !== 'CREATE') return this.addAndCheck(req, []);
    return andThen(namespaceNamed(this.objects, req.namespace), (ns) => {
      const defaults = this.namespaceList(req, ns, NAMESPACE_DEFAULT_TOLERATIONS_ANNOTATION) ?? this.config.default;
      return this.addAndCheck(req, copies(defaults));
    });
  }

  validate(req: AdmissionRequest): Promise<void> | void {
    if (!isPodWrite(req)) return;
    const tolerations = objectsIn(specOf(req.object)?.tolerations);
    if (tolerations.length === 0) return;
    return andThen(namespaceNamed(this.objects, req.namespace), (ns) => {
      const own = this.namespaceList(req, ns, NAMESPACE_TOLERATIONS_WHITELIST_ANNOTATION);
      const scope = own ? 'namespace' : 'cluster';
      if (allowedByWhitelist(tolerations, own ?? this.config.whitelist)) return;
      throw forbiddenNamed(req, objectName(req.object), `pod tolerations (possibly merged with namespace default tolerations) conflict with its ${scope} whitelist`);
    });
  }

  private addAndCheck(req: AdmissionRequest, extra: Obj[]): Promise<void> | void {
    const spec = specOf(req.object) as Obj;
    if (!isBestEffort(spec)) extra.push(memoryPressureToleration());
    if (extra.length > 0) spec.tolerations = mergeTolerations(objectsIn(spec.tolerations), extra);
    return this.validate(req);
  }

  /** The namespace's list under `key`; undefined when the annotation is absent ('' is an empty list). */
  private namespaceList(req: AdmissionRequest, ns: ApiObject, key: string): readonly Obj[] | undefined {
    const text = annotationOf(ns, key);
    if (text === undefined) return undefined;
    const list = this.decoded.get(text) ?? this.decoded.set(text, decodeAnnotation(text));
    if (list instanceof Error) {
      throw forbiddenNamed(req, objectName(req.object), `namespace ${req.namespace} has an unusable ${key} annotation: ${list.message}`);
    }
    return list;
  }
}

function decodeAnnotation(text: string): readonly Obj[] | Error {
  if (text === '') return [];
  try {
    return Object.freeze(decodeTolerations(JSON.parse(text), 'tolerations', false));
  } catch (e) {
    return e instanceof SyntaxError ? new Error(`not a JSON list of tolerations: ${e.message}`) : (e as Error);
  }
}

export function podTolerationRestrictionPlugin(deps: AdmissionDeps, configuration: unknown): AdmissionPlugin {
  return new PodTolerationRestrictionPlugin(deps.objects, parsePodTolerationRestrictionConfiguration(configuration));
}
