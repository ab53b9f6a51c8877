/**
 * The parts of a CustomResourceDefinition (apiextensions v1) that serving its custom resources reads, as
 * plain JSON. The object is validated before it is stored (resources/apiextensions/); readers here still
 * treat every field as possibly missing, since a stored CRD may predate a rule.
 */
import type { ApiObject } from '../../api/types.js';
import type { JsonSchemaProps } from './contract.js';

export interface CrdNames {
  plural: string;
  singular?: string;
  kind: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}

export interface CrdColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

export interface CrdScale {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: JsonSchemaProps };
  subresources?: { status?: object; scale?: CrdScale };
  additionalPrinterColumns?: CrdColumn[];
  selectableFields?: { jsonPath: string }[];
}

export interface CrdCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface CrdSpec {
  group: string;
  names: CrdNames;
  scope: 'Namespaced' | 'Cluster';
  versions: CrdVersion[];
  conversion?: { strategy?: string; webhook?: CrdConversionWebhook };
}

/** `spec.conversion.webhook`: where the webhook is and the ConversionReview versions it reads. */
export interface CrdConversionWebhook {
  clientConfig?: {
    url?: string;
    service?: { namespace: string; name: string; path?: string; port?: number };
    caBundle?: string;
  };
  conversionReviewVersions?: string[];
}

export interface CrdStatus {
  conditions?: CrdCondition[];
  acceptedNames?: CrdNames;
  storedVersions?: string[];
}

export interface Crd extends ApiObject {
  spec: CrdSpec;
  status?: CrdStatus;
}

/** The version objects are written in (exactly one is marked `storage`). */
export function storageVersionOf(crd: Crd): string {
  return (crd.spec.versions ?? []).find((v) => v.storage)?.name ?? crd.spec.versions?.[0]?.name ?? '';
}

export function conditionOf(crd: Crd, type: string): CrdCondition | undefined {
  return crd.status?.conditions?.find((c) => c.type === type);
}

export const isTrue = (crd: Crd, type: string): boolean => conditionOf(crd, type)?.status === 'True';

/** The names the CRD's resources are served under: the accepted ones once the naming controller agreed. */
export function servedNames(crd: Crd): CrdNames {
  return crd.status?.acceptedNames?.plural ? crd.status.acceptedNames : crd.spec.names;
}

/** `<plural>.<group>`: a CRD's name must be this. */
export const crdResourceName = (spec: Pick<CrdSpec, 'group' | 'names'>): string => `${spec.names.plural}.${spec.group}`;
