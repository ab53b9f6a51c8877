import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DESCRIPTION_ANNOTATION, ROOT_CA_CONFIGMAP } from '../../api/naming.js';
import { ROOT_CA_DESCRIPTION, desiredConfigMap } from './controller.js';

const PEM = '-----BEGIN CERTIFICATE-----\nabc\n-----END CERTIFICATE-----\n';
const described = { [DESCRIPTION_ANNOTATION]: 'anything' };

describe('root CA ConfigMap contents (reference behaviour)', () => {
  it('reference behaviour: a missing ConfigMap is created with the bundle and the description', () => {
    assert.deepEqual(desiredConfigMap(undefined, PEM), {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: ROOT_CA_CONFIGMAP, annotations: { [DESCRIPTION_ANNOTATION]: ROOT_CA_DESCRIPTION } },
      data: { 'ca.crt': PEM },
    });
  });

  const current = (data?: Record<string, string>, annotations?: Record<string, string>) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: ROOT_CA_CONFIGMAP, namespace: 'n', resourceVersion: '7', annotations, labels: { keep: 'me' } },
    data,
  });

  it('reference behaviour: exactly the bundle, described: left alone', () => {
    assert.equal(desiredConfigMap(current({ 'ca.crt': PEM }, described), PEM), undefined);
  });

  const rewrites: [string, Record<string, string> | undefined, Record<string, string> | undefined][] = [
    ['another bundle: reset', { 'ca.crt': 'old' }, described],
    ['an extra key: reset to the bundle alone', { 'ca.crt': PEM, extra: 'x' }, described],
    ['no data: reset', undefined, described],
    ['no description: described again', { 'ca.crt': PEM }, undefined],
  ];
  for (const [name, data, annotations] of rewrites) {
    it(`reference behaviour: ${name}`, () => {
      const want = desiredConfigMap(current(data, annotations), PEM);
      assert.deepEqual(want?.data, { 'ca.crt': PEM });
      assert.equal(want?.metadata.resourceVersion, '7', 'written against the version read');
      assert.deepEqual(want?.metadata.labels, { keep: 'me' });
      assert.ok(want?.metadata.annotations?.[DESCRIPTION_ANNOTATION]);
    });
  }
});
