/**
 * `kubectl get` columns of the admission registration objects, as the reference prints them.
 */
import type { ApiObject } from '../../../api/types.js';
import { column } from '../../schema.js';
import type { TableColumn } from '../../types.js';
import { isRec, type Rec } from '../events/fields.js';

const rec = (v: unknown): Rec => (isRec(v) ? v : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const count = (v: unknown): number => (Array.isArray(v) ? v.length : 0);

export const webhookColumns: TableColumn[] = [
  column('Webhooks', 'integer', 'Number of webhooks in this configuration.', (o) => count(o.webhooks)),
];

/** `apiVersion/kind` of the parameter resource, or `<unset>`. */
function paramKindCell(o: ApiObject): string {
  const kind = rec(o.spec).paramKind;
  return isRec(kind) ? `${str(kind.apiVersion)}/${str(kind.kind)}` : '<unset>';
}

export const policyColumns: TableColumn[] = [
  column('Validations', 'integer', 'Number of validation expressions of this policy.', (o) => count(rec(o.spec).validations)),
  column('ParamKind', 'string', 'Kind of the resources that parameterize this policy.', paramKindCell),
];

/** A structured selector in the string form (`a=b,c in (x,y)`), requirements sorted by key. */
export function selectorText(sel: Rec): string {
  const parts: [string, string][] = Object.entries(rec(sel.matchLabels)).map(([k, v]) => [k, `${k}=${str(v)}`]);
  for (const e of Array.isArray(sel.matchExpressions) ? sel.matchExpressions : []) {
    if (!isRec(e)) continue;
    const key = str(e.key);
    const values = `(${(Array.isArray(e.values) ? e.values.map(str) : []).sort().join(',')})`;
    const text = { In: `${key} in ${values}`, NotIn: `${key} notin ${values}`, Exists: key, DoesNotExist: `!${key}` }[str(e.operator)];
    if (text !== undefined) parts.push([key, text]);
  }
  return parts.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, t]) => t).join(',');
}

/**
 * The parameter of a binding: `namespace/name`, `*\/name` when the namespace is not fixed, the selector, or
 * `<unset>`.
 */
function paramRefCell(o: ApiObject): string {
  const ref = rec(o.spec).paramRef;
  if (!isRec(ref)) return '<unset>';
  const name = str(ref.name);
  if (name !== '') return `${str(ref.namespace) || '*'}/${name}`;
  // The reference prints its selector's Go form here; the string form says the same more plainly.
  if (isRec(ref.selector)) return selectorText(ref.selector);
  return '<unset>';
}

export const bindingColumns: TableColumn[] = [
  column('PolicyName', 'string', 'Name of the policy this binding applies.', (o) => str(rec(o.spec).policyName)),
  column('ParamRef', 'string', 'Parameter resource this binding passes to the policy.', paramRefCell),
];
