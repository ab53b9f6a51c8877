/**
 * Defaults of apiextensions/v1 CustomResourceDefinition, as the reference applies them when it decodes a
 * request: names.singular and names.listKind from the kind, conversion strategy None, port 443 for a
 * conversion webhook service, the required booleans of each version written out, and the storage version
 * recorded in status.storedVersions. Schemas, subresources and printer columns are left as written.
 */
import type { ApiObject } from '../../../api/types.js';
import { isRec, type Rec } from '../events/fields.js';

export const NONE_CONVERTER = 'None';
export const WEBHOOK_CONVERTER = 'Webhook';

export const specOf = (o: ApiObject): Rec | undefined => (isRec(o.spec) ? o.spec : undefined);
export const recAt = (o: Rec | undefined, key: string): Rec | undefined => (o && isRec(o[key]) ? o[key] : undefined);
export const versionsOf = (o: ApiObject): Rec[] => {
  const versions = specOf(o)?.versions;
  return Array.isArray(versions) ? versions.filter(isRec) : [];
};

/** The name of the version marked `storage: true` (the first, when several are). */
export function storageVersion(o: ApiObject): string | undefined {
  const v = versionsOf(o).find((x) => x.storage === true);
  return typeof v?.name === 'string' ? v.name : undefined;
}

export function storedVersions(o: ApiObject): string[] {
  const list = recAt(o, 'status')?.storedVersions;
  return Array.isArray(list) ? list.filter((v): v is string => typeof v === 'string') : [];
}

/** Adds the current storage version to status.storedVersions when it is missing (create and update). */
export function recordStorageVersion(o: ApiObject): void {
  const storage = storageVersion(o);
  if (storage === undefined) return;
  const status = isRec(o.status) ? o.status : (o.status = {});
  const list = Array.isArray(status.storedVersions) ? status.storedVersions : (status.storedVersions = []);
  if (!list.includes(storage)) list.push(storage);
}

/** Whether the CRD's Established condition is True (its names and scope are then fixed). */
export function isEstablished(o: ApiObject): boolean {
  const conditions = recAt(o, 'status')?.conditions;
  return Array.isArray(conditions) && conditions.some((c) => isRec(c) && c.type === 'Established' && c.status === 'True');
}

export function defaultCRD(o: ApiObject): void {
  const spec = specOf(o);
  if (!spec) return;
  const names = recAt(spec, 'names');
  if (names) {
    const kind = typeof names.kind === 'string' ? names.kind : '';
    if (!names.singular) names.singular = kind.toLowerCase();
    if (!names.listKind && kind !== '') names.listKind = `${kind}List`;
  }
  if (spec.conversion === undefined || spec.conversion === null) spec.conversion = { strategy: NONE_CONVERTER };
  const service = recAt(recAt(recAt(recAt(spec, 'conversion'), 'webhook'), 'clientConfig'), 'service');
  if (service && (service.port === undefined || service.port === null)) service.port = 443;
  for (const v of versionsOf(o)) {
    v.served ??= false;
    v.storage ??= false;
  }
  defaultCRDStatus(o);
}

/** The status defaults alone (a status write keeps the stored spec, which was defaulted when written). */
export function defaultCRDStatus(o: ApiObject): void {
  if (isRec(o.status)) {
    // The reference always writes acceptedNames with its two required names, even when empty.
    const accepted = isRec(o.status.acceptedNames) ? o.status.acceptedNames : (o.status.acceptedNames = {});
    accepted.plural ??= '';
    accepted.kind ??= '';
    if (storedVersions(o).length === 0) recordStorageVersion(o);
  }
}
