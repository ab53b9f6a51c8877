/**
 * The ABAC policy file (`--authorization-policy-file`, reference format): one JSON object per line, either
 * the versioned `Policy` (`<ABAC_GROUP>/v1beta1`, fields under `spec`) or the legacy
 * unversioned line (fields at the top). Blank lines and lines starting with `#` are skipped. Both forms
 * become one normalised policy with the reference's conversion rules, so matching knows one shape.
 */
import { ABAC_GROUP } from '../../api/naming.js';

export const ABAC_V1BETA1 = `${ABAC_GROUP}/v1beta1`;
/** The legacy line may also say its version explicitly. */
export const ABAC_V0 = `${ABAC_GROUP}/v0`;
const ALL_AUTHENTICATED = 'system:authenticated';

export interface AbacPolicy {
  user: string;
  group: string;
  readonly: boolean;
  apiGroup: string;
  namespace: string;
  resource: string;
  nonResourcePath: string;
}

const V1BETA1_FIELDS = new Set(['user', 'group', 'readonly', 'apiGroup', 'namespace', 'resource', 'nonResourcePath']);
const V0_FIELDS = new Set(['user', 'group', 'readonly', 'namespace', 'resource']);

type Fields = Record<string, unknown>;

/** Reads the known fields with their JSON types; anything else is an error naming the field. */
function readFields(o: Fields, allowed: ReadonlySet<string>, where: string): Omit<AbacPolicy, 'readonly'> & { readonly: boolean } {
  const out: AbacPolicy = { user: '', group: '', readonly: false, apiGroup: '', namespace: '', resource: '', nonResourcePath: '' };
  for (const [k, v] of Object.entries(o)) {
    if (!allowed.has(k)) throw new Error(`${where}${k}: unknown field`);
    if (k === 'readonly') {
      if (typeof v !== 'boolean') throw new Error(`${where}readonly: must be true or false`);
      out.readonly = v;
    } else if (v !== null) {
      if (typeof v !== 'string') throw new Error(`${where}${k}: must be a string`);
      (out as unknown as Record<string, string>)[k] = v;
    }
  }
  return out;
}

/** The reference's v1beta1 conversion: a `*` user or group means every authenticated user. */
function fromV1beta1(spec: AbacPolicy): AbacPolicy {
  if (spec.user === '*' || spec.group === '*') return { ...spec, user: '', group: ALL_AUTHENTICATED };
  return spec;
}

/** The reference's v0 conversion: empty fields widen, and every API group matches. */
function fromV0(p: AbacPolicy): AbacPolicy {
  const out: AbacPolicy = { ...p, apiGroup: '*', nonResourcePath: '' };
  if (p.user === '' && p.group === '') out.group = ALL_AUTHENTICATED;
  if (p.user === '*' || p.group === '*') {
    out.group = ALL_AUTHENTICATED;
    out.user = '';
  }
  if (p.namespace === '') out.namespace = '*';
  if (p.resource === '') out.resource = '*';
  // No namespace and no resource also allows non-resource paths.
  if (p.namespace === '' && p.resource === '') out.nonResourcePath = '*';
  return out;
}

function parseLine(text: string, where: string): AbacPolicy {
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch (e) {
    throw new Error(`${where}not a JSON object: ${(e as Error).message}`);
  }
  if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new Error(`${where}not a JSON object`);
  const { apiVersion, kind, spec, ...rest } = o as Fields;
  if (apiVersion === undefined && kind === undefined) {
    if (spec !== undefined) throw new Error(`${where}spec: needs apiVersion "${ABAC_V1BETA1}" and kind "Policy"`);
    return fromV0(readFields(rest, V0_FIELDS, where));
  }
  if (kind !== 'Policy') throw new Error(`${where}kind: must be "Policy", got ${JSON.stringify(kind)}`);
  if (apiVersion === ABAC_V1BETA1) {
    const extra = Object.keys(rest)[0];
    if (extra !== undefined) throw new Error(`${where}${extra}: unknown field (policy fields go under spec)`);
    if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) throw new Error(`${where}spec: required, an object`);
    return fromV1beta1(readFields(spec as Fields, V1BETA1_FIELDS, `${where}spec.`));
  }
  if (apiVersion === ABAC_V0 || apiVersion === undefined) {
    if (spec !== undefined) throw new Error(`${where}spec: not a field of the unversioned policy`);
    return fromV0(readFields(rest, V0_FIELDS, where));
  }
  throw new Error(`${where}apiVersion: unsupported ${JSON.stringify(apiVersion)} (supported: "${ABAC_V1BETA1}", or none for the legacy form)`);
}

/**
 * Parses a whole policy file. Throws an Error naming the file and the (1-based) line of the first bad
 * line; `file` is only used in messages.
 */
export function parseAbacPolicy(text: string, file: string): AbacPolicy[] {
  const policies: AbacPolicy[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const trimmed = (lines[i] as string).trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    policies.push(parseLine(trimmed, `${file}: line ${i + 1}: `));
  }
  return policies;
}
