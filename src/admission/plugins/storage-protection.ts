/**
 * StorageObjectInUseProtection (reference plugin, on by default). A new PersistentVolumeClaim gets the
 * pvc-protection finalizer and a new PersistentVolume the pv-protection finalizer, so that deleting one
 * still in use only marks it: the protection controllers remove the finalizer once nothing uses it.
 * Only creates of the objects themselves are touched (never subresources, never updates).
 */
import { PV_PROTECTION_FINALIZER, PVC_PROTECTION_FINALIZER } from '../../api/naming.js';
import { noConfiguration } from './common.js';
import type { AdmissionDeps, AdmissionOperation, AdmissionPlugin, AdmissionRequest } from '../types.js';

export const STORAGE_OBJECT_IN_USE_PROTECTION = 'StorageObjectInUseProtection';

/** The finalizer each core resource gets on create. */
const FINALIZERS: ReadonlyMap<string, string> = new Map([
  ['persistentvolumeclaims', PVC_PROTECTION_FINALIZER],
  ['persistentvolumes', PV_PROTECTION_FINALIZER],
]);

export class StorageObjectInUseProtectionPlugin implements AdmissionPlugin {
  readonly name = STORAGE_OBJECT_IN_USE_PROTECTION;

  handles(op: AdmissionOperation): boolean {
    return op === 'CREATE';
  }

  admit(req: AdmissionRequest): void {
    if (req.resource.group !== '' || req.subResource !== '' || !req.object) return;
    const finalizer = FINALIZERS.get(req.resource.resource);
    if (!finalizer) return;
    const metadata = (req.object.metadata ??= {});
    const current = Array.isArray(metadata.finalizers) ? metadata.finalizers : [];
    if (current.includes(finalizer)) return;
    metadata.finalizers = [...current, finalizer];
  }
}

export function storageObjectInUseProtectionPlugin(_deps: AdmissionDeps, configuration: unknown): AdmissionPlugin {
  noConfiguration(STORAGE_OBJECT_IN_USE_PROTECTION, configuration);
  return new StorageObjectInUseProtectionPlugin();
}
