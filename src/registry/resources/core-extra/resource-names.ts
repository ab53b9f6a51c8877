/**
 * Compute resource names and quantities as quotas, limit ranges and volumes name them: which names are
 * standard, which count whole objects, which are extended (vendor) resources, and quantity checks with the
 * reference's wording.
 */
import { LABEL_DOMAIN } from '../../../api/naming.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { isQualifiedName } from '../../validation/index.js';
import { parseQuantity, QUANTITY_FORMAT_ERROR } from '../pods/quantity.js';

const REQUESTS_PREFIX = 'requests.';

/** Names a container may request or be limited in (besides hugepages-<size>). */
const CONTAINER_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage']);

/** Every unqualified resource name the reference knows. */
const STANDARD_RESOURCES = new Set([
  'cpu', 'memory', 'ephemeral-storage', 'storage',
  'requests.cpu', 'requests.memory', 'requests.ephemeral-storage', 'requests.storage',
  'limits.cpu', 'limits.memory', 'limits.ephemeral-storage',
  'pods', 'services', 'replicationcontrollers', 'resourcequotas', 'secrets', 'configmaps',
  'persistentvolumeclaims', 'services.nodeports', 'services.loadbalancers',
]);

/** Unqualified names a ResourceQuota may limit. */
const QUOTA_RESOURCES = new Set([
  'pods', 'cpu', 'memory', 'ephemeral-storage',
  'requests.cpu', 'requests.memory', 'requests.storage', 'requests.ephemeral-storage',
  'limits.cpu', 'limits.memory', 'limits.ephemeral-storage',
  'persistentvolumeclaims', 'services', 'replicationcontrollers', 'resourcequotas', 'secrets', 'configmaps',
  'services.nodeports', 'services.loadbalancers',
]);

/** Object counts: only whole numbers make sense. */
const INTEGER_RESOURCES = new Set([
  'pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'persistentvolumeclaims', 'configmaps',
  'services.nodeports', 'services.loadbalancers',
]);

const isHugePages = (name: string) => name.startsWith('hugepages-');
const isQuotaHugePages = (name: string) => isHugePages(name) || name.startsWith('requests.hugepages-');

/** Unqualified names, or names in the maker's own domain. */
export function isNativeResource(name: string): boolean {
  return !name.includes('/') || name.includes(`${LABEL_DOMAIN}/`);
}

/** A vendor resource (`example.com/gpu`): qualified, outside the maker's domain, usable as `requests.<name>`. */
export function isExtendedResource(name: string): boolean {
  if (isNativeResource(name) || name.startsWith(REQUESTS_PREFIX)) return false;
  return isQualifiedName(`${REQUESTS_PREFIX}${name}`).length === 0;
}

export const isStandardQuotaResource = (name: string): boolean => QUOTA_RESOURCES.has(name) || isQuotaHugePages(name);
export const isIntegerResource = (name: string): boolean => INTEGER_RESOURCES.has(name) || isExtendedResource(name);
export const isStandardContainerResource = (name: string): boolean => CONTAINER_RESOURCES.has(name) || isHugePages(name);
/** Hugepages and extended resources cannot be overcommitted: their request must equal their limit. */
export const isOvercommitAllowed = (name: string): boolean => isNativeResource(name) && !isHugePages(name);

/** A resource name: a qualified name, and a standard one when it has no domain. */
export function validateResourceName(name: string, path: string): FieldError[] {
  const errs = isQualifiedName(name).map((msg) => fieldError.invalid(path, name, msg));
  if (errs.length > 0) return errs;
  if (!name.includes('/') && !STANDARD_RESOURCES.has(name) && !isQuotaHugePages(name)) {
    return [fieldError.invalid(path, name, 'must be a standard resource type or fully qualified')];
  }
  return [];
}

/** A name a container's requests and limits (and a Pod or Container limit range) may use. */
export function validateContainerResourceName(name: string, path: string): FieldError[] {
  const errs = validateResourceName(name, path);
  if (!name.includes('/')) {
    if (!isStandardContainerResource(name)) errs.push(fieldError.invalid(path, name, 'must be a standard resource for containers'));
  } else if (!isNativeResource(name) && !isExtendedResource(name)) {
    errs.push(fieldError.invalid(path, name, "doesn't follow extended resource name standard"));
  }
  return errs;
}

/** A name a ResourceQuota may limit. */
export function validateQuotaResourceName(name: string, path: string): FieldError[] {
  const errs = validateResourceName(name, path);
  if (!name.includes('/') && !isStandardQuotaResource(name)) errs.push(fieldError.invalid(path, name, 'must be a standard resource for quota'));
  return errs;
}

/**
 * Parses a quantity field: the number in base units, or undefined with an error pushed when it does not
 * parse (the reference rejects those while decoding; here it is a field error naming the path).
 */
export function quantityAt(value: unknown, path: string, errs: FieldError[]): number | undefined {
  const q = parseQuantity(value);
  if (q === undefined) errs.push(fieldError.invalid(path, value, QUANTITY_FORMAT_ERROR));
  return q;
}

/** The reference's rules for a quota's hard/used amounts: non-negative, whole for object counts. */
export function validateResourceQuantity(name: string, value: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const q = quantityAt(value, path, errs);
  if (q === undefined) return errs;
  if (q < 0) errs.push(fieldError.invalid(path, value, 'must be greater than or equal to 0'));
  // Whole to the milli-unit, as the reference compares milli-values.
  if (isIntegerResource(name) && Math.round(q * 1000) % 1000 !== 0) errs.push(fieldError.invalid(path, value, 'must be an integer'));
  return errs;
}

/** Entries of a `{resourceName: quantity}` map; a non-object is reported at `path`. */
export function resourceEntries(v: unknown, path: string, errs: FieldError[]): [string, unknown][] {
  if (v === undefined || v === null) return [];
  if (typeof v !== 'object' || Array.isArray(v)) {
    errs.push(fieldError.typeInvalid(path, v, 'must be a map of resource names to quantities'));
    return [];
  }
  return Object.entries(v as Record<string, unknown>);
}

/** The text of a quantity as given (the reference prints its canonical form; inputs are usually canonical). */
export const quantityText = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '0');
