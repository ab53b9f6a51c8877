import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AUTHENTICATION_GROUP } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { decodeProtobuf, encodeProtobuf, PROTOBUF_MAGIC } from './index.js';
import { ProtoWriter } from './wire.js';

const WT_VARINT = 0;
const WT_LEN = 2;

/** Zero values of pointer fields: the reference's JSON shows them, so they must survive protobuf too. */
const EXPLICIT_ZEROS: [string, ApiObject][] = [
  ['Deployment replicas 0 and maxUnavailable 0', { apiVersion: 'apps/v1', kind: 'Deployment', spec: { replicas: 0, strategy: { rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } } } }],
  ['DaemonSet maxSurge 0', { apiVersion: 'apps/v1', kind: 'DaemonSet', spec: { updateStrategy: { rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } } } }],
  ['StatefulSet replicas 0 and partition 0', { apiVersion: 'apps/v1', kind: 'StatefulSet', spec: { replicas: 0, updateStrategy: { rollingUpdate: { partition: 0 } } } }],
  ['ServiceAccount automountServiceAccountToken false', { apiVersion: 'v1', kind: 'ServiceAccount', automountServiceAccountToken: false }],
  ['Pod automountServiceAccountToken false and grace 0', { apiVersion: 'v1', kind: 'Pod', spec: { automountServiceAccountToken: false, terminationGracePeriodSeconds: 0 } }],
  ['PodDisruptionBudget minAvailable 0', { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', spec: { minAvailable: 0 } }],
  ['Job suspend false and backoffLimit 0', { apiVersion: 'batch/v1', kind: 'Job', spec: { suspend: false, backoffLimit: 0 } }],
  ['DeleteOptions gracePeriodSeconds 0 and orphanDependents false', { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0, orphanDependents: false }],
  ['TokenRequest expirationSeconds 0', { apiVersion: `${AUTHENTICATION_GROUP}/v1`, kind: 'TokenRequest', spec: { expirationSeconds: 0 } }],
  ['ObjectMeta deletionGracePeriodSeconds 0', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', deletionGracePeriodSeconds: 0 }, immutable: false }],
];

/** A message field written by hand: a tag and its bytes. */
const len = (no: number, body: Buffer) => new ProtoWriter().tag(no, WT_LEN).bytes(body).finish();
const varint = (no: number, v: number) => new ProtoWriter().tag(no, WT_VARINT).varint(v).finish();
const envelope = (apiVersion: string, kind: string, raw: Buffer) =>
  Buffer.concat([PROTOBUF_MAGIC, len(1, Buffer.concat([len(1, Buffer.from(apiVersion)), len(2, Buffer.from(kind))])), len(2, raw)]);
/** IntOrString {type 1, intVal 2, strVal 3} as a Go client writes an int. */
const intOrString = (n: number) => Buffer.concat([varint(1, 0), varint(2, n), len(3, Buffer.alloc(0))]);

describe('protobuf zero values of pointer fields (spec 4.4)', () => {
  for (const [name, obj] of EXPLICIT_ZEROS) {
    it(`reference behaviour: ${name} survive JSON -> protobuf -> JSON`, () => {
      assert.deepStrictEqual(decodeProtobuf(encodeProtobuf(obj)), obj);
    });
  }

  it('reference behaviour: a Go client\'s Deployment keeps pointer zeros and drops non-pointer ones', () => {
    // DeploymentSpec: replicas 1 (pointer), strategy 4 {rollingUpdate 2 {maxUnavailable 1, maxSurge 2}},
    // minReadySeconds 5 and paused 7 (not pointers: always written, omitted from JSON when zero).
    const rolling = Buffer.concat([len(1, intOrString(0)), len(2, intOrString(1))]);
    const spec = Buffer.concat([varint(1, 0), len(4, Buffer.concat([len(1, Buffer.from('RollingUpdate')), len(2, rolling)])), varint(5, 0), varint(7, 0)]);
    assert.deepStrictEqual(decodeProtobuf(envelope('apps/v1', 'Deployment', len(2, spec))), {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      spec: { replicas: 0, strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } } },
    });
  });

  it('reference behaviour: a Go client\'s ServiceAccount keeps automountServiceAccountToken false', () => {
    // ServiceAccount.automountServiceAccountToken is field 4.
    const raw = Buffer.concat([len(1, len(1, Buffer.from('builder'))), varint(4, 0)]);
    assert.deepStrictEqual(decodeProtobuf(envelope('v1', 'ServiceAccount', raw)), {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'builder' },
      automountServiceAccountToken: false,
    });
  });
});
