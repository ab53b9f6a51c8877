import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { before, describe, it } from 'node:test';
import protobuf from 'protobufjs';
import { parse as parseYaml } from 'yaml';
import { builtinTypes } from '../registry/resources/index.js';
import { buildOpenAPIV2 } from './openapi.js';
import { encodeOpenAPIV2, OPENAPI_V2_PROTO_PATH } from './openapi-v2-protobuf.js';

type Json = Record<string, any>;

/**
 * An independent reader: protobufjs loads the .proto file itself (resolving google/protobuf/any.proto from
 * its bundled copies), decodes, and the message is turned back into Swagger JSON by the rules of gnostic's
 * mapping, written out per message here rather than derived from the encoder.
 */
let Document: protobuf.Type;
before(async () => {
  const root = await new protobuf.Root().load(fileURLToPath(OPENAPI_V2_PROTO_PATH), { keepCase: true });
  Document = root.lookupType('openapi.v2.Document');
});

const camel = (k: string) => (k === '_ref' ? '$ref' : k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()));
const ANY_FIELDS = new Set(['default', 'example']);
const pairs = (list: Json[] | undefined, value: (v: any) => unknown) => Object.fromEntries((list ?? []).map((p) => [p.name, value(p.value)]));
const anyJson = (a: Json) => parseYaml(a.yaml, { version: '1.1' });

function plain(m: Json): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(m)) {
    if (k === 'vendor_extension') Object.assign(out, pairs(v, anyJson));
    else if (k === 'enum') out.enum = v.map(anyJson);
    else if (ANY_FIELDS.has(k)) out[k] = anyJson(v);
    else if (k === 'schema') out.schema = schemaOf(v);
    else if (k === 'items') out.items = m.type && typeof m.type === 'string' ? plain(v) : v.schema.map(schemaOf)[0];
    else if (k === 'type' && typeof v === 'object') out.type = v.value.length === 1 ? v.value[0] : v.value;
    else if (k === 'properties') out.properties = pairs(v.additional_properties, schemaOf);
    else if (k === 'additional_properties') out.additionalProperties = 'boolean' in v ? v.boolean : schemaOf(v.schema);
    else if (k === 'all_of') out.allOf = v.map(schemaOf);
    else if (k === 'scopes') out.scopes = pairs(v.additional_properties, (x) => x);
    else if (k === 'parameters') out.parameters = v.map(parameterOf);
    else if (k === 'responses') out.responses = { ...pairs(v.response_code, (r) => ('json_reference' in r ? plain(r.json_reference) : plain(r.response))), ...pairs(v.vendor_extension, anyJson) };
    else if (typeof v === 'object' && !Array.isArray(v)) out[camel(k)] = plain(v);
    else out[camel(k)] = v;
  }
  return out;
}
const schemaOf = (s: Json): Json => ('file_schema' in s ? plain(s.file_schema) : 'schema' in s && !('_ref' in s) && Object.keys(s).length === 1 ? plain(s.schema) : plain(s));
const parameterOf = (p: Json): Json => {
  if (p.json_reference) return plain(p.json_reference);
  const param = p.parameter;
  if (param.body_parameter) return plain(param.body_parameter);
  return plain(Object.values(param.non_body_parameter)[0] as Json);
};

function swaggerOf(bytes: Buffer): Json {
  const m = Document.toObject(Document.decode(bytes), { longs: Number, arrays: false }) as Json;
  const doc = plain({ ...m, paths: undefined, definitions: undefined, security_definitions: undefined });
  for (const k of Object.keys(doc)) if (doc[k] === undefined) delete doc[k];
  if (m.paths) doc.paths = { ...pairs(m.paths.path, plain), ...pairs(m.paths.vendor_extension, anyJson) };
  if (m.definitions) doc.definitions = pairs(m.definitions.additional_properties, schemaOf);
  if (m.security_definitions) doc.securityDefinitions = pairs(m.security_definitions.additional_properties, (v) => plain(Object.values(v)[0] as Json));
  return doc;
}

/** Proto3 cannot tell false, 0, '' and [] from absent; free-form values (Any) keep them. */
function withoutZeroValues(v: unknown, underAny = false): unknown {
  if (underAny) return v;
  if (Array.isArray(v)) return v.map((x) => withoutZeroValues(x));
  if (v && typeof v === 'object') {
    const out: Json = {};
    for (const [k, x] of Object.entries(v)) {
      const oneofMember = k === 'additionalProperties';
      if (!oneofMember && (x === false || x === 0 || x === '' || (Array.isArray(x) && x.length === 0))) continue;
      out[k] = withoutZeroValues(x, ANY_FIELDS.has(k) || k === 'enum' || k.startsWith('x-'));
    }
    return out;
  }
  return v;
}

