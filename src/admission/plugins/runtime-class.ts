/**
 * RuntimeClass (reference plugin, on by default). A pod naming `spec.runtimeClassName` is refused when the
 * class does not exist; otherwise it gets the class's `overhead.podFixed` as `spec.overhead` (a pod stating
 * another overhead is refused), the class's `scheduling.nodeSelector` merged into its own (a key with
 * another value is a conflict, 403) and the class's tolerations added. The validating stage refuses a pod
 * whose overhead does not match its class (or that has one without a class that defines one). Creates only.
 */
import { NODE_GROUP } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { isObject } from '../../api/types.js';
import { forbiddenFor, noConfiguration } from './common.js';
import { andThen, isPodWrite, objectsIn, specOf, type Obj } from './pod-request.js';
import { parseQuantity } from './quantity.js';
import { mergeTolerations } from './toleration-merge.js';
import type { AdmissionDeps, AdmissionOperation, AdmissionPlugin, AdmissionRequest, ObjectReader } from '../types.js';

export const RUNTIME_CLASS = 'RuntimeClass';
const RUNTIME_CLASSES = 'runtimeclasses';
const OVERHEAD_MISMATCH = "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead";
const OVERHEAD_WITHOUT_CLASS = 'pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead';

const present = (v: unknown) => v !== undefined && v !== null;

/** The class's fixed pod overhead, or undefined when it defines none. */
function podFixedOf(rc: ApiObject | undefined): Obj | undefined {
  const overhead = rc && isObject(rc.overhead) ? rc.overhead : undefined;
  return overhead && isObject(overhead.podFixed) ? overhead.podFixed : undefined;
}

/** Two resource lists with the same names and equal quantities ("1" equals "1000m"). */
export function sameResources(a: Obj, b: Obj): boolean {
  const names = Object.keys(a);
  if (names.length !== Object.keys(b).length) return false;
  return names.every((n) => {
    if (!(n in b)) return false;
    const qa = parseQuantity(a[n]);
    const qb = parseQuantity(b[n]);
    return qa && qb ? qa.nano === qb.nano : a[n] === b[n];
  });
}

/** The first conflict between the class's node selector and the pod's, in the reference's words. */
export function nodeSelectorConflict(classSelector: Obj, podSelector: Obj): string | undefined {
  for (const [key, value] of Object.entries(classSelector)) {
    const podValue = podSelector[key];
    if (podValue !== undefined && podValue !== value) {
      return `conflict: runtimeClass.scheduling.nodeSelector[${key}] = ${String(value)}; pod.spec.nodeSelector[${key}] = ${String(podValue)}`;
    }
  }
  return undefined;
}

export class RuntimeClassPlugin implements AdmissionPlugin {
  readonly name = RUNTIME_CLASS;

  constructor(private readonly objects: ObjectReader) {}

  handles(op: AdmissionOperation): boolean {
    return op === 'CREATE';
  }

  admit(req: AdmissionRequest): void | Promise<void> {
    const spec = isPodWrite(req) ? specOf(req.object) : undefined;
    // A name of the wrong type is the type validation's to refuse (422 naming the field).
    if (!spec || typeof spec.runtimeClassName !== 'string') return;
    return andThen(this.runtimeClass(req, spec.runtimeClassName), (rc) => {
      setOverhead(req, spec, rc);
      setScheduling(req, spec, rc);
    });
  }

  validate(req: AdmissionRequest): void | Promise<void> {
    const spec = isPodWrite(req) ? specOf(req.object) : undefined;
    if (!spec) return;
    if (typeof spec.runtimeClassName !== 'string') return checkOverhead(req, spec, undefined);
    return andThen(this.runtimeClass(req, spec.runtimeClassName), (rc) => checkOverhead(req, spec, rc));
  }

  /** The class from the watch cache when it holds it, else from storage; a missing one refuses the pod. */
  private runtimeClass(req: AdmissionRequest, key: string): ApiObject | Promise<ApiObject> {
    const cached = this.objects.peek?.(NODE_GROUP, RUNTIME_CLASSES, undefined, key);
    if (cached) return cached;
    return this.objects.get(NODE_GROUP, RUNTIME_CLASSES, undefined, key).then((rc) => {
      if (!rc) throw forbiddenFor(req, `pod rejected: RuntimeClass ${JSON.stringify(key)} not found`);
      return rc;
    });
  }
}

function setOverhead(req: AdmissionRequest, spec: Obj, rc: ApiObject): void {
  const podFixed = podFixedOf(rc);
  if (!podFixed) return;
  const stated = isObject(spec.overhead) ? spec.overhead : undefined;
  if (stated && Object.keys(stated).length > 0 && !sameResources(podFixed, stated)) throw forbiddenFor(req, OVERHEAD_MISMATCH);
  spec.overhead = { ...podFixed };
}

function setScheduling(req: AdmissionRequest, spec: Obj, rc: ApiObject): void {
  const scheduling = isObject(rc.scheduling) ? rc.scheduling : undefined;
  if (!scheduling) return;
  const classSelector = isObject(scheduling.nodeSelector) ? scheduling.nodeSelector : undefined;
  if (classSelector) {
    if (isObject(spec.nodeSelector)) {
      const conflict = nodeSelectorConflict(classSelector, spec.nodeSelector);
      if (conflict) throw forbiddenFor(req, conflict);
      Object.assign(spec.nodeSelector, classSelector);
    } else {
      spec.nodeSelector = { ...classSelector };
    }
  }
  const merged = mergeTolerations(objectsIn(spec.tolerations), objectsIn(scheduling.tolerations));
  if (merged.length > 0 || Array.isArray(spec.tolerations)) spec.tolerations = merged;
}

function checkOverhead(req: AdmissionRequest, spec: Obj, rc: ApiObject | undefined): void {
  const podFixed = podFixedOf(rc);
  if (podFixed) {
    if (!isObject(spec.overhead) || !sameResources(podFixed, spec.overhead)) throw forbiddenFor(req, OVERHEAD_MISMATCH);
  } else if (present(spec.overhead)) {
    throw forbiddenFor(req, OVERHEAD_WITHOUT_CLASS);
  }
}

export function runtimeClassPlugin(deps: AdmissionDeps, configuration: unknown): AdmissionPlugin {
  noConfiguration(RUNTIME_CLASS, configuration);
  return new RuntimeClassPlugin(deps.objects);
}
