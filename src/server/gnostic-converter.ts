/**
 * The walk shared by the gnostic protobuf encoders of OpenAPI v2 and v3 documents: the JSON document and the
 * protobufjs message definitions are read side by side, so a key the messages have no place for is an
 * error naming its JSON path rather than silently lost content. A subclass supplies what differs between
 * the versions: the messages whose JSON shape is not one field per key, and how a oneof wrapper's member
 * is chosen.
 */
import { readFileSync } from 'node:fs';
import protobuf from 'protobufjs';

export type Json = Record<string, unknown>;
export type Message = Record<string, unknown>;

// google.protobuf.Any is imported by the definitions but never filled: gnostic carries values as YAML text.
const WELL_KNOWN_ANY = 'syntax = "proto3"; package google.protobuf; message Any { string type_url = 1; bytes value = 2; }';

/** Parses one gnostic `.proto` file, keeping its snake_case field names. */
export function loadGnosticRoot(protoPath: URL): protobuf.Root {
  const r = new protobuf.Root();
  protobuf.parse(WELL_KNOWN_ANY, r, { keepCase: true });
  protobuf.parse(readFileSync(protoPath, 'utf8'), r, { keepCase: true });
  r.resolveAll();
  return r;
}

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `$ref` -> `_ref`, `operationId` -> `operation_id`: the .proto spelling of an OpenAPI key. */
export const protoName = (key: string) => (key === '$ref' ? '_ref' : key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));

/**
 * Free-form values travel as YAML text. JSON is YAML (flow style), and unlike plain YAML scalars it keeps
 * strings such as `yes` or `1.0` strings for YAML 1.1 readers (kubectl's decoder is one).
 */
export const anyValue = (v: unknown): Message => ({ yaml: `${JSON.stringify(v)}\n` });

const notAnObject = (v: unknown, t: protobuf.Type, path: string) => new Error(`${path}: expected an object for ${t.name}, got ${JSON.stringify(v)}`);

export abstract class GnosticConverter {
  /**
   * @param pkg the proto package of the messages (`openapi.v2`)
   * @param extensionField the repeated field every `x-` key of an object goes to (its name differs per version)
   */
  constructor(
    private readonly r: protobuf.Root,
    private readonly pkg: string,
    private readonly extensionField: string,
  ) {}

  /** The message for a shape that is not one field per key, or undefined to let the generic walk handle it. */
  protected abstract special(v: unknown, t: protobuf.Type, path: string): Message | undefined;

  /** The member of a oneof wrapper the JSON value fills, or undefined when `t` is not such a wrapper. */
  protected abstract oneofChoice(v: unknown, t: protobuf.Type, path: string): string | undefined;

  document(doc: Json): Message {
    return this.message(doc, this.r.lookupType(`${this.pkg}.Document`), '');
  }

  /** A value of one field's declared type. */
  protected value(v: unknown, field: protobuf.Field, path: string): unknown {
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

  /** One message from its JSON form: special shapes, then oneof wrappers, then plain field-per-key objects. */
  protected message(v: unknown, t: protobuf.Type, path: string): Message {
    if (t.name === 'Any') return anyValue(v);
    const special = this.special(v, t, path);
    if (special) return special;
    const choice = this.oneofChoice(v, t, path);
    if (choice) return { [choice]: this.value(v, t.fields[choice]!, path) };
    if (!isObject(v)) throw notAnObject(v, t, path);
    // A JSON object with free keys (definitions, schemas, properties, ...): ordered name/value pairs.
    const pairs = t.fields.additional_properties;
    if (pairs && t.fieldsArray.length === 1) return { additional_properties: this.pairs(v, pairs, path) };

    const out: Message = {};
    const ext = this.extensionField;
    for (const [key, x] of Object.entries(v)) {
      const at = `${path}.${key}`;
      if (key.startsWith('x-') && t.fields[ext]) {
        ((out[ext] ??= []) as Message[]).push({ name: key, value: anyValue(x) });
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

  protected repeated(v: unknown, field: protobuf.Field, path: string): unknown[] {
    if (!Array.isArray(v)) throw new Error(`${path}: expected a list, got ${JSON.stringify(v)}`);
    return v.map((x, i) => this.value(x, field, `${path}[${i}]`));
  }

  /** `{name: value}` as repeated `Named*` messages of the given field. */
  protected pairs(v: unknown, field: protobuf.Field, path: string): Message[] {
    if (!isObject(v)) throw new Error(`${path}: expected an object, got ${JSON.stringify(v)}`);
    const named = field.resolvedType as protobuf.Type;
    const valueField = named.fields.value!;
    return Object.entries(v).map(([name, x]) => ({ name, value: this.value(x, valueField, `${path}.${name}`) }));
  }

  /**
   * Maps such as Paths and Responses: `x-` keys are extensions, a key for which `entry` names a repeated
   * field becomes one named entry of it, and a key that is one of the message's own singular fields (v3
   * Responses' `default`) is that field.
   */
  protected keyed(v: unknown, t: protobuf.Type, path: string, entry: (key: string) => string | undefined): Message {
    if (!isObject(v)) throw notAnObject(v, t, path);
    const lists: Record<string, Json> = {};
    const out: Message = {};
    for (const [key, x] of Object.entries(v)) {
      const list = key.startsWith('x-') ? this.extensionField : entry(key);
      if (list) (lists[list] ??= {})[key] = x;
      else if (t.fields[key] && !t.fields[key].repeated) out[key] = this.value(x, t.fields[key], `${path}.${key}`);
      else throw new Error(`${path}.${key}: ${t.name} has no field for this key`);
    }
    for (const [list, entries] of Object.entries(lists)) out[list] = this.pairs(entries, t.fields[list]!, path);
    return out;
  }
}