describe('OpenAPI v2 protobuf form (gnostic openapi.v2.Document)', () => {
  it('reference behaviour: the served document decodes with an independent reader and gives back its paths and definitions', () => {
    const doc = buildOpenAPIV2(builtinTypes(), { version: 'v1.31.0' });
    const back = swaggerOf(encodeOpenAPIV2(doc));
    assert.ok(Object.keys(doc.paths as Json).length > 100 && Object.keys(doc.definitions as Json).length > 100);
    assert.deepEqual(Object.keys(back.paths), Object.keys(doc.paths as Json), 'paths, in order');
    assert.deepEqual(Object.keys(back.definitions), Object.keys(doc.definitions as Json), 'definitions, in order');
    assert.deepEqual(back, withoutZeroValues(doc));
  });

  const cases: [string, Json][] = [
    ['additionalProperties as a boolean and as a schema; items as one schema', {
      swagger: '2.0',
      definitions: { A: { type: 'object', additionalProperties: false, properties: { m: { type: 'object', additionalProperties: { type: 'string', format: 'byte' } }, l: { type: 'array', items: { $ref: '#/definitions/B' } } } }, B: { type: 'integer', format: 'int32', minimum: 1, maximum: 9, multipleOf: 2 } },
    }],
    ['free-form values (default, enum, example, x- extensions) survive as YAML, strings that look like YAML 1.1 booleans included', {
      swagger: '2.0',
      definitions: { C: { type: 'string', enum: ['yes', 'no', 'on', '1.0'], default: 'yes', example: 'off', 'x-kubernetes-group-version-kind': [{ group: '', kind: 'C', version: 'v1' }], 'x-kubernetes-list-map-keys': ['a', 'b'] } },
    }],
    ['parameters of every location, a $ref parameter, response $refs, vendor extensions on paths and responses', {
      swagger: '2.0',
      info: { title: 'T', version: 'v1', 'x-info': { a: 1 } },
      paths: {
        '/x/{name}': {
          parameters: [{ name: 'name', in: 'path', required: true, type: 'string', uniqueItems: true }, { $ref: '#/parameters/pretty' }],
          get: {
            operationId: 'getX', tags: ['x'], schemes: ['https'], consumes: ['*/*'], produces: ['application/json'],
            parameters: [
              { name: 'body', in: 'body', required: true, schema: { $ref: '#/definitions/B' } },
              { name: 'q', in: 'query', type: 'array', items: { type: 'string' }, collectionFormat: 'multi', maxItems: 3 },
              { name: 'h', in: 'header', type: 'string', description: 'a header' },
              { name: 'f', in: 'formData', type: 'file', required: true },
            ],
            responses: { '200': { description: 'OK', schema: { $ref: '#/definitions/B' } }, '404': { $ref: '#/responses/missing' }, '500': { description: 'file', schema: { type: 'file' } }, 'x-r': 'z' },
            'x-kubernetes-action': 'get',
          },
        },
        'x-paths': true,
      },
      definitions: { B: { type: 'string' } },
    }],
    ['security definitions of every scheme', {
      swagger: '2.0',
      securityDefinitions: {
        b: { type: 'basic' },
        k: { type: 'apiKey', name: 'authorization', in: 'header' },
        i: { type: 'oauth2', flow: 'implicit', authorizationUrl: 'https://a', scopes: { read: 'r' } },
        p: { type: 'oauth2', flow: 'password', tokenUrl: 'https://t', scopes: {} },
        a: { type: 'oauth2', flow: 'application', tokenUrl: 'https://t', scopes: { w: 'w' } },
        c: { type: 'oauth2', flow: 'accessCode', authorizationUrl: 'https://a', tokenUrl: 'https://t', scopes: { w: 'w' } },
      },
    }],
  ];
  for (const [title, doc] of cases) {
    it(`reference behaviour: round-trips ${title}`, () => {
      assert.deepEqual(swaggerOf(encodeOpenAPIV2(doc)), withoutZeroValues(doc));
    });
  }

  it('reference behaviour: vendor extensions read back with a YAML 1.1 reader keep their JSON types', () => {
    const doc = { swagger: '2.0', definitions: { D: { type: 'object', 'x-flag': 'yes', 'x-n': 1, 'x-obj': { k: ['v'] } } } };
    const m = Document.toObject(Document.decode(encodeOpenAPIV2(doc))) as Json;
    const ext = m.definitions.additional_properties[0].value.vendor_extension as Json[];
    assert.deepEqual(ext.map((e) => [e.name, anyJson(e.value)]), [['x-flag', 'yes'], ['x-n', 1], ['x-obj', { k: ['v'] }]]);
  });

  const failures: [string, Json, RegExp][] = [
    ['a schema key Swagger 2.0 has no field for', { swagger: '2.0', definitions: { A: { type: 'object', patternProperties: {} } } }, /\.definitions\.A\.patternProperties: Schema has no field/],
    ['a parameter in an unknown location', { swagger: '2.0', paths: { '/p': { get: { parameters: [{ name: 'c', in: 'cookie', type: 'string' }] } } } }, /\.in: a parameter is in header, formData, query, path or body, not "cookie"/],
    ['a fractional length limit', { swagger: '2.0', definitions: { A: { type: 'string', maxLength: 1.5 } } }, /\.definitions\.A\.maxLength: expected an integer, got 1\.5/],
    ['a string where a list belongs', { swagger: '2.0', definitions: { A: { required: 'x' } } }, /\.definitions\.A\.required: expected a list/],
  ];
  for (const [title, doc, message] of failures) {
    it(`reference behaviour: refuses ${title}, naming the JSON path`, () => {
      assert.throws(() => encodeOpenAPIV2(doc), message);
    });
  }
});
