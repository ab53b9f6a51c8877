/**
 * An independent reader of gnostic's `openapi.v3.Document`: protobufjs loads the .proto file itself,
 * decodes, and the message is turned back into OpenAPI 3 JSON by gnostic's mapping, written out per
 * message here rather than derived from the encoder.
 */
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import { parse as parseYaml } from 'yaml';
import { OPENAPI_V3_PROTO_PATH } from '../../src/server/openapi-v3-protobuf.js';

type Json = Record<string, any>;

export async function loadV3Document(): Promise<protobuf.Type> {
  const root = await new protobuf.Root().load(fileURLToPath(OPENAPI_V3_PROTO_PATH), { keepCase: true });
  return root.lookupType('openapi.v3.Document');
}

const camel = (k: string) => (k === '_ref' ? '$ref' : k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()));
const pairs = (list: Json[] | undefined, value: (v: any) => unknown) => Object.fromEntries((list ?? []).map((p) => [p.name, value(p.value)]));
export const anyJson = (a: Json) => parseYaml(a.yaml, { version: '1.1' });
const ofReference = (r: Json): Json => Object.fromEntries(Object.entries(r).map(([k, v]) => [camel(k), v]));
/** A `*OrReference` wrapper: the Reference, or the other member read by `other`. */
const either = (x: Json, other: (v: Json) => Json) => ('reference' in x ? ofReference(x.reference) : other(Object.values(x)[0] as Json));
const schemaOrRef = (x: Json) => either(x, schemaOf);
const mediaTypes = (c: Json) => pairs(c.additional_properties, (mt) => plain(mt));

/** An empty DefaultType (a non-scalar default) reads back as this, so tests can see it was sent. */
export const EMPTY_DEFAULT = Symbol('empty default');

function schemaOf(s: Json): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'all_of' || k === 'one_of' || k === 'any_of') out[camel(k)] = v.map(schemaOrRef);
    else if (k === 'not') out.not = schemaOf(v);
    else if (k === 'items') out.items = schemaOrRef(v.schema_or_reference[0]);
    else if (k === 'properties') out.properties = pairs(v.additional_properties, schemaOrRef);
    else if (k === 'additional_properties') out.additionalProperties = 'boolean' in v ? v.boolean : schemaOrRef(v.schema_or_reference);
    else if (k === 'default') out.default = Object.keys(v).length === 0 ? EMPTY_DEFAULT : Object.values(v)[0];
    else if (k === 'enum') out.enum = v.map(anyJson);
    else if (k === 'example') out.example = anyJson(v);
    else if (k === 'specification_extension') Object.assign(out, pairs(v, anyJson));
    else out[camel(k)] = v;
  }
  return out;
}

/** Any other message: fields by name, with the few shapes OpenAPI spells differently. */
function plain(m: Json): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(m)) {
    if (k === 'specification_extension') Object.assign(out, pairs(v, anyJson));
    else if (k === 'schema') out.schema = schemaOrRef(v);
    else if (k === 'content') out.content = mediaTypes(v);
    else if (k === 'parameters') out.parameters = v.map((p: Json) => either(p, plain));
    else if (k === 'request_body') out.requestBody = either(v, plain);
    else if (k === 'responses') {
      out.responses = { ...(v.default ? { default: either(v.default, plain) } : {}), ...pairs(v.response_or_reference, (r) => either(r, plain)), ...pairs(v.specification_extension, anyJson) };
    } else if (k === 'example') out.example = anyJson(v);
    else if (typeof v === 'object' && !Array.isArray(v)) out[camel(k)] = plain(v);
    else out[camel(k)] = v;
  }
  return out;
}

export function openAPIOf(bytes: Buffer, type: protobuf.Type): Json {
  const m = type.toObject(type.decode(bytes), { longs: Number, arrays: false }) as Json;
  const doc = plain({ ...m, paths: undefined, components: undefined });
  for (const k of Object.keys(doc)) if (doc[k] === undefined) delete doc[k];
  if (m.paths) doc.paths = { ...pairs(m.paths.path, plain), ...pairs(m.paths.specification_extension, anyJson) };
  if (m.components) doc.components = { schemas: pairs(m.components.schemas?.additional_properties, schemaOrRef) };
  return doc;
}

/** Keys whose value is an object of names (properties, responses by code, ...), not of OpenAPI fields. */
const NAMED_ENTRIES = new Set(['properties', 'responses', 'schemas', 'content', 'paths', 'headers']);

/**
 * What survives the protobuf form: proto3 cannot tell false, 0, '' and [] from absent (free-form values
 * keep them, and so does a scalar default, a oneof member); a default that is not a scalar is sent empty.
 */
export function expectedAfterProtobuf(v: unknown, key = '', names = false): unknown {
  if (key === 'enum' || key === 'example' || key.startsWith('x-')) return v;
  if (Array.isArray(v)) return v.map((x) => expectedAfterProtobuf(x));
  if (!v || typeof v !== 'object') return v;
  const out: Json = {};
  for (const [k, x] of Object.entries(v)) {
    if (names) out[k] = expectedAfterProtobuf(x);
    else if (k === 'default' && typeof x === 'object') out[k] = EMPTY_DEFAULT; // null, an object or a list
    else if (k !== 'default' && k !== 'additionalProperties' && (x === false || x === 0 || x === '' || (Array.isArray(x) && x.length === 0))) continue;
    else out[k] = expectedAfterProtobuf(x, k, NAMED_ENTRIES.has(k));
  }
  return out;
}
