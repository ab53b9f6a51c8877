/**
 * The Swagger 2.0 document in gnostic's `openapi.v2.Document` protobuf form (openapi-v2.proto), which
 * kubectl decodes for client-side validation (of `List`s, for instance). The conversion walks the JSON
 * document and the message definitions side by side, so a key the messages have no place for is an error
 * naming its path rather than silently lost content.
 */
import { readFileSync } from 'node:fs';
import protobuf from 'protobufjs';

type Json = Record<string, unknown>;
type Message = Record<string, unknown>;

/** The `.proto` text beside this module; tests decode with it independently. */
export const OPENAPI_V2_PROTO_PATH = new URL('./openapi-v2.proto', import.meta.url);

// google.protobuf.Any is imported by the definitions but never filled: gnostic carries values as YAML text.
const WELL_KNOWN_ANY = 'syntax = "proto3"; package google.protobuf; message Any { string type_url = 1; bytes value = 2; }';

let root: protobuf.Root | undefined;

/** The `openapi.v2` messages, parsed once (field names as written in the .proto: snake_case). */
export function openAPIV2Root(): protobuf.Root {
  if (root) return root;
  const r = new protobuf.Root();
  protobuf.parse(WELL_KNOWN_ANY, r, { keepCase: true });
  protobuf.parse(readFileSync(OPENAPI_V2_PROTO_PATH, 'utf8'), r, { keepCase: true });
  r.resolveAll();
  return (root = r);
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `$ref` -> `_ref`, `operationId` -> `operation_id`: the .proto spelling of a Swagger key. */
const protoName = (key: string) => (key === '$ref' ? '_ref' : key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));

/**
 * Free-form values travel as YAML text. JSON is YAML (flow style), and unlike plain YAML scalars it keeps
 * strings such as `yes` or `1.0` strings for YAML 1.1 readers (kubectl's decoder is one).
 */
const anyValue = (v: unknown): Message => ({ yaml: `${JSON.stringify(v)}\n` });

class Converter {
  private readonly types = new Map<string, protobuf.Type>();

  constructor(private readonly r: protobuf.Root) {}

  private type(name: string): protobuf.Type {
    let t = this.types.get(name);
    if (!t) this.types.set(name, (t = this.r.lookupType(`openapi.v2.${name}`)));
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
      case 'TypeItem':
      case 'StringArray':
        return { value: this.repeated(typeof v === 'string' ? [v] : v, t.fields.value!, path) };
      case 'ItemsItem':
        return { schema: this.repeated(Array.isArray(v) ? v : [v], t.fields.schema!, path) };
      case 'Paths':
        return this.keyed(v, t, 'path', path);
      case 'Responses':
        return this.keyed(v, t, 'response_code', path);
    }
    const choice = this.oneofChoice(v, t.name, path);
    if (choice) return { [choice]: this.value(v, t.fields[choice]!, path) };
    if (!isObject(v)) throw new Error(`${path}: expected an object for ${t.name}, got ${JSON.stringify(v)}`);
    // A JSON object with free keys (definitions, properties, ...): ordered name/value pairs.
    const pairs = t.fields.additional_properties;
    if (pairs && t.fieldsArray.length === 1) return { additional_properties: this.pairs(v, pairs, path) };

    const out: Message = {};
    for (const [key, x] of Object.entries(v)) {
      const at = `${path}.${key}`;
      if (key.startsWith('x-') && t.fields.vendor_extension) {
        ((out.vendor_extension ??= []) as Message[]).push({ name: key, value: anyValue(x) });
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

  /** Paths and Responses: `x-` keys are vendor extensions, every other key one named entry. */
  private keyed(v: unknown, t: protobuf.Type, entries: string, path: string): Message {
    if (!isObject(v)) throw new Error(`${path}: expected an object for ${t.name}, got ${JSON.stringify(v)}`);
    const ext = Object.fromEntries(Object.entries(v).filter(([k]) => k.startsWith('x-')));
    const rest = Object.fromEntries(Object.entries(v).filter(([k]) => !k.startsWith('x-')));
    return { vendor_extension: this.pairs(ext, t.fields.vendor_extension!, path), [entries]: this.pairs(rest, t.fields[entries]!, path) };
  }

  /** Which member of a oneof wrapper the JSON value is, decided by its shape as Swagger 2.0 defines it. */
  private oneofChoice(v: unknown, typeName: string, path: string): string | undefined {
    const o = isObject(v) ? v : {};
    const isRef = typeof o.$ref === 'string';
    switch (typeName) {
      case 'AdditionalPropertiesItem':
        return typeof v === 'boolean' ? 'boolean' : 'schema';
      case 'SchemaItem':
        return o.type === 'file' ? 'file_schema' : 'schema';
      case 'ParametersItem':
        return isRef ? 'json_reference' : 'parameter';
      case 'ResponseValue':
        return isRef ? 'json_reference' : 'response';
      case 'Parameter':
        return o.in === 'body' ? 'body_parameter' : 'non_body_parameter';
      case 'NonBodyParameter': {
        const member = NON_BODY_MEMBERS[String(o.in)];
        if (!member) throw new Error(`${path}.in: a parameter is in header, formData, query, path or body, not ${JSON.stringify(o.in)}`);
        return member;
      }
      case 'SecurityDefinitionsItem': {
        const member = SECURITY_MEMBERS[o.type === 'oauth2' ? `oauth2/${String(o.flow)}` : String(o.type)];
        if (!member) throw new Error(`${path}: unknown security scheme type ${JSON.stringify(o.type)} (flow ${JSON.stringify(o.flow)})`);
        return member;
      }
      default:
        return undefined;
    }
  }
}

const NON_BODY_MEMBERS: Record<string, string> = {
  header: 'header_parameter_sub_schema',
  formData: 'form_data_parameter_sub_schema',
  query: 'query_parameter_sub_schema',
  path: 'path_parameter_sub_schema',
};

const SECURITY_MEMBERS: Record<string, string> = {
  basic: 'basic_authentication_security',
  apiKey: 'api_key_security',
  'oauth2/implicit': 'oauth2_implicit_security',
  'oauth2/password': 'oauth2_password_security',
  'oauth2/application': 'oauth2_application_security',
  'oauth2/accessCode': 'oauth2_access_code_security',
};

/** The `openapi.v2.Document` message (plain object, snake_case fields) for a Swagger 2.0 JSON document. */
export function openAPIV2Message(doc: Json): Message {
  return new Converter(openAPIV2Root()).document(doc);
}

/** The protobuf bytes of a Swagger 2.0 JSON document. Throws, naming the JSON path, on content it cannot carry. */
export function encodeOpenAPIV2(doc: Json): Buffer {
  const type = openAPIV2Root().lookupType('openapi.v2.Document');
  return Buffer.from(type.encode(openAPIV2Message(doc)).finish());
}
