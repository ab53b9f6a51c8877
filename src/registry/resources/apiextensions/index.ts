/**
 * apiextensions/v1 CustomResourceDefinition: stored, defaulted and validated here, with the reference's
 * status rules (a create starts with only the storage version recorded; each spec write records the
 * current storage version). Serving the custom resources themselves is the registry's dynamic types' job.
 */
import { APIEXTENSIONS_GROUP, CRD_CLEANUP_FINALIZER } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { API_EXTENSIONS } from '../admissionregistration/index.js';
import { referenceType } from '../reference.js';
import { isRec } from '../events/fields.js';
import { defaultCRD, defaultCRDStatus, recordStorageVersion } from './defaults.js';
import { validateCRD, validateCRDUpdate } from './validation.js';

export { APIEXTENSIONS_GROUP };

export const customResourceDefinitions: ResourceType = referenceType(APIEXTENSIONS_GROUP, 'v1', 'customresourcedefinitions', {
  shortNames: ['crd', 'crds'],
  categories: API_EXTENSIONS,
  // The reference prints CRDs with its default table: NAME and CREATED AT.
  tableColumns: [],
  strategy: {
    // The shared status rules run first: a create drops status, an update keeps the stored one.
    prepareForCreate(o: ApiObject) {
      o.status = {};
      defaultCRD(o);
      // The cleanup finalizer from the start (the reference's controller adds it on first sight): a CRD
      // deleted before any controller saw it still deletes its instances first.
      const meta = (o.metadata ??= {});
      const finalizers = Array.isArray(meta.finalizers) ? (meta.finalizers as string[]) : [];
      if (!finalizers.includes(CRD_CLEANUP_FINALIZER)) meta.finalizers = [...finalizers, CRD_CLEANUP_FINALIZER];
    },
    prepareForUpdate(o: ApiObject) {
      // The status is the stored object's: copy it before recording the storage version in it.
      if (isRec(o.status)) o.status = structuredClone(o.status);
      defaultCRD(o);
      recordStorageVersion(o);
    },
    prepareForStatusUpdate(o: ApiObject) {
      defaultCRDStatus(o);
    },
    validate: validateCRD,
    validateUpdate: validateCRDUpdate,
  },
});

export const apiextensionsTypes: ResourceType[] = [customResourceDefinitions];
