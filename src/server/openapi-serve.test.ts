import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chooseOffer, conditionalStatus, OPENAPI_V2_PROTOBUF, OPENAPI_V2_PROTOBUF_DEPRECATED, servedOpenAPIV3 } from './openapi-serve.js';

const OFFERS = [
  { mediaType: 'application/json', served: 'application/json' },
  { mediaType: OPENAPI_V2_PROTOBUF_DEPRECATED, served: OPENAPI_V2_PROTOBUF },
  { mediaType: OPENAPI_V2_PROTOBUF, served: OPENAPI_V2_PROTOBUF },
];

describe('OpenAPI content negotiation and validators', () => {
  const negotiation: [accept: string | undefined, served: string | undefined][] = [
    [undefined, 'application/json'],
    ['', 'application/json'],
    ['*/*', 'application/json'],
    ['application/*', 'application/json'],
    ['application/json;charset=utf-8', 'application/json'],
    [OPENAPI_V2_PROTOBUF_DEPRECATED, OPENAPI_V2_PROTOBUF],
    [OPENAPI_V2_PROTOBUF, OPENAPI_V2_PROTOBUF],
    // The more specific range wins among equal qualities, whatever the header order.
    [`*/*, ${OPENAPI_V2_PROTOBUF_DEPRECATED}`, OPENAPI_V2_PROTOBUF],
    [`${OPENAPI_V2_PROTOBUF};q=0.5, application/json`, 'application/json'],
    ['application/json;q=0, */*;q=0.1', 'application/json'],
    ['text/html', undefined],
    ['application/yaml', undefined],
    ['application/json;q=0', undefined],
  ];
  for (const [accept, served] of negotiation) {
    it(`reference behaviour: Accept ${JSON.stringify(accept)} is served as ${served ?? 'nothing (406)'}`, () => {
      assert.equal(chooseOffer(accept, OFFERS)?.served, served);
    });
  }

  const modified = new Date('2026-11-22T10:00:00.500Z');
  const etag = 'ABC';
  const conditions: [title: string, headers: Record<string, string>, method: string, status: 200 | 304 | 412][] = [
    ['no validators', {}, 'GET', 200],
    ['If-None-Match with the current tag', { 'if-none-match': '"ABC"' }, 'GET', 304],
    ['If-None-Match with a weak form of it, among others', { 'if-none-match': '"X", W/"ABC"' }, 'HEAD', 304],
    ['If-None-Match with another tag', { 'if-none-match': '"OLD"' }, 'GET', 200],
    ['If-None-Match * on a write', { 'if-none-match': '*' }, 'POST', 412],
    ['If-Modified-Since at the modification second', { 'if-modified-since': 'Sun, 22 Nov 2026 10:00:00 GMT' }, 'GET', 304],
    ['If-Modified-Since before it', { 'if-modified-since': 'Sun, 22 Nov 2026 09:59:59 GMT' }, 'GET', 200],
    ['If-Modified-Since ignored beside If-None-Match', { 'if-none-match': '"OLD"', 'if-modified-since': 'Sun, 22 Nov 2026 11:00:00 GMT' }, 'GET', 200],
    ['If-Modified-Since that is not a date', { 'if-modified-since': 'soon' }, 'GET', 200],
    ['If-Match with another tag', { 'if-match': '"OLD"' }, 'GET', 412],
    ['If-Match with the current tag', { 'if-match': '"ABC"' }, 'GET', 200],
    ['If-Unmodified-Since before the modification', { 'if-unmodified-since': 'Sun, 22 Nov 2026 09:00:00 GMT' }, 'GET', 412],
  ];
  for (const [title, headers, method, status] of conditions) {
    it(`reference behaviour: ${title} (${method}) answers ${status}`, () => {
      assert.equal(conditionalStatus(headers, method, etag, modified), status);
    });
  }

  it('reference behaviour: a v3 document\'s protobuf form is encoded once per version of the document, with the JSON form\'s ETag', () => {
    const doc = { openapi: '3.0.0', info: { title: 'T', version: 'v' }, paths: {}, components: { schemas: { A: { type: 'string' } } } };
    const v3 = { index: { paths: {} }, documents: new Map([['api/v1', doc]]) };
    const served = servedOpenAPIV3(v3).documents.get('api/v1')!;
    const pb = served.protobuf();
    assert.ok(pb.length > 0);
    assert.equal(served.protobuf(), pb, 'the same bytes, not a second encoding');
    const next = servedOpenAPIV3(v3).documents.get('api/v1')!;
    assert.notEqual(next.protobuf(), pb, 'a new generation encodes afresh');
    assert.deepEqual(next.protobuf(), pb);
    assert.equal(next.etag, served.etag);
  });

  it('reference behaviour: a v3 document the protobuf messages cannot carry fails each protobuf request with a 500 naming the document and the path', () => {
    const doc = { openapi: '3.0.0', components: { schemas: { A: { patternProperties: {} } } } };
    const served = servedOpenAPIV3({ index: { paths: {} }, documents: new Map([['apis/x/v1', doc]]) }).documents.get('apis/x/v1')!;
    for (let i = 0; i < 2; i++) {
      assert.throws(() => served.protobuf(), (e: any) => e.code === 500 && /OpenAPI v3 document apis\/x\/v1 has no protobuf form: \.components\.schemas\.A\.patternProperties/.test(e.message));
    }
    assert.ok(served.json.length > 0, 'the JSON form is unaffected');
  });
});
