/**
 * What `orchctl wait --for=` accepts, and whether an object meets it (pure):
 * `delete`, `create`, `condition=TYPE[=STATUS]` (status `True` by default, both compared without case)
 * and `jsonpath={PATH}[=VALUE]` (without a value: the path exists).
 */
import { parseGoDuration } from '../../util/duration.js';
import { formatJsonPathValue, parseJsonPath, type CompiledJsonPath } from '../../util/jsonpath.js';
import type { KubeObject } from '../../client/index.js';

export type WaitCondition =
  | { kind: 'delete' }
  | { kind: 'create' }
  | { kind: 'condition'; type: string; status: string }
  | { kind: 'jsonpath'; template: string; path: CompiledJsonPath; value?: string };

const unquote = (s: string) => (s.length >= 2 && (s[0] === "'" || s[0] === '"') && s.at(-1) === s[0] ? s.slice(1, -1) : s);

export function parseWaitFor(text: string): WaitCondition {
  const lower = text.toLowerCase();
  if (lower === 'delete') return { kind: 'delete' };
  if (lower === 'create') return { kind: 'create' };
  if (lower.startsWith('condition=')) {
    const rest = text.slice('condition='.length);
    const eq = rest.indexOf('=');
    const type = eq < 0 ? rest : rest.slice(0, eq);
    const status = eq < 0 ? 'True' : rest.slice(eq + 1);
    if (type === '' || status === '') throw new Error(`--for=${text}: give condition=TYPE or condition=TYPE=STATUS`);
    return { kind: 'condition', type, status };
  }
  if (lower.startsWith('jsonpath=')) {
    const rest = text.slice('jsonpath='.length);
    // The path is one `{...}` expression (maybe quoted); anything after `=` that follows it is the value.
    const quoted = rest[0] === "'" || rest[0] === '"';
    const close = quoted ? rest.indexOf(rest[0] as string, 1) : rest.indexOf('}');
    if (close < 0) throw new Error(`--for=${text}: the path must be written {.like.this}`);
    const template = unquote(rest.slice(0, close + 1));
    const after = rest.slice(close + 1);
    if (!template.startsWith('{') || !template.endsWith('}')) throw new Error(`--for=${text}: the path must be written {.like.this}`);
    if (after !== '' && !after.startsWith('=')) throw new Error(`--for=${text}: expected =VALUE after the path`);
    const value = after === '' ? undefined : unquote(after.slice(1));
    if (value === '') throw new Error(`--for=${text}: the value after = is empty`);
    return { kind: 'jsonpath', template, path: parseJsonPath(template), ...(value === undefined ? {} : { value }) };
  }
  throw new Error(`--for=${text}: use delete, create, condition=TYPE[=STATUS] or jsonpath={PATH}[=VALUE]`);
}

interface Condition {
  type?: string;
  status?: string;
  observedGeneration?: number;
}

/** Whether `obj` (present) meets a condition other than delete/create. */
export function conditionMet(cond: WaitCondition, obj: KubeObject): boolean {
  if (cond.kind === 'create') return true;
  if (cond.kind === 'delete') return false;
  if (cond.kind === 'condition') {
    const conditions = (obj.status as { conditions?: Condition[] } | undefined)?.conditions ?? [];
    const generation = obj.metadata.generation;
    return conditions.some(
      (c) =>
        (c.type ?? '').toLowerCase() === cond.type.toLowerCase() &&
        (c.status ?? '').toLowerCase() === cond.status.toLowerCase() &&
        // A condition about an older generation says nothing about the current spec.
        (c.observedGeneration === undefined || generation === undefined || c.observedGeneration >= generation),
    );
  }
  const values = cond.path.results(obj).flat();
  if (values.length === 0) return false;
  if (cond.value === undefined) return true;
  if (values.some((v) => typeof v === 'object' && v !== null)) throw new Error(`${cond.template} is an object or a list: compare a single field`);
  return values.every((v) => formatJsonPathValue(v) === cond.value);
}

/** Pure: a `--timeout` value (a Go duration) in milliseconds. */
export function parseTimeout(text: string, flag: string): number {
  const ms = parseGoDuration(text);
  if (ms === undefined) throw new Error(`invalid ${flag} "${text}": a duration such as 30s, 5m or 1h`);
  return ms;
}
