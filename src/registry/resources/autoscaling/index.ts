/**
 * HorizontalPodAutoscaler, served as autoscaling/v2 (the stored form) and autoscaling/v1 (converted), both
 * on one storage: an object written through either version reads back through the other.
 */
import type { ApiObject } from '../../../api/types.js';
import { metadataForStatusWrite } from '../../object-meta.js';
import type { ResourceType } from '../../types.js';
import { referenceType } from '../reference.js';
import { rec } from '../batch/fields.js';
import { hpaV1ToV2, hpaV2ToV1, ROUND_TRIP_ANNOTATIONS, STATUS_ANNOTATIONS } from './convert.js';
import { applyHpaV1Defaults, applyHpaV2Defaults } from './defaults.js';
import { convertedColumns, hpaColumns } from './table.js';
import { validateHpa } from './validation.js';

export { hpaV1ToV2, hpaV2ToV1 } from './convert.js';

export const HPA_STORAGE_KEY = 'autoscaling/horizontalpodautoscalers';

/** v1 -> stored v2, with the v2 defaults the reference applies when it reads the object back. */
export function hpaV1ToStorage(v1: ApiObject): ApiObject {
  const v2 = hpaV1ToV2(v1);
  applyHpaV2Defaults(v2);
  return v2;
}

const common = {
  shortNames: ['hpa'],
  categories: ['all'],
  storageKey: HPA_STORAGE_KEY,
};

export const hpaV2: ResourceType = referenceType('autoscaling', 'v2', 'horizontalpodautoscalers', {
  ...common,
  tableColumns: hpaColumns,
  strategy: {
    prepareForCreate: applyHpaV2Defaults,
    prepareForUpdate: (o) => applyHpaV2Defaults(o),
    validate: validateHpa,
  },
});

/**
 * Sets the annotations named in `keys` on `o` to those of `from` (removing the ones `from` lacks). In the
 * v1 view status lives partly in annotations, so the status rules must move them along with `status`.
 */
function takeAnnotations(o: ApiObject, from: ApiObject | undefined, keys: readonly string[]): void {
  const annotations: Record<string, string> = { ...(rec(o.metadata?.annotations) as Record<string, string>) };
  const source = rec(from?.metadata?.annotations) as Record<string, string>;
  for (const k of keys) {
    if (k in source) annotations[k] = source[k] as string;
    else delete annotations[k];
  }
  const meta = { ...(o.metadata ?? {}) };
  if (Object.keys(annotations).length > 0) meta.annotations = annotations;
  else delete meta.annotations;
  o.metadata = meta;
}

const specAnnotations = ROUND_TRIP_ANNOTATIONS.filter((k) => !STATUS_ANNOTATIONS.includes(k));

export const hpaV1: ResourceType = referenceType(
  'autoscaling',
  'v1',
  'horizontalpodautoscalers',
  {
    ...common,
    tableColumns: convertedColumns(hpaColumns, hpaV1ToStorage),
    toStorage: hpaV1ToStorage,
    fromStorage: hpaV2ToV1,
    strategy: {
      prepareForCreate(o) {
        delete o.status;
        takeAnnotations(o, undefined, STATUS_ANNOTATIONS);
        applyHpaV1Defaults(o);
      },
      prepareForUpdate(o, old) {
        if (old.status === undefined) delete o.status;
        else o.status = old.status;
        takeAnnotations(o, old, STATUS_ANNOTATIONS);
        applyHpaV1Defaults(o);
      },
      prepareForStatusUpdate(o, old) {
        const given = structuredClone(o);
        o.spec = old.spec;
        o.metadata = metadataForStatusWrite(o, old);
        // Spec annotations stay as stored; status annotations come with the new status.
        takeAnnotations(o, old, specAnnotations);
        takeAnnotations(o, given, STATUS_ANNOTATIONS);
      },
      // The reference validates the converted object: paths name the v2 fields.
      validate: (o) => validateHpa(hpaV1ToStorage(o)),
    },
  },
  true,
);

/** Types of this group with behaviour of their own; the group's other resources are served from the reference data alone. */
export const autoscalingTypes: ResourceType[] = [hpaV1, hpaV2];
