/**
 * Test support: a sample object for any reference definition, made by walking its resolved OpenAPI schema
 * beside its protobuf descriptor, so that the round-trip tests cover every kind without hand-written data.
 * Every field gets a non-zero value of its JSON type (the descriptor only picks Time or MicroTime precision
 * and a quantity or int-or-string value); fields listed in `omit` are left out and reported as seen. A union
 * (wire.ts), which the schema leaves untyped, takes each of its JSON forms in turn (its boolean form is
 * `false`, a zero that must survive too). Only definitions can recurse, so allowing each at most `maxRepeat`
 * times on a path bounds the depth (JSONSchemaProps would otherwise grow without end).
 */
import type { Schema } from '../../api/index.js';
import { definitionSchema } from '../../registry/reference-schema.js';
import { DESCRIPTORS } from './descriptors.js';
import type { FieldDescriptor, ScalarType } from './wire.js';

const SAMPLE_TIME = '2024-05-06T07:08:09Z';
const SAMPLE_MICROTIME = '2024-05-06T07:08:09.123456Z';

/** What the protobuf side holds at a JSON position; undefined where no descriptor names the field. */
type Slot = Pick<FieldDescriptor, 'type' | 'message' | 'repeated' | 'mapValue'> | undefined;

/** A message's fields as they appear in JSON: embedded (inline) messages contribute their own fields. */
export function jsonFields(message: string): Record<string, FieldDescriptor> {
  const out: Record<string, FieldDescriptor> = {};
  for (const [json, fd] of Object.entries(DESCRIPTORS[message] ?? {})) {
    if (fd.inline) Object.assign(out, jsonFields(fd.message!));
    else out[json] = fd;
  }
  return out;
}

export interface SampleOptions {
  /** `<message>.<field>` keys to leave out of the sample. */
  omit?: ReadonlySet<string>;
  /** Called for every omitted field met, with the schema of the field. */
  onOmit?: (key: string, schema: Schema) => void;
  /** How many times one definition may appear on a path (recursive schemas such as JSONSchemaProps). */
  maxRepeat?: number;
}

interface Walk extends Required<Omit<SampleOptions, 'onOmit'>> {
  onOmit?: SampleOptions['onOmit'];
  /** Definitions on the current path, by their (shared) properties object, with how often they appear. */
  onPath: Map<object, number>;
  /** Alternates int-or-string samples between the number and the string form. */
  intOrString: number;
  /** Rotates union samples through their object, array and boolean forms. */
  union: number;
}

/** A sample of a message: every property of `schema`, each filled by `sampleValue`. */
export function sampleMessage(schema: Schema, message: string, options: SampleOptions = {}): Record<string, unknown> {
  const walk: Walk = { omit: options.omit ?? new Set(), onOmit: options.onOmit, maxRepeat: options.maxRepeat ?? 2, onPath: new Map(), intOrString: 0, union: 0 };
  return sampleObject(schema, message, walk) ?? {};
}

/** A sample of one JSON value (exported for checking single fields). */
export function sampleValue(schema: Schema, slot: Slot = undefined): unknown {
  return sample(schema, slot, { omit: new Set(), maxRepeat: 2, onPath: new Map(), intOrString: 0, union: 0 });
}

function sampleObject(schema: Schema, message: string | undefined, walk: Walk): Record<string, unknown> | undefined {
  // Views of one definition (a reference plus extensions) share its properties object.
  const key = schema.properties!;
  const seen = walk.onPath.get(key) ?? 0;
  if (seen >= walk.maxRepeat) return undefined;
  walk.onPath.set(key, seen + 1);
  const fields = message ? jsonFields(message) : {};
  const out: Record<string, unknown> = {};
  for (const [name, sub] of Object.entries(schema.properties!)) {
    const omitKey = `${message ?? '?'}.${name}`;
    if (walk.omit.has(omitKey)) {
      walk.onOmit?.(omitKey, sub);
      continue;
    }
    const v = sample(sub, fields[name], walk);
    if (v !== undefined) out[name] = v;
  }
  walk.onPath.set(key, seen);
  return out;
}

function sample(schema: Schema, slot: Slot, walk: Walk): unknown {
  if (slot?.type === 'union') return sampleUnion(slot.message!, walk);
  if (schema.type === 'array') {
    // A repeated field holds elements of its type; a string-list message holds strings.
    const element: Slot = slot?.repeated ? { type: slot.type, message: slot.message } : slot?.type === 'stringlist' ? { type: 'string' } : undefined;
    const v = sample(schema.items ?? {}, element, walk);
    return v === undefined ? undefined : [v];
  }
  if (schema.properties) return sampleObject(schema, slot?.type === 'message' ? slot.message : undefined, walk);
  // An empty message is an empty struct of the reference (StorageVersionSpec), whose schema is a bare object.
  if (slot?.type === 'message' && Object.keys(DESCRIPTORS[slot.message!] ?? {}).length === 0) return {};
  if (typeof schema.additionalProperties === 'object') {
    const v = sample(schema.additionalProperties, slot?.type === 'map' ? slot.mapValue : undefined, walk);
    return v === undefined ? undefined : { k: v };
  }
  if (schema['x-kubernetes-int-or-string'] || schema.format === 'int-or-string') {
    if (slot?.type === 'quantity') return '1500m';
    return walk.intOrString++ % 2 === 0 ? 8080 : 'http';
  }
  return scalar(schema, slot?.type);
}

/** One JSON form of a union: a sample of its message member, an array of its repeated member, or `false`. */
function sampleUnion(message: string, walk: Walk): unknown {
  const forms: (() => unknown)[] = [];
  for (const fd of Object.values(DESCRIPTORS[message] ?? {})) {
    const member = () => (fd.type === 'message' ? sampleObject(definitionSchema(fd.message!), fd.message, walk) : 'x');
    if (fd.repeated) forms.push(() => [member()]);
    else if (fd.type === 'bool') forms.push(() => false);
    else if (fd.type === 'message') forms.push(member);
  }
  const v = forms[walk.union++ % forms.length]?.();
  // A member cut off by the recursion bound leaves the union out.
  return v === undefined || (Array.isArray(v) && v[0] === undefined) ? undefined : v;
}

function scalar(schema: Schema, type: ScalarType | 'map' | undefined): unknown {
  switch (schema.type) {
    case 'string':
      if (schema.format === 'date-time') return type === 'microtime' ? SAMPLE_MICROTIME : SAMPLE_TIME;
      if (schema.format === 'byte') return 'AAEC/w==';
      return 'x';
    case 'integer':
      // A value above 32 bits shows that int64 fields keep their width.
      return schema.format === 'int64' ? 2 ** 40 + 3 : 7;
    case 'number':
      return 1.5;
    case 'boolean':
      return true;
    default:
      // An object without declared members (or an untyped schema) holds arbitrary JSON.
      return { a: 1 };
  }
}
