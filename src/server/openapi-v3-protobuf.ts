/**
 * An OpenAPI 3.0 document in gnostic's `openapi.v3.Document` protobuf form (openapi-v3.proto), served at
 * `/openapi/v3/<group-version>` to clients that ask for it. The walk is shared with the v2 encoder
 * (gnostic-converter.ts); this file holds the OpenAPI 3.0 shapes. A key the messages have no place for is
 * an error naming its path (the reference's parser refuses the whole document then too). Where the
 * reference keeps a value partly, so do we: a schema `default` that is not a number, boolean or string
 * becomes an empty DefaultType; a `$ref` object is a Reference, whose only other fields are summary and
 * description.
 */
import type protobuf from 'protobufjs';
import { GnosticConverter, isObject, loadGnosticRoot, type Json, type Message } from './gnostic-converter.js';

/** The `.proto` text beside this module; tests decode with it independently. */
export const OPENAPI_V3_PROTO_PATH = new URL('./openapi-v3.proto', import.meta.url);

let root: protobuf.Root | undefined;

/** The `openapi.v3` messages, parsed once (field names as written in the .proto: snake_case). */
export function openAPIV3Root(): protobuf.Root {
  return (root ??= loadGnosticRoot(OPENAPI_V3_PROTO_PATH));
}

/** The scalars DefaultType can hold; anything else leaves it empty (present, with no member set). */
function defaultValue(v: unknown): Message {
  if (typeof v === 'number') return { number: v };
  if (typeof v === 'boolean') return { boolean: v };
  if (typeof v === 'string') return { string: v };
  return {};
}

const RESPONSE_CODE = /^[0-9X]{3}$/;

/** `{$ref, summary?, description?}`: the reference's parser keeps these three and ignores other keys. */
function reference(v: Json, path: string): Message {
  const out: Message = {};
  for (const [key, field] of [['$ref', '_ref'], ['summary', 'summary'], ['description', 'description']] as const) {
    if (v[key] === undefined) continue;
    if (typeof v[key] !== 'string') throw new Error(`${path}.${key}: expected a string, got ${JSON.stringify(v[key])}`);
    if (v[key] !== '') out[field] = v[key];
  }
  return out;
}

class V3Converter extends GnosticConverter {
  constructor(r: protobuf.Root) {
    super(r, 'openapi.v3', 'specification_extension');
  }

  protected special(v: unknown, t: protobuf.Type, path: string): Message | undefined {
    switch (t.name) {
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
      case 'Reference':
        if (!isObject(v)) throw new Error(`${path}: expected an object for Reference, got ${JSON.stringify(v)}`);
        return reference(v, path);
      default:
        return undefined;
    }
  }

  /** A `$ref` object is always the Reference member. */
  protected oneofChoice(v: unknown, t: protobuf.Type, path: string): string | undefined {
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
  return new V3Converter(openAPIV3Root()).document(doc);
}

/** The protobuf bytes of an OpenAPI 3.0 JSON document. Throws, naming the JSON path, on content it cannot carry. */
export function encodeOpenAPIV3(doc: Json): Buffer {
  const type = openAPIV3Root().lookupType('openapi.v3.Document');
  return Buffer.from(type.encode(openAPIV3Message(doc)).finish());
}
