/**
 * Merging two toleration lists as the reference does when a RuntimeClass adds its tolerations to a pod:
 * the concatenation, less every toleration another one already covers (of two equal ones the first stays).
 */
import { isDeepStrictEqual } from 'node:util';
import type { Obj } from './pod-request.js';

const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const seconds = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

/** A toleration's fields as the reference compares them (absent strings are ''). */
function fieldsOf(t: Obj): [string, string, string, string, number | undefined] {
  return [text(t.key), text(t.operator), text(t.value), text(t.effect), seconds(t.tolerationSeconds)];
}

const same = (a: Obj, b: Obj) => isDeepStrictEqual(fieldsOf(a), fieldsOf(b));

/** Whether `ss` tolerates everything `t` tolerates. */
export function isSuperset(ss: Obj, t: Obj): boolean {
  if (same(ss, t)) return true;
  const [ssKey, ssOp, ssValue, ssEffect, ssSeconds] = fieldsOf(ss);
  const [tKey, tOp, tValue, tEffect, tSeconds] = fieldsOf(t);
  // An empty key with Exists matches every key.
  if (tKey !== ssKey && (ssKey !== '' || ssOp !== 'Exists')) return false;
  // An empty effect matches every effect.
  if (tEffect !== ssEffect && ssEffect !== '') return false;
  if (ssEffect === 'NoExecute' && ssSeconds !== undefined && (tSeconds === undefined || tSeconds > ssSeconds)) return false;
  if (ssOp === 'Equal' || ssOp === '') return tOp === 'Equal' && tValue === ssValue;
  return ssOp === 'Exists';
}

export function mergeTolerations(first: readonly Obj[], second: readonly Obj[]): Obj[] {
  const all = [...first, ...second];
  const merged: Obj[] = [];
  all.forEach((t, i) => {
    if (merged.some((m) => isSuperset(m, t))) return;
    if (all.slice(i + 1).some((later) => !same(t, later) && isSuperset(later, t))) return;
    merged.push(t);
  });
  return merged;
}
