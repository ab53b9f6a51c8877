/**
 * Priority (reference plugin, on by default). Pods: on create, `spec.priority` and `spec.preemptionPolicy`
 * come from the PriorityClass named by `spec.priorityClassName`, or from the global default class when none
 * is named (priority 0 and PreemptLowerPriority when there is none); a pod that states other values, or
 * names a class that does not exist, is refused. On update the values resolved at creation are kept.
 * PriorityClasses: at most one may be the global default.
 */
import { SCHEDULING_GROUP } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { isObject } from '../../api/types.js';
import { forbiddenFor, noConfiguration } from './common.js';
import type { AdmissionDeps, AdmissionOperation, AdmissionPlugin, AdmissionRequest, ObjectReader } from '../types.js';

export const PRIORITY = 'Priority';
const PRIORITY_CLASSES = 'priorityclasses';
/** What a pod gets when no class is named and none is the global default. */
const PRIORITY_WITHOUT_DEFAULT_CLASS = 0;
const DEFAULT_PREEMPTION_POLICY = 'PreemptLowerPriority';

const isPods = (req: AdmissionRequest) => req.resource.group === '' && req.resource.resource === 'pods' && req.subResource === '';
const isClasses = (req: AdmissionRequest) => req.resource.group === SCHEDULING_GROUP && req.resource.resource === PRIORITY_CLASSES && req.subResource === '';

/** The global default class; after a race left several, the one of lowest value (as the reference picks). */
export function globalDefaultClass(classes: readonly ApiObject[]): ApiObject | undefined {
  let found: ApiObject | undefined;
  for (const pc of classes) {
    if (pc.globalDefault !== true) continue;
    if (!found || Number(pc.value) < Number(found.value)) found = pc;
  }
  return found;
}

export class PriorityPlugin implements AdmissionPlugin {
  readonly name = PRIORITY;

  constructor(private readonly objects: ObjectReader) {}

  handles(op: AdmissionOperation): boolean {
    return op === 'CREATE' || op === 'UPDATE';
  }

  admit(req: AdmissionRequest): Promise<void> | void {
    if (!isPods(req) || !isObject(req.object?.spec)) return;
    const spec = req.object.spec as Record<string, unknown>;
    if (req.operation === 'UPDATE') {
      // Validation keeps these immutable; a client that left them out keeps what creation resolved.
      const old = isObject(req.oldObject?.spec) ? req.oldObject.spec : {};
      if (spec.priority === undefined && old.priority !== undefined) spec.priority = old.priority;
      if (spec.preemptionPolicy === undefined && old.preemptionPolicy !== undefined) spec.preemptionPolicy = old.preemptionPolicy;
      return;
    }
    return this.resolvePod(req, spec);
  }

  validate(req: AdmissionRequest): Promise<void> | void {
    if (!isClasses(req) || req.object?.globalDefault !== true) return;
    return this.onlyOneDefault(req);
  }

  private async resolvePod(req: AdmissionRequest, spec: Record<string, unknown>): Promise<void> {
    const className = typeof spec.priorityClassName === 'string' ? spec.priorityClassName : '';
    let priority = PRIORITY_WITHOUT_DEFAULT_CLASS;
    let policy: unknown = DEFAULT_PREEMPTION_POLICY;
    if (className === '') {
      const dflt = globalDefaultClass(await this.objects.list(SCHEDULING_GROUP, PRIORITY_CLASSES));
      if (dflt) {
        spec.priorityClassName = dflt.metadata?.name;
        priority = Number(dflt.value);
        policy = dflt.preemptionPolicy;
      }
    } else {
      const pc = await this.objects.get(SCHEDULING_GROUP, PRIORITY_CLASSES, undefined, className);
      if (!pc) throw forbiddenFor(req, `no PriorityClass with name ${className} was found`);
      priority = Number(pc.value);
      policy = pc.preemptionPolicy;
    }
    if (spec.priority !== undefined && spec.priority !== null && spec.priority !== priority) {
      throw forbiddenFor(req, `the integer value of priority (${String(spec.priority)}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`);
    }
    spec.priority = priority;
    if (typeof policy === 'string') {
      if (spec.preemptionPolicy !== undefined && spec.preemptionPolicy !== null && spec.preemptionPolicy !== policy) {
        throw forbiddenFor(req, `the string value of PreemptionPolicy (${String(spec.preemptionPolicy)}) must not be provided in pod spec; priority admission controller computed ${policy} from the given PriorityClass name`);
      }
      spec.preemptionPolicy = policy;
    }
  }

  /** Another class already being the default refuses a new default, or promoting another class. */
  private async onlyOneDefault(req: AdmissionRequest): Promise<void> {
    const existing = globalDefaultClass(await this.objects.list(SCHEDULING_GROUP, PRIORITY_CLASSES));
    if (!existing) return;
    if (req.operation === 'UPDATE' && existing.metadata?.name === req.name) return;
    throw forbiddenFor(req, `PriorityClass ${String(existing.metadata?.name)} is already marked as default. Only one default can exist`);
  }
}

export function priorityPlugin(deps: AdmissionDeps, configuration: unknown): AdmissionPlugin {
  noConfiguration(PRIORITY, configuration);
  return new PriorityPlugin(deps.objects);
}
