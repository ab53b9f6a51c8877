/** Rules and table cells volumes and claims share: access modes, volume modes, storage classes. */
import { BETA_STORAGE_CLASS_ANNOTATION } from '../../../api/naming.js';
import { isObject, type ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { isDNS1123Subdomain } from '../../validation/index.js';

export const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'] as const;
export const VOLUME_MODES = ['Block', 'Filesystem'] as const;

/** The short forms kubectl prints, in its order. */
const ACCESS_MODE_ABBREVIATIONS: [string, string][] = [
  ['ReadWriteOnce', 'RWO'],
  ['ReadOnlyMany', 'ROX'],
  ['ReadWriteMany', 'RWX'],
  ['ReadWriteOncePod', 'RWOP'],
];

export type Obj = Record<string, unknown>;
export const rec = (v: unknown): Obj => (isObject(v) ? v : {});
export const text = (v: unknown): string => (typeof v === 'string' ? v : '');
export const isAbsent = (v: unknown): boolean => v === undefined || v === null || v === '';

/** `accessModes`: at least one (`requiredDetail` is the claim's wording), each known, ReadWriteOncePod alone. */
export function validateAccessModes(v: unknown, path: string, requiredDetail?: string): FieldError[] {
  if (v !== undefined && v !== null && !Array.isArray(v)) return [fieldError.typeInvalid(path, v, 'must be an array of strings')];
  const modes = (v ?? []) as unknown[];
  if (modes.length === 0) return [fieldError.required(path, requiredDetail)];
  const errs: FieldError[] = [];
  for (const m of modes) {
    if (typeof m !== 'string' || !(ACCESS_MODES as readonly string[]).includes(m)) errs.push(fieldError.notSupported(path, m, ACCESS_MODES));
  }
  if (modes.includes('ReadWriteOncePod') && modes.length > 1) {
    errs.push(fieldError.forbidden(path, 'may not use ReadWriteOncePod with other access modes'));
  }
  return errs;
}

export function validateVolumeMode(v: unknown, path: string): FieldError[] {
  if (v === undefined || v === null) return [];
  return (VOLUME_MODES as readonly string[]).includes(v as string) ? [] : [fieldError.notSupported(path, v, VOLUME_MODES)];
}

/** A class name (storage or volume attributes class), when set, is a DNS subdomain. */
export function validateClassName(v: unknown, path: string): FieldError[] {
  if (isAbsent(v)) return [];
  if (typeof v !== 'string') return [fieldError.typeInvalid(path, v, 'must be of type string')];
  return isDNS1123Subdomain(v).map((msg) => fieldError.invalid(path, v, msg));
}

/** `RWO,ROX` for the table: each mode once, in kubectl's order. */
export function accessModesText(v: unknown): string {
  const modes = Array.isArray(v) ? v : [];
  return ACCESS_MODE_ABBREVIATIONS.filter(([mode]) => modes.includes(mode)).map(([, short]) => short).join(',');
}

/** The storage class: the beta annotation wins over the field, as in the reference's helpers. */
export function storageClassOf(o: ApiObject): string {
  const annotations = rec(o.metadata?.annotations);
  const beta = annotations[BETA_STORAGE_CLASS_ANNOTATION];
  if (typeof beta === 'string') return beta;
  return text(rec(o.spec).storageClassName);
}

/** `<unset>` when a nullable string field is absent, its value otherwise. */
export const orUnset = (v: unknown): string => (v === undefined || v === null ? '<unset>' : String(v));

/** The status phase shown in tables: Terminating once deletion started. */
export const phaseText = (o: ApiObject): string => (o.metadata?.deletionTimestamp ? 'Terminating' : text(rec(o.status).phase));
