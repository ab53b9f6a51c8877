import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { COORDINATION_GROUP, EVENTS_GROUP, RBAC_GROUP } from '../../api/naming.js';
import type { Schema } from '../../api/index.js';
import { apiVersionOf, type ApiObject } from '../../api/types.js';
import { definitionSchema } from '../../registry/reference-schema.js';
import { builtinTypes } from '../../registry/resources/index.js';
import type { ResourceType } from '../../registry/types.js';
import { decodeProtobuf, encodeProtobuf, supportsProtobuf } from './index.js';
import { descriptorFor } from './descriptors.js';
import { fullMeta, MICRO, podSample, podStatus, ref, selector, T1, T2 } from './testdata.js';

type Obj = Record<string, unknown>;

/**
 * Realistic objects of the most used kinds, before the type's create defaults; `status` is set after them.
 * Every kind is covered by the schema-generated samples of every-kind.test.ts; these add real values
 * (defaults applied by the server, zeros the reference keeps, nested unions of volume sources).
 */
const samples: Record<string, { obj: Obj; status?: Obj }> = {
  'v1/Namespace': {
    obj: { metadata: fullMeta('team-a'), spec: { finalizers: ['example.com/x'] } },
    status: { phase: 'Terminating', conditions: [{ type: 'NamespaceDeletionContentFailure', status: 'False', lastTransitionTime: T1, reason: 'ContentDeleted', message: 'ok' }] },
  },
  'v1/ConfigMap': {
    obj: { metadata: fullMeta('cfg', 'default'), data: { 'app.conf': 'a=1\nb=2', empty: '' }, binaryData: { blob: 'AAEC/w==', none: '' }, immutable: false },
  },
  'v1/Secret': {
    obj: { metadata: fullMeta('sec', 'default'), data: { password: 'cGFzcw==' }, stringData: { user: 'admin' }, type: 'kubernetes.io/basic-auth', immutable: true },
  },
  'v1/ServiceAccount': {
    obj: { metadata: fullMeta('builder', 'default'), secrets: [{ name: 'builder-token', namespace: 'default' }], imagePullSecrets: [{ name: 'regcred' }], automountServiceAccountToken: false },
  },
  'v1/Pod': { obj: podSample() as Obj, status: podStatus() },
  'v1/Node': {
    obj: {
      metadata: fullMeta('node-1'),
      spec: {
        podCIDR: '10.244.1.0/24',
        providerID: 'example://i-123',
        unschedulable: true,
        taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule', timeAdded: T1 }, { key: 'spot', effect: 'PreferNoSchedule' }],
        configSource: { configMap: { namespace: 'kube-system', name: 'kubelet', uid: 'u', resourceVersion: '1', kubeletConfigKey: 'kubelet' } },
        externalID: 'ext-1',
      },
      status: {
        capacity: { cpu: '4', memory: '16Gi', pods: '110' },
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: T2, lastTransitionTime: T1, reason: 'KubeletReady', message: 'ready' }],
        addresses: [{ type: 'InternalIP', address: '10.0.0.1' }, { type: 'Hostname', address: 'node-1' }],
        daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
        nodeInfo: {
          machineID: 'm', systemUUID: 's', bootID: 'b', kernelVersion: '6.1.0', osImage: 'Debian', containerRuntimeVersion: 'containerd://1.7',
          kubeletVersion: 'v1.31.0', kubeProxyVersion: '', operatingSystem: 'linux', architecture: 'amd64',
        },
        images: [{ names: ['busybox:1.36', 'busybox@sha256:abc'], sizeBytes: 4_300_000 }],
        volumesInUse: ['kubernetes.io/csi/vol-1'],
        volumesAttached: [{ name: 'kubernetes.io/csi/vol-1', devicePath: '/dev/xvdb' }],
        config: { assigned: { configMap: { namespace: 'kube-system', name: 'kubelet', kubeletConfigKey: 'kubelet' } }, error: 'none' },
        runtimeHandlers: [{ name: '', features: { recursiveReadOnlyMounts: true, userNamespaces: false } }, { name: 'runc' }],
        features: { supplementalGroupsPolicy: true },
      },
    },
  },
  'v1/Service': {
    obj: {
      metadata: fullMeta('web', 'default'),
      spec: {
        type: 'LoadBalancer',
        ports: [
          { name: 'http', protocol: 'TCP', port: 80, targetPort: 'http', appProtocol: 'http' },
          { name: 'metrics', port: 9090, targetPort: 9091, nodePort: 30090 },
        ],
        selector: { app: 'web' },
        externalIPs: ['192.0.2.10'],
        sessionAffinity: 'ClientIP',
        loadBalancerIP: '192.0.2.20',
        loadBalancerSourceRanges: ['192.0.2.0/24'],
        externalTrafficPolicy: 'Local',
        publishNotReadyAddresses: true,
        allocateLoadBalancerNodePorts: true,
        loadBalancerClass: 'example.com/lb',
        trafficDistribution: 'PreferClose',
      },
    },
    status: {
      loadBalancer: { ingress: [{ ip: '192.0.2.20', ipMode: 'VIP', ports: [{ port: 80, protocol: 'TCP', error: 'x' }] }, { hostname: 'lb.example.com' }] },
      conditions: [{ type: 'Ready', status: 'True', observedGeneration: 3, lastTransitionTime: T1, reason: 'Provisioned', message: '' }],
    },
  },
  'v1/Endpoints': {
    obj: {
      metadata: fullMeta('web', 'default'),
      subsets: [
        {
          addresses: [{ ip: '10.244.0.5', hostname: 'web-0', nodeName: 'node-1', targetRef: ref('Pod', 'web-0') }],
          notReadyAddresses: [{ ip: '10.244.0.6' }],
          ports: [{ name: 'http', port: 8080, protocol: 'TCP', appProtocol: 'http' }, { name: 'udp', port: 53, protocol: 'UDP' }],
        },
      ],
    },
  },
  'v1/Event': {
    obj: {
      metadata: fullMeta('web-0.17a', 'default'),
      involvedObject: ref('Pod', 'web-0'),
      reason: 'Pulled',
      message: 'Successfully pulled image',
      source: { component: 'kubelet', host: 'node-1' },
      firstTimestamp: T1,
      lastTimestamp: T2,
      count: 4,
      type: 'Normal',
      eventTime: MICRO,
      series: { count: 4, lastObservedTime: '2024-05-06T07:09:10.000001Z' },
      action: 'Pulling',
      related: ref('Node', 'node-1'),
      reportingComponent: 'kubelet',
      reportingInstance: '',
    },
  },
  [`${EVENTS_GROUP}/v1/Event`]: {
    obj: {
      metadata: fullMeta('web-0.17b', 'default'),
      eventTime: MICRO,
      series: { count: 0, lastObservedTime: MICRO },
      reportingController: 'example.com/controller',
      reportingInstance: 'controller-0',
      action: 'Scale',
      reason: 'ScaledUp',
      regarding: ref('Deployment', 'web'),
      related: ref('Pod', 'web-0'),
      note: 'scaled up to 3',
      type: 'Warning',
      deprecatedSource: { component: 'c' },
      deprecatedFirstTimestamp: T1,
      deprecatedLastTimestamp: T2,
      deprecatedCount: 2,
    },
  },
  [`${COORDINATION_GROUP}/v1/Lease`]: {
    obj: {
      metadata: fullMeta('node-1', 'kube-node-lease'),
      spec: {
        holderIdentity: 'node-1',
        leaseDurationSeconds: 40,
        acquireTime: MICRO,
        renewTime: '2024-05-06T07:09:10.000000Z',
        leaseTransitions: 0,
        strategy: 'OldestEmulationVersion',
        preferredHolder: 'node-2',
      },
    },
  },
  [`${RBAC_GROUP}/v1/Role`]: {
    obj: {
      metadata: fullMeta('reader', 'default'),
      rules: [{ apiGroups: [''], resources: ['pods', 'pods/log'], verbs: ['get', 'list', 'watch'], resourceNames: ['web-0'] }],
    },
  },
  [`${RBAC_GROUP}/v1/ClusterRole`]: {
    obj: {
      metadata: fullMeta('aggregate'),
      aggregationRule: { clusterRoleSelectors: [selector, { matchLabels: { x: 'y' } }] },
      rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/metrics'] }, { verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
    },
  },
  [`${RBAC_GROUP}/v1/RoleBinding`]: {
    obj: {
      metadata: fullMeta('read-pods', 'default'),
      roleRef: { kind: 'Role', name: 'reader' },
      subjects: [{ kind: 'User', name: 'jane' }, { kind: 'ServiceAccount', name: 'builder', namespace: 'default' }],
    },
  },
  [`${RBAC_GROUP}/v1/ClusterRoleBinding`]: {
    obj: { metadata: fullMeta('admins'), roleRef: { kind: 'ClusterRole', name: 'cluster-admin' }, subjects: [{ kind: 'Group', name: 'admins' }] },
  },
};

