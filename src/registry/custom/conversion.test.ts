import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { APIEXTENSIONS_GROUP } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { StatusError } from '../../errors/index.js';
import { convertedObjectsOf, reviewVersionFor, webhookConversion } from './conversion.js';

const V1 = 'conv.example.com/v1';
const V2 = 'conv.example.com/v2';
const widget = (name: string, apiVersion = V1, extra: Record<string, unknown> = {}): ApiObject => ({
  apiVersion,
  kind: 'Widget',
  metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: '5', labels: { a: 'b' } },
  spec: { replicas: 1 },
  ...extra,
});

/** A ConversionReview answer of `objects` for request `uid`. */
const answer = (uid: string, objects: unknown[], extra: Record<string, unknown> = {}, version = 'v1') =>
  JSON.stringify({ apiVersion: `${APIEXTENSIONS_GROUP}/${version}`, kind: 'ConversionReview', response: { uid, convertedObjects: objects, result: { status: 'Success' }, ...extra } });

const toV2 = (o: ApiObject, meta: Record<string, unknown> = {}) => ({ ...o, apiVersion: V2, spec: { size: (o.spec as { replicas: number }).replicas }, metadata: { ...o.metadata, ...meta } });

describe('CRD conversion webhook answers (reference behaviour)', () => {
  it('reference behaviour: the first listed ConversionReview version this server sends is used', () => {
    const cases: [string[] | undefined, string | undefined][] = [
      [['v1', 'v1beta1'], 'v1'],
      [['v1beta1', 'v1'], 'v1beta1'],
      [['v2', 'v1beta1'], 'v1beta1'],
      [['v2'], undefined],
      [undefined, undefined],
    ];
    for (const [listed, want] of cases) assert.equal(reviewVersionFor(listed), want, JSON.stringify(listed));
  });

  const bad: [string, (uid: string, sent: ApiObject[]) => string, RegExp][] = [
    ['not JSON', () => 'nope', /not JSON/],
    ['another kind', (uid) => JSON.stringify({ apiVersion: `${APIEXTENSIONS_GROUP}/v1`, kind: 'AdmissionReview', response: { uid } }), /expected a ConversionReview/],
    ['another review version', (uid, sent) => answer(uid, sent.map((o) => toV2(o)), {}, 'v1beta1'), /expected a ConversionReview/],
    ['a wrong uid', (_uid, sent) => answer('other', sent.map((o) => toV2(o))), /response uid "other" is not the request uid "u1"/],
    ['a Failure result', (uid) => answer(uid, [], { result: { status: 'Failure', message: 'cannot convert widgets' } }), /cannot convert widgets/],
    ['too few objects', (uid) => answer(uid, []), /0 converted objects were returned for 1 sent/],
    ['the wrong apiVersion', (uid, sent) => answer(uid, sent), /apiVersion "conv.example.com\/v1", expected "conv.example.com\/v2"/],
    ['another kind of object', (uid, sent) => answer(uid, sent.map((o) => ({ ...toV2(o), kind: 'Gadget' }))), /kind "Gadget"/],
    ['a changed name', (uid, sent) => answer(uid, sent.map((o) => toV2(o, { name: 'renamed' }))), /changed metadata.name from "a" to "renamed"/],
    ['a changed uid', (uid, sent) => answer(uid, sent.map((o) => toV2(o, { uid: 'x' }))), /changed metadata.uid/],
    ['an invalid label', (uid, sent) => answer(uid, sent.map((o) => toV2(o, { labels: { 'bad key!': 'v' } }))), /invalid metadata/],
  ];
  for (const [title, reply, message] of bad) {
    it(`reference behaviour: an answer with ${title} is an error`, () => {
      const sent = [widget('a')];
      assert.throws(() => convertedObjectsOf(reply('u1', sent), 'v1', 'u1', V2, sent), message);
    });
  }

  it('reference behaviour: only labels and annotations of the converted metadata are kept; the rest is the original', () => {
    const sent = [widget('a')];
    const text = answer('u1', [toV2(sent[0] as ApiObject, { labels: { c: 'd' }, annotations: { n: 'm' }, resourceVersion: '99', generation: 7 })]);
    const [out] = convertedObjectsOf(text, 'v1', 'u1', V2, sent);
    assert.deepEqual(out?.metadata, { name: 'a', namespace: 'default', uid: 'uid-a', resourceVersion: '5', labels: { c: 'd' }, annotations: { n: 'm' } });
    assert.deepEqual(out?.spec, { size: 1 });
  });
});

describe('webhookConversion (reference behaviour)', () => {
  const make = (post: (body: string) => Promise<string>) =>
    webhookConversion({ group: 'conv.example.com', kind: 'Widget', storageApiVersion: V1, reviewVersion: 'v1', post, uid: () => 'u1' });

  it('reference behaviour: objects already in the desired version are never sent; the others come back in place', async () => {
    const bodies: any[] = [];
    const conv = make(async (body) => {
      const review = JSON.parse(body);
      bodies.push(review);
      return answer(review.request.uid, review.request.objects.map((o: ApiObject) => toV2(o)));
    });
    const objects = [widget('a'), widget('b', V2, { spec: { size: 4 } }), widget('c')];
    const out = await conv.convert(objects, V2);
    assert.deepEqual(out.map((o) => o.metadata?.name), ['a', 'b', 'c']);
    assert.deepEqual(out.map((o) => o.spec), [{ size: 1 }, { size: 4 }, { size: 1 }]);
    assert.equal(bodies.length, 1);
    assert.equal(bodies[0].apiVersion, `${APIEXTENSIONS_GROUP}/v1`);
    assert.equal(bodies[0].request.desiredAPIVersion, V2);
    assert.deepEqual(bodies[0].request.objects.map((o: ApiObject) => o.metadata?.name), ['a', 'c']);
    assert.equal((await conv.convert([widget('d', V2)], V2)).length, 1);
    assert.equal(bodies.length, 1, 'nothing to convert: no call');
  });

  it('reference behaviour: a failed call is a 500 naming the resource and the reason', async () => {
    const conv = make(async () => {
      throw new Error('Post "https://127.0.0.1:1/convert": connect ECONNREFUSED');
    });
    await assert.rejects(conv.convert([widget('a')], V2), (e: unknown) => {
      assert.ok(e instanceof StatusError);
      assert.equal(e.code, 500);
      assert.match(e.message, /^conversion webhook for conv.example.com\/Widget failed: Post "https:\/\/127.0.0.1:1\/convert": connect ECONNREFUSED/);
      return true;
    });
  });
});
