import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type protobuf from 'protobufjs';
import { anyJson, expectedAfterProtobuf, loadV3Document, openAPIOf as readBack } from '../../test/helpers/openapi-v3-reader.js';
import { builtinTypes } from '../registry/resources/index.js';
import { buildOpenAPIV3 } from './openapi.js';
import { encodeOpenAPIV3 } from './openapi-v3-protobuf.js';

type Json = Record<string, any>;

let Document: protobuf.Type;
before(async () => {
  Document = await loadV3Document();
});
const openAPIOf = (bytes: Buffer) => readBack(bytes, Document);

describe('OpenAPI v3 protobuf form (gnostic openapi.v3.Document)', () => {
  it('reference behaviour: every served group-version document decodes with an independent reader and gives back its paths, operations and schemas', () => {
    const { documents } = buildOpenAPIV3(builtinTypes(), { version: 'v1.31.0' });
    assert.ok(documents.size > 10);
    for (const [key, doc] of documents) {
      const back = openAPIOf(encodeOpenAPIV3(doc));
      assert.deepEqual(Object.keys(back.paths), Object.keys(doc.paths as Json), `${key}: paths, in order`);
      assert.deepEqual(Object.keys(back.components.schemas), Object.keys((doc.components as Json).schemas), `${key}: component schemas, in order`);
      assert.deepEqual(back, expectedAfterProtobuf(doc), key);
    }
  });

  it('reference behaviour: the first fields on the wire are Document.openapi (1), info (2), paths (4), components (5)', () => {
    const bytes = encodeOpenAPIV3({ openapi: '3.0.0', info: { title: 'T', version: 'v' }, paths: {}, components: { schemas: {} } });
    // tag = field << 3 | 2 (length-delimited); empty paths and components are still sent, as present messages.
    assert.deepEqual([...bytes], [0x0a, 5, ...Buffer.from('3.0.0'), 0x12, 6, 0x0a, 1, 0x54, 0x32, 1, 0x76, 0x22, 0, 0x2a, 2, 0x0a, 0]);
  });

  const cases: [string, Json][] = [
    ['$ref schemas (alone, inside allOf, as items and additionalProperties) and additionalProperties as a boolean', {
      openapi: '3.0.0',
      components: { schemas: {
        A: { type: 'object', additionalProperties: false, properties: { m: { type: 'object', additionalProperties: { $ref: '#/components/schemas/B' } }, l: { type: 'array', items: { $ref: '#/components/schemas/B' } }, w: { allOf: [{ $ref: '#/components/schemas/B' }], description: 'wrapped', default: 'x' } } },
        B: { type: 'integer', format: 'int32', minimum: 1, maximum: 9, multipleOf: 2, exclusiveMaximum: true, nullable: true },
      } },
    }],
    ['free-form values (enum, example, x- extensions) as YAML, strings that look like YAML 1.1 booleans included, and anyOf/oneOf/not', {
      openapi: '3.0.0',
      components: { schemas: { C: { type: 'string', enum: ['yes', 'no', 'on', '1.0'], example: 'off', 'x-kubernetes-group-version-kind': [{ group: '', kind: 'C', version: 'v1' }], 'x-kubernetes-list-map-keys': ['a', 'b'], anyOf: [{ type: 'integer' }, { type: 'string' }], oneOf: [{ required: ['a'] }], not: { type: 'boolean' } } } },
    }],
    ['scalar defaults, zero values included, and object and list defaults (sent empty, as the reference does)', {
      openapi: '3.0.0',
      components: { schemas: { D: { properties: { n: { type: 'integer', default: 0 }, f: { type: 'number', default: 1.5 }, b: { type: 'boolean', default: false }, s: { type: 'string', default: '' }, o: { type: 'object', default: { a: 1 } }, l: { type: 'array', default: [1] }, z: { default: null } } } } },
    }],
    ['parameters, a $ref parameter, request bodies, responses by code, default and $ref, and extensions on paths and operations', {
      openapi: '3.0.0',
      info: { title: 'T', version: 'v1', 'x-info': { a: 1 } },
      paths: {
        '/x/{name}': {
          parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string', uniqueItems: true } }, { $ref: '#/components/parameters/pretty' }],
          put: {
            operationId: 'replaceX', tags: ['x'], description: 'replace',
            requestBody: { required: true, content: { '*/*': { schema: { $ref: '#/components/schemas/B' } } } },
            responses: { '200': { description: 'OK', content: { 'application/json': { schema: { $ref: '#/components/schemas/B' } } } }, '404': { $ref: '#/components/responses/missing' }, default: { description: 'other' }, 'x-r': 'z' },
            'x-kubernetes-action': 'put',
          },
        },
        'x-paths': true,
      },
    }],
  ];
  for (const [title, doc] of cases) {
    it(`reference behaviour: round-trips ${title}`, () => {
      assert.deepEqual(openAPIOf(encodeOpenAPIV3(doc)), expectedAfterProtobuf(doc));
    });
  }

  it('reference behaviour: a $ref object is a Reference keeping only summary and description beside it', () => {
    const doc = { openapi: '3.0.0', components: { schemas: { R: { $ref: '#/components/schemas/B', description: 'd', summary: 's', type: 'object' } } } };
    const m = Document.toObject(Document.decode(encodeOpenAPIV3(doc))) as Json;
    assert.deepEqual(m.components.schemas.additional_properties[0].value, { reference: { _ref: '#/components/schemas/B', summary: 's', description: 'd' } });
  });

  it('reference behaviour: x- extension values read back with a YAML 1.1 reader keep their JSON types', () => {
    const doc = { openapi: '3.0.0', components: { schemas: { E: { type: 'object', 'x-flag': 'yes', 'x-n': 1, 'x-obj': { k: ['v'] } } } } };
    const m = Document.toObject(Document.decode(encodeOpenAPIV3(doc))) as Json;
    const ext = m.components.schemas.additional_properties[0].value.schema.specification_extension as Json[];
    assert.deepEqual(ext.map((e) => [e.name, anyJson(e.value)]), [['x-flag', 'yes'], ['x-n', 1], ['x-obj', { k: ['v'] }]]);
  });

  const failures: [string, Json, RegExp][] = [
    ['a schema key OpenAPI 3.0 has no field for', { openapi: '3.0.0', components: { schemas: { A: { type: 'object', patternProperties: {} } } } }, /\.components\.schemas\.A\.patternProperties: Schema has no field/],
    ['a path that does not start with a slash', { openapi: '3.0.0', paths: { api: {} } }, /\.paths\.api: Paths has no field/],
    ['a response key that is not a status code', { openapi: '3.0.0', paths: { '/p': { get: { responses: { ok: { description: 'x' } } } } } }, /\.responses\.ok: Responses has no field/],
    ['a fractional length limit', { openapi: '3.0.0', components: { schemas: { A: { type: 'string', maxLength: 1.5 } } } }, /\.A\.maxLength: expected an integer, got 1\.5/],
    ['a list of item schemas', { openapi: '3.0.0', components: { schemas: { A: { type: 'array', items: [{ type: 'string' }] } } } }, /\.A\.items: expected a schema object/],
    ['a type list (OpenAPI 3.1)', { openapi: '3.0.0', components: { schemas: { A: { type: ['string', 'null'] } } } }, /\.A\.type: expected a string/],
  ];
  for (const [title, doc, message] of failures) {
    it(`reference behaviour: refuses ${title}, naming the JSON path`, () => {
      assert.throws(() => encodeOpenAPIV3(doc), message);
    });
  }
});