const keyOf = (t: ResourceType) => `${apiVersionOf(t.group, t.version)}/${t.kind}`;
const served = new Map(builtinTypes().map((t) => [keyOf(t), t]));

/** The sample after the type's create defaults, as the server would store and serve it. */
function prepared(t: ResourceType): ApiObject {
  const s = samples[keyOf(t)]!;
  const obj = structuredClone({ apiVersion: apiVersionOf(t.group, t.version), kind: t.kind, ...s.obj }) as ApiObject;
  t.strategy.prepareForCreate?.(obj);
  if (s.status) obj.status = structuredClone(s.status);
  return obj;
}

/** Paths of `v` that `schema` does not declare (maps and free-form objects accept any key). */
function undeclared(v: unknown, schema: Schema | undefined, path: string, out: string[]): string[] {
  if (!schema || typeof v !== 'object' || v === null) return out;
  if (Array.isArray(v)) v.forEach((x, i) => undeclared(x, schema.items, `${path}[${i}]`, out));
  else if (schema.properties) {
    for (const [k, x] of Object.entries(v)) {
      if (Object.hasOwn(schema.properties, k)) undeclared(x, schema.properties[k], `${path}.${k}`, out);
      else out.push(`${path}.${k}`);
    }
  } else if (typeof schema.additionalProperties === 'object') {
    for (const [k, x] of Object.entries(v)) undeclared(x, schema.additionalProperties, `${path}.${k}`, out);
  }
  return out;
}

