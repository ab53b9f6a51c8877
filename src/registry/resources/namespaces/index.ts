/**
 * core/v1 Namespace: a cluster-scoped name space for other objects. Its lifecycle (spec 3.1) is driven by
 * `spec.finalizers` and `status.phase`; the finalizer list itself only changes through the finalize subresource.
 */
import { isObject, type ApiObject } from '../../../api/types.js';
import { NAMESPACE_FINALIZER, NAMESPACE_NAME_LABEL } from '../../../api/naming.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { column, pathValue } from '../../schema.js';
import { definitionSchema } from '../../reference-schema.js';
import type { ResourceType } from '../../types.js';
import { isQualifiedName } from '../../validation/index.js';
import { metadataForStatusWrite } from '../../object-meta.js';

/** Finalizer names without a `/` prefix must be one of the reference's standard names. */
const STANDARD_FINALIZERS = new Set([NAMESPACE_FINALIZER, 'orphan', 'foregroundDeletion']);

const schema = definitionSchema('api.core.v1.Namespace');

const specOf = (o: ApiObject): Record<string, unknown> => {
  if (!isObject(o.spec)) o.spec = {};
  return o.spec as Record<string, unknown>;
};

/** The reference keeps the name label equal to the name on every write, so selectors by name always work. */
function setNameLabel(o: ApiObject): void {
  const name = o.metadata?.name;
  if (!name) return;
  o.metadata = { ...o.metadata, labels: { ...(o.metadata?.labels ?? {}), [NAMESPACE_NAME_LABEL]: name } };
}

export const namespaces: ResourceType = {
  group: '',
  version: 'v1',
  kind: 'Namespace',
  listKind: 'NamespaceList',
  plural: 'namespaces',
  singular: 'namespace',
  shortNames: ['ns'],
  namespaced: false,
  subresources: ['status', 'finalize'],
  storageKey: 'core/namespaces',
  schema,
  strategy: {
    nameRule: 'label',
    tracksGeneration: false,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    prepareForCreate(o) {
      const spec = specOf(o);
      // The lifecycle finalizer is required on create; it may be removed later through /finalize.
      const finalizers = Array.isArray(spec.finalizers) ? (spec.finalizers as unknown[]) : [];
      if (!finalizers.includes(NAMESPACE_FINALIZER)) spec.finalizers = [...finalizers, NAMESPACE_FINALIZER];
      o.status = { phase: 'Active' };
      setNameLabel(o);
    },
    prepareForUpdate(o, old) {
      // Finalizers change only through the finalize subresource and status only through /status.
      const oldSpec = isObject(old.spec) ? old.spec : {};
      const spec = specOf(o);
      if (oldSpec.finalizers === undefined) delete spec.finalizers;
      else spec.finalizers = oldSpec.finalizers;
      o.status = old.status;
      setNameLabel(o);
    },
    prepareForStatusUpdate(o, old) {
      o.spec = old.spec;
      o.metadata = metadataForStatusWrite(o, old);
      setNameLabel(o);
    },
    prepareForFinalizeUpdate(o, old) {
      // /finalize changes spec.finalizers and nothing else.
      const finalizers = specOf(o).finalizers;
      o.spec = { ...(isObject(old.spec) ? old.spec : {}), finalizers };
      if (finalizers === undefined) delete (o.spec as Record<string, unknown>).finalizers;
      o.status = old.status;
      o.metadata = metadataForStatusWrite(o, old);
      setNameLabel(o);
    },
    // spec.finalizers keeps a deleted namespace while the lifecycle empties it (spec 3.1).
    pendingFinalizers(o) {
      const spec = isObject(o.spec) ? o.spec : {};
      return Array.isArray(spec.finalizers) ? (spec.finalizers as string[]) : [];
    },
    prepareForTerminating(o) {
      o.status = { ...(isObject(o.status) ? o.status : {}), phase: 'Terminating' };
    },
    validate(o) {
      const errs: FieldError[] = [];
      const spec = isObject(o.spec) ? o.spec : {};
      const finalizers = spec.finalizers;
      if (finalizers !== undefined && finalizers !== null && !Array.isArray(finalizers)) {
        errs.push(fieldError.typeInvalid('spec.finalizers', finalizers, 'must be an array of strings'));
        return errs;
      }
      (Array.isArray(finalizers) ? finalizers : []).forEach((f: unknown, i) => {
        const path = `spec.finalizers[${i}]`;
        if (typeof f !== 'string') {
          errs.push(fieldError.typeInvalid(path, f, 'must be of type string'));
          return;
        }
        const problems = isQualifiedName(f);
        for (const msg of problems) errs.push(fieldError.invalid(path, f, msg));
        if (problems.length === 0 && !f.includes('/') && !STANDARD_FINALIZERS.has(f)) {
          errs.push(fieldError.invalid(path, f, 'name is neither a standard finalizer name nor is it fully qualified'));
        }
      });
      const phase = pathValue(o, 'status.phase');
      if (phase !== undefined && phase !== 'Active' && phase !== 'Terminating') {
        errs.push(fieldError.notSupported('status.phase', phase, ['Active', 'Terminating']));
      }
      return errs;
    },
  },
  tableColumns: [
    column('Status', 'string', 'The status of the namespace', (o) => String(pathValue(o, 'status.phase') ?? '')),
  ],
  selectableFields: (o) => ({ 'status.phase': String(pathValue(o, 'status.phase') ?? '') }),
};

