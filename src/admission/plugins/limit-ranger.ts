/**
 * LimitRanger (reference plugin, on by default). The LimitRanges of a namespace bound what its pods and
 * claims may ask for. Mutating: a pod being created gets each range's container defaults for the requests
 * and limits its containers leave out, and an annotation saying what was set. Validating: every container,
 * every pod as a whole, and every claim's storage request (create and resize) must keep each range's min,
 * max and limit-to-request ratio; the first range broken refuses the request with 403.
 */
import { LIMIT_RANGER_ANNOTATION } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { isObject } from '../../api/types.js';
import { forbiddenFor, noConfiguration } from './common.js';
import { aggregateMessage, applyContainerDefaults, claimViolations, containerDefaults, hasDefaults, podViolations } from './limit-ranger-rules.js';
import type { AdmissionDeps, AdmissionOperation, AdmissionPlugin, AdmissionRequest, ObjectReader } from '../types.js';

export const LIMIT_RANGER = 'LimitRanger';
const LIMIT_RANGES = 'limitranges';
const ANNOTATION_LEAD = 'LimitRanger plugin set: ';

type Target = 'pods' | 'persistentvolumeclaims';

/**
 * What the request is to this plugin: a pod create or a claim create/update, on the object itself, not one
 * being deleted. Pod updates are left alone: their containers' resources cannot change there.
 */
function targetOf(req: AdmissionRequest): Target | undefined {
  const r = req.resource;
  if (r.group !== '' || req.subResource !== '' || !isObject(req.object?.spec)) return undefined;
  if (req.oldObject?.metadata?.deletionTimestamp) return undefined;
  if (r.resource === 'pods') return req.operation === 'CREATE' ? 'pods' : undefined;
  return r.resource === 'persistentvolumeclaims' ? 'persistentvolumeclaims' : undefined;
}

const byName = (a: ApiObject, b: ApiObject) => String(a.metadata?.name ?? '').localeCompare(String(b.metadata?.name ?? ''));

export class LimitRangerPlugin implements AdmissionPlugin {
  readonly name = LIMIT_RANGER;

  constructor(private readonly objects: ObjectReader) {}

  handles(op: AdmissionOperation): boolean {
    return op === 'CREATE' || op === 'UPDATE';
  }

  admit(req: AdmissionRequest): Promise<void> | void {
    if (targetOf(req) !== 'pods') return;
    return this.defaultPod(req);
  }

  validate(req: AdmissionRequest): Promise<void> | void {
    const target = targetOf(req);
    if (target === undefined) return;
    return this.check(req, target);
  }

  private async ranges(namespace: string): Promise<ApiObject[]> {
    const found = await this.objects.list('', LIMIT_RANGES, namespace);
    return found.length > 1 ? [...found].sort(byName) : found;
  }

  /** Each range in turn fills what is still missing; the annotation names what the last one to act set. */
  private async defaultPod(req: AdmissionRequest): Promise<void> {
    const pod = req.object as ApiObject;
    const spec = pod.spec as Record<string, unknown>;
    for (const lr of await this.ranges(req.namespace)) {
      const defaults = containerDefaults(lr);
      if (!hasDefaults(defaults)) continue;
      const set = applyContainerDefaults(spec, defaults);
      if (set.length === 0) continue;
      const meta = (pod.metadata ??= {});
      const annotations = isObject(meta.annotations) ? meta.annotations : (meta.annotations = {});
      annotations[LIMIT_RANGER_ANNOTATION] = ANNOTATION_LEAD + set.join('; ');
    }
  }

  private async check(req: AdmissionRequest, target: Target): Promise<void> {
    const spec = (req.object as ApiObject).spec as Record<string, unknown>;
    for (const lr of await this.ranges(req.namespace)) {
      const broken = target === 'pods' ? podViolations(lr, spec) : claimViolations(lr, spec);
      if (broken.length > 0) throw forbiddenFor(req, aggregateMessage(broken));
    }
  }
}

export function limitRangerPlugin(deps: AdmissionDeps, configuration: unknown): AdmissionPlugin {
  noConfiguration(LIMIT_RANGER, configuration);
  return new LimitRangerPlugin(deps.objects);
}
