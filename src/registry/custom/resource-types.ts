/**
 * The ResourceTypes a CustomResourceDefinition serves: one per served version, all sharing one storage
 * (`<group>/<plural>`). Versions convert with the `None` strategy (only `apiVersion` changes) or through
 * the CRD's conversion webhook (an AsyncConversion, made by `webhookConversion` of the options).
 */
import { apiVersionOf } from '../../api/types.js';
import type { ApiObject } from '../../api/types.js';
import type { FieldError } from '../../errors/index.js';
import { objectMeta, str } from '../schema.js';
import type { AsyncConversion, ResourceType, Schema } from '../types.js';
import { printerColumns, selectableFieldsOf } from './columns.js';
import type { CompileCustomSchema, CustomSchema } from './contract.js';
import { servedNames, storageVersionOf, type Crd, type CrdVersion } from './crd.js';
import { storedViewCheck } from './stored-view.js';
import { customStrategy, dottedPath } from './strategy.js';

export interface CustomTypeOptions {
  compile: CompileCustomSchema;
  /** The CustomResourceFieldSelectors gate: `selectableFields` become field selectors. */
  fieldSelectors: boolean;
  /** The conversion of a CRD with `conversion.strategy: Webhook` (absent: such CRDs cannot be served). */
  webhookConversion?(crd: Crd, storageApiVersion: string): AsyncConversion;
}

/** Where a CRD's objects are stored, whichever version they are served in. */
export const customStorageKey = (group: string, plural: string): string => `${group}/${plural}`;

/** The whole object's schema: the version's own, with apiVersion, kind and ObjectMeta as for every kind. */
function objectSchemaOf(own: Schema): Schema {
  return { ...own, type: 'object', properties: { ...(own.properties ?? {}), apiVersion: str(), kind: str(), metadata: objectMeta } };
}

/** Whether a schema (as written in the CRD) sets any default anywhere: reads must then apply them. */
function hasDefaults(v: unknown): boolean {
  if (Array.isArray(v)) return v.some(hasDefaults);
  if (typeof v !== 'object' || v === null) return false;
  for (const [k, x] of Object.entries(v)) if (k === 'default' || hasDefaults(x)) return true;
  return false;
}

/** The reference's default text when a deprecated version has no `deprecationWarning`. */
export function deprecationText(group: string, version: string, kind: string, given?: string): string {
  return given ?? `${apiVersionOf(group, version)} ${kind} is deprecated`;
}

export interface CustomTypesResult {
  types: ResourceType[];
  /** Schema problems found when compiling (a CRD stored before a rule existed); such a CRD is not served. */
  errors: FieldError[];
}

/** One ResourceType per served version of an accepted CRD (the caller decides whether it is served at all). */
export function customResourceTypes(crd: Crd, opts: CustomTypeOptions): CustomTypesResult {
  const spec = crd.spec;
  const names = servedNames(crd);
  const group = spec.group;
  const storageKey = customStorageKey(group, names.plural);
  const storageVersion = storageVersionOf(crd);
  const storageApiVersion = apiVersionOf(group, storageVersion);
  const versions = spec.versions ?? [];
  const stored = crd.status?.storedVersions ?? [];
  const types: ResourceType[] = [];
  const errors: FieldError[] = [];
  let conversion: AsyncConversion | undefined;
  if (spec.conversion?.strategy === 'Webhook' && versions.length > 1) {
    if (!opts.webhookConversion) throw new Error('conversion webhooks are not available on this server');
    conversion = opts.webhookConversion(crd, storageApiVersion);
  }
  versions.forEach((v, i) => {
    if (!v.served) return;
    const compiled = opts.compile(v.schema?.openAPIV3Schema ?? { type: 'object' }, `spec.versions[${i}].schema.openAPIV3Schema`);
    if (!compiled.schema) return void errors.push(...compiled.errors);
    const onlyThisVersionStored = versions.length === 1 && stored.every((s) => s === v.name);
    types.push(versionType(crd, v, compiled.schema, { storageKey, storageApiVersion, opts, onlyThisVersionStored, conversion }));
  });
  return { types, errors };
}

function versionType(
  crd: Crd,
  v: CrdVersion,
  schema: CustomSchema,
  c: { storageKey: string; storageApiVersion: string; opts: CustomTypeOptions; onlyThisVersionStored: boolean; conversion: AsyncConversion | undefined },
): ResourceType {
  const { group } = crd.spec;
  const names = servedNames(crd);
  const apiVersion = apiVersionOf(group, v.name);
  const statusSubresource = v.subresources?.status !== undefined && v.subresources.status !== null;
  const scale = v.subresources?.scale ?? undefined;
  const defaults = hasDefaults(v.schema?.openAPIV3Schema);
  const selectable = c.opts.fieldSelectors ? selectableFieldsOf(v.selectableFields) : undefined;
  const t: ResourceType = {
    group,
    version: v.name,
    kind: names.kind,
    listKind: names.listKind || `${names.kind}List`,
    plural: names.plural,
    singular: names.singular || names.kind.toLowerCase(),
    shortNames: [...(names.shortNames ?? [])],
    ...(names.categories && names.categories.length > 0 ? { categories: [...names.categories] } : {}),
    namespaced: crd.spec.scope !== 'Cluster',
    subresources: [...(statusSubresource ? ['status'] : []), ...(scale ? ['scale'] : [])],
    schema: objectSchemaOf(schema.schema),
    strategy: customStrategy({ schema, statusSubresource, scale }),
    tableColumns: printerColumns(v.additionalPrinterColumns),
    ...(selectable ? { selectableFields: selectable } : {}),
    storageKey: c.storageKey,
    custom: true,
    ...(v.deprecated ? { deprecation: { warning: deprecationText(group, v.name, names.kind, v.deprecationWarning), removedRelease: '' } } : {}),
  };
  // With a webhook the conversion converts; `fromStorage` then only labels and defaults the converted object.
  if (c.conversion) t.asyncConversion = c.conversion;
  else if (c.storageApiVersion !== apiVersion) t.toStorage = (obj: ApiObject) => ({ ...obj, apiVersion: c.storageApiVersion });
  // Reading needs work only when stored objects may carry another version or when defaults fill in on read;
  // otherwise the stored bytes are served as they are (the fast path of plain types).
  if (c.conversion || defaults || !c.onlyThisVersionStored || c.storageApiVersion !== apiVersion) {
    t.fromStorage = (obj: ApiObject) => {
      obj.apiVersion = apiVersion;
      if (defaults) schema.applyDefaults(obj);
      return obj;
    };
    // Objects stored in this version and already defaulted (nearly all, once written) are served as stored.
    if (!c.conversion) t.readsStoredAsIs = storedViewCheck(apiVersion, names.kind, schema, defaults);
  }
  if (scale) {
    const selectorPath = scale.labelSelectorPath ? dottedPath(scale.labelSelectorPath) : undefined;
    t.scale = {
      specReplicasPath: dottedPath(scale.specReplicasPath),
      statusReplicasPath: dottedPath(scale.statusReplicasPath),
      selector: (obj) => {
        if (!selectorPath) return undefined;
        let cur: unknown = obj;
        for (const k of selectorPath.split('.')) cur = typeof cur === 'object' && cur !== null ? (cur as Record<string, unknown>)[k] : undefined;
        return typeof cur === 'string' ? cur : undefined;
      },
    };
  }
  return t;
}
