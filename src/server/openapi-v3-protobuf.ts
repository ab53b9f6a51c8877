/**
 * An OpenAPI 3.0 document in gnostic's `openapi.v3.Document` protobuf form (openapi-v3.proto), served at
 * `/openapi/v3/<group-version>` to clients that ask for it. Like the v2 encoder, the conversion walks the
 * JSON document and the message definitions side by side, and a key the messages have no place for is an
 * error naming its path (the reference's parser refuses the whole document then too). Where the reference
 * keeps a value partly, so do we: a schema `default` that is not a number, boolean or string becomes an
 * empty DefaultType; a `$ref` object is a Reference, whose only other fields are summary and description.
 */
import { readFileSync } from 'node:fs';
import protobuf from 'protobufjs';

type Json = Record<string, unknown>;
type Message = Record<string, unknown>;

/** The `.proto` text beside this module; tests decode with it independently. */
export const OPENAPI_V3_PROTO_PATH = new URL('./openapi-v3.proto', import.meta.url);

// google.protobuf.Any is imported by the definitions but never filled: gnostic carries values as YAML text.
const WELL_KNOWN_ANY = 'syntax = "proto3"; package google.protobuf; message Any { string type_url = 1; bytes value = 2; }';

let root: protobuf.Root | undefined;

/** The `openapi.v3` messages, parsed once (field names as written in the .proto: snake_case). */
export function openAPIV3Root(): protobuf.Root {
  if (root) return root;
  const r = new protobuf.Root();
  protobuf.parse(WELL_KNOWN_ANY, r, { keepCase: true });
  protobuf.parse(readFileSync(OPENAPI_V3_PROTO_PATH, 'utf8'), r, { keepCase: true });
  r.resolveAll();
  return (root = r);
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `$ref` -> `_ref`, `operationId` -> `operation_id`: the .proto spelling of an OpenAPI key. */
const protoName = (key: string) => (key === '$ref' ? '_ref' : key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));

/** Free-form values travel as YAML text; JSON is YAML, and keeps `yes` or `1.0` strings for YAML 1.1 readers. */
const anyValue = (v: unknown): Message => ({ yaml: `${JSON.stringify(v)}\n` });

/** The scalars DefaultType can hold; anything else leaves it empty (present, with no member set). */
function defaultValue(v: unknown): Message {
  if (typeof v === 'number') return { number: v };
  if (typeof v === 'boolean') return { boolean: v };
  if (typeof v === 'string') return { string: v };
  return {};
}

const RESPONSE_CODE = /^[0-9X]{3}$/;

class Converter {
  private readonly types = new Map<string, protobuf.Type>();

  constructor(private readonly r: protobuf.Root) {}

  private type(name: string): protobuf.Type {
    let t = this.types.get(name);
    if (!t) this.types.set(name, (t = this.r.lookupType(`openapi.v3.${name}`)));
    return t;
  }

  document(doc: Json): Message {
    return this.message(doc, this.type('Document'), '');
  }

  /** A value of one field's declared type. */
  private value(v: unknown, field: protobuf.Field, path: string): unknown {
    if (field.resolvedType instanceof protobuf.Type) return this.message(v, field.resolvedType, path);
    const expect = (ok: boolean, what: string) => {
      if (!ok) throw new Error(`${path}: expected ${what}, got ${JSON.stringify(v)}`);
      return v;
    };
    switch (field.type) {
      case 'string':
        return expect(typeof v === 'string', 'a string');
      case 'bool':
        return expect(typeof v === 'boolean', 'a boolean');
      case 'double':
        return expect(typeof v === 'number', 'a number');
      case 'int64':
        return expect(Number.isSafeInteger(v), 'an integer');
      default:
        throw new Error(`${path}: field type ${field.type} has no JSON form`);
    }
  }

  /** One message from its JSON form; shapes that are not plain field-per-key objects come first. */
  private message(v: unknown, t: protobuf.Type, path: string): Message {
    switch (t.name) {
      case 'Any':
        return anyValue(v);
      case 'DefaultType':
        return defaultValue(v);
      case 'StringArray':
        return { value: this.repeated(v, t.fields.value!, path) };
      case 'ItemsItem':
        // One schema (OpenAPI 3.0 has no tuple form); a list here is not a schema.
        if (!isObject(v)) throw new Error(`${path}: expected a schema object for items, got ${JSON.stringify(v)}`);
        return { schema_or_reference: [this.value(v, t.fields.schema_or_reference!, path)] };
      case 'Paths':
        return this.keyed(v, t, path, (k) => (k.startsWith('/') ? 'path' : undefined));
      case 'Responses':
        return this.keyed(v, t, path, (k) => (RESPONSE_CODE.test(k) ? 'response_or_reference' : undefined));
      case 'Callback':
        return this.keyed(v, t, path, () => 'path');
    }
    const choice = this.oneofChoice(v, t, path);
    if (choice) return { [choice]: this.value(v, t.fields[choice]!, path) };
    if (!isObject(v)) throw new Error(`${path}: expected an object for ${t.name}, got ${JSON.stringify(v)}`);
    // A JSON object with free keys (schemas, properties, content, ...): ordered name/value pairs.
    const pairs = t.fields.additional_properties;
    if (pairs && t.fieldsArray.length === 1) return { additional_properties: this.pairs(v, pairs, path) };
    if (t.name === 'Reference') return this.reference(v, path);

    const out: Message = {};
    for (const [key, x] of Object.entries(v)) {
      const at = `${path}.${key}`;
      if (key.startsWith('x-') && t.fields.specification_extension) {
        ((out.specification_extension ??= []) as Message[]).push({ name: key, value: anyValue(x) });
        continue;
      }
      const field = t.fields[protoName(key)];
      if (!field) throw new Error(`${at}: ${t.name} has no field for this key`);
      const value = field.repeated ? this.repeated(x, field, at) : this.value(x, field, at);
      // Proto3 leaves zero scalars off the wire (the reference's encoder does), except as a oneof's member.
      if (!field.partOf && (value === false || value === 0 || value === '')) continue;
      out[field.name] = value;
    }
    return out;
  }