describe('protobuf round trip of realistic objects (spec 4.4)', () => {
  it('reference behaviour: the samples use only fields of release 1.31 and only served kinds', () => {
    for (const key of Object.keys(samples)) {
      const t = served.get(key);
      assert.ok(t, `${key} is not served`);
      const obj = prepared(t);
      assert.deepEqual(undeclared(obj, definitionSchema(descriptorFor(obj.apiVersion!, obj.kind!)!), key, []), []);
    }
  });

  for (const t of [...served.values()].filter((x) => Object.hasOwn(samples, keyOf(x)))) {
    it(`spec 4.4: ${keyOf(t)} survives JSON -> protobuf -> JSON unchanged`, () => {
      const obj = prepared(t);
      assert.ok(supportsProtobuf(obj.apiVersion!, obj.kind!));
      const back = decodeProtobuf(encodeProtobuf(obj));
      assert.deepStrictEqual(back, obj);
    });

    it(`spec 4.4: ${t.listKind} of ${keyOf(t)} round-trips with its list metadata`, () => {
      const item = prepared(t);
      const list: ApiObject = {
        apiVersion: item.apiVersion,
        kind: t.listKind,
        metadata: { resourceVersion: '99', continue: 'token', remainingItemCount: 0 },
        items: [item, { apiVersion: item.apiVersion, kind: t.kind, metadata: { name: 'second' } }],
      };
      assert.deepStrictEqual(decodeProtobuf(encodeProtobuf(list)), list);
    });
  }
});
