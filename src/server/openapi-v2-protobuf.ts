/**
 * The Swagger 2.0 document in gnostic's `openapi.v2.Document` protobuf form (openapi-v2.proto), which
 * kubectl decodes for client-side validation (of `List`s, for instance). The walk itself is shared with the
 * v3 encoder (gnostic-converter.ts); this file holds the Swagger 2.0 shapes.
 */
import type protobuf from 'protobufjs';
import { GnosticConverter, isObject, loadGnosticRoot, type Json, type Message } from './gnostic-converter.js';

/** The `.proto` text beside this module; tests decode with it independently. */
export const OPENAPI_V2_PROTO_PATH = new URL('./openapi-v2.proto', import.meta.url);

let root: protobuf.Root | undefined;

/** The `openapi.v2` messages, parsed once (field names as written in the .proto: snake_case). */
export function openAPIV2Root(): protobuf.Root {
  return (root ??= loadGnosticRoot(OPENAPI_V2_PROTO_PATH));
}

class V2Converter extends GnosticConverter {
  constructor(r: protobuf.Root) {
    super(r, 'openapi.v2', 'vendor_extension');
  }

  protected special(v: unknown, t: protobuf.Type, path: string): Message | undefined {
    switch (t.name) {
      case 'TypeItem':
      case 'StringArray':
        // `type` may be one name or a list of them.
        return { value: this.repeated(typeof v === 'string' ? [v] : v, t.fields.value!, path) };
      case 'ItemsItem':
        // One schema or a tuple of them.
        return { schema: this.repeated(Array.isArray(v) ? v : [v], t.fields.schema!, path) };
      case 'Paths':
        return this.keyed(v, t, path, () => 'path');
      case 'Responses':
        return this.keyed(v, t, path, () => 'response_code');
      default:
        return undefined;
    }
  }

  /** Decided by the value's shape as Swagger 2.0 defines it. */
  protected oneofChoice(v: unknown, t: protobuf.Type, path: string): string | undefined {
    const o = isObject(v) ? v : {};
    const isRef = typeof o.$ref === 'string';
    switch (t.name) {
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
  return new V2Converter(openAPIV2Root()).document(doc);
}

/** The protobuf bytes of a Swagger 2.0 JSON document. Throws, naming the JSON path, on content it cannot carry. */
export function encodeOpenAPIV2(doc: Json): Buffer {
  const type = openAPIV2Root().lookupType('openapi.v2.Document');
  return Buffer.from(type.encode(openAPIV2Message(doc)).finish());
}