  /** `{$ref, summary?, description?}`: the reference's parser keeps these three and ignores other keys. */
  private reference(v: Json, path: string): Message {
    const out: Message = {};
    for (const [key, field] of [['$ref', '_ref'], ['summary', 'summary'], ['description', 'description']] as const) {
      if (v[key] === undefined) continue;
      if (typeof v[key] !== 'string') throw new Error(`${path}.${key}: expected a string, got ${JSON.stringify(v[key])}`);
      if (v[key] !== '') out[field] = v[key];
    }
    return out;
  }

  private repeated(v: unknown, field: protobuf.Field, path: string): unknown[] {
    if (!Array.isArray(v)) throw new Error(`${path}: expected a list, got ${JSON.stringify(v)}`);
    return v.map((x, i) => this.value(x, field, `${path}[${i}]`));
  }

  /** `{name: value}` as repeated `Named*` messages of the given field. */
  private pairs(v: unknown, field: protobuf.Field, path: string): Message[] {
    if (!isObject(v)) throw new Error(`${path}: expected an object, got ${JSON.stringify(v)}`);
    const named = field.resolvedType as protobuf.Type;
    const valueField = named.fields.value!;
    return Object.entries(v).map(([name, x]) => ({ name, value: this.value(x, valueField, `${path}.${name}`) }));
  }

  /**
   * Paths, Responses and Callbacks: `x-` keys are extensions, a key `entry` names goes to that repeated
   * field, and a key that is one of the message's own fields (Responses' `default`) is that field.
   */
  private keyed(v: unknown, t: protobuf.Type, path: string, entry: (key: string) => string | undefined): Message {
    if (!isObject(v)) throw new Error(`${path}: expected an object for ${t.name}, got ${JSON.stringify(v)}`);
    const lists: Record<string, Json> = {};
    const out: Message = {};
    for (const [key, x] of Object.entries(v)) {
      const list = key.startsWith('x-') ? 'specification_extension' : entry(key);
      if (list) (lists[list] ??= {})[key] = x;
      else if (t.fields[key] && !t.fields[key].repeated) out[key] = this.value(x, t.fields[key], `${path}.${key}`);
      else throw new Error(`${path}.${key}: ${t.name} has no field for this key`);
    }
    for (const [list, entries] of Object.entries(lists)) out[list] = this.pairs(entries, t.fields[list]!, path);
    return out;
  }

  /** Which member of a oneof wrapper the JSON value is: a `$ref` object is always the Reference. */
  private oneofChoice(v: unknown, t: protobuf.Type, path: string): string | undefined {
    const members = t.oneofs?.oneof?.fieldsArray;
    if (!members || t.name === 'DefaultType' || t.name === 'SpecificationExtension') return undefined;
    if (t.name === 'AdditionalPropertiesItem') {
      if (typeof v === 'boolean') return 'boolean';
      if (isObject(v)) return 'schema_or_reference';
      throw new Error(`${path}: expected a boolean or a schema, got ${JSON.stringify(v)}`);
    }
    if (!isObject(v)) throw new Error(`${path}: expected an object for ${t.name}, got ${JSON.stringify(v)}`);
    // Both members parse an object; the reference's parser lets the later one (Expression) win.
    if (t.name === 'AnyOrExpression') return 'expression';
    if (typeof v.$ref === 'string' && t.fields.reference) return 'reference';
    return members.find((f) => f.name !== 'reference')!.name;
  }
}

/** The `openapi.v3.Document` message (plain object, snake_case fields) for an OpenAPI 3.0 JSON document. */
export function openAPIV3Message(doc: Json): Message {
  return new Converter(openAPIV3Root()).document(doc);
}

/** The protobuf bytes of an OpenAPI 3.0 JSON document. Throws, naming the JSON path, on content it cannot carry. */
export function encodeOpenAPIV3(doc: Json): Buffer {
  const type = openAPIV3Root().lookupType('openapi.v3.Document');
  return Buffer.from(type.encode(openAPIV3Message(doc)).finish());
}
