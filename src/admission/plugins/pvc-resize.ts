/**
 * PersistentVolumeClaimResize (reference plugin, on by default). An update that asks a claim for more
 * storage (`spec.resources.requests.storage` grows) is allowed only for a bound claim whose StorageClass,
 * the same before and after, says `allowVolumeExpansion: true`; a class that cannot be found, or a claim
 * without one, cannot grow. Shrinking and other changes are left to validation.
 */
import { BETA_STORAGE_CLASS_ANNOTATION, STORAGE_GROUP } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { isObject } from '../../api/types.js';
import { forbiddenFor, noConfiguration } from './common.js';
import { compareQuantity, parseQuantity, ZERO } from './quantity.js';
import type { AdmissionDeps, AdmissionOperation, AdmissionPlugin, AdmissionRequest, ObjectReader } from '../types.js';

export const PERSISTENT_VOLUME_CLAIM_RESIZE = 'PersistentVolumeClaimResize';

export const NOT_BOUND_MESSAGE = 'Only bound persistent volume claims can be expanded';
export const NOT_EXPANDABLE_MESSAGE = 'only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (isObject(v) ? v : {});

const requestedStorage = (pvc: ApiObject) => parseQuantity(obj(obj(obj(pvc.spec).resources).requests).storage) ?? ZERO;

/** The claim's class: the beta annotation wins over `spec.storageClassName`, as the reference reads it. */
export function claimClass(pvc: ApiObject): string {
  const annotated = pvc.metadata?.annotations?.[BETA_STORAGE_CLASS_ANNOTATION];
  if (annotated !== undefined) return String(annotated);
  const named = obj(pvc.spec).storageClassName;
  return typeof named === 'string' ? named : '';
}

export class PersistentVolumeClaimResizePlugin implements AdmissionPlugin {
  readonly name = PERSISTENT_VOLUME_CLAIM_RESIZE;

  constructor(private readonly objects: ObjectReader) {}

  handles(op: AdmissionOperation): boolean {
    return op === 'UPDATE';
  }

  validate(req: AdmissionRequest): Promise<void> | void {
    if (req.resource.group !== '' || req.resource.resource !== 'persistentvolumeclaims' || req.subResource !== '') return;
    const pvc = req.object;
    const old = req.oldObject;
    if (!pvc || !old) return;
    if (compareQuantity(requestedStorage(pvc), requestedStorage(old)) <= 0) return;
    if (obj(old.status).phase !== 'Bound') throw forbiddenFor(req, NOT_BOUND_MESSAGE);
    return this.classAllowsExpansion(pvc, old).then((ok) => {
      if (!ok) throw forbiddenFor(req, NOT_EXPANDABLE_MESSAGE);
    });
  }

  private async classAllowsExpansion(pvc: ApiObject, old: ApiObject): Promise<boolean> {
    const name = claimClass(pvc);
    if (name === '' || name !== claimClass(old)) return false;
    const sc = this.objects.peek?.(STORAGE_GROUP, 'storageclasses', undefined, name) ?? (await this.objects.get(STORAGE_GROUP, 'storageclasses', undefined, name));
    return sc?.allowVolumeExpansion === true;
  }
}

export function persistentVolumeClaimResizePlugin(deps: AdmissionDeps, configuration: unknown): AdmissionPlugin {
  noConfiguration(PERSISTENT_VOLUME_CLAIM_RESIZE, configuration);
  return new PersistentVolumeClaimResizePlugin(deps.objects);
}
