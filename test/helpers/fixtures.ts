/**
 * One valid object of every built-in kind, for tests that exercise every kind the same way. A kind whose
 * rules need more than its schema's required fields has an entry in FIXTURES; any other kind gets an object
 * built from the required fields of its reference schema, so a new kind is covered without new test data.
 */
import type { ApiObject, Schema } from '../../src/api/index.js';
import { GROUP_SUFFIX } from '../../src/api/naming.js';
import { apiVersionOf } from '../../src/api/types.js';
import type { ResourceType } from '../../src/registry/types.js';

const labels = { app: 'fixture' };
const podSpec = { containers: [{ name: 'c', image: 'nginx:1.27' }] };
const template = { metadata: { labels }, spec: podSpec };
const selector = { matchLabels: labels };
const jobTemplate = { metadata: { labels }, spec: { ...podSpec, restartPolicy: 'Never' } };
/** A real PKCS#10 request (EC P-256, CN=fixture-user, O=fixture-team), made with openssl for the fixtures. */
const CSR_PEM = [
  '-----BEGIN CERTIFICATE REQUEST-----',
  'MIHqMIGQAgEAMC4xFTATBgNVBAMMDGZpeHR1cmUtdXNlcjEVMBMGA1UECgwMZml4',
  'dHVyZS10ZWFtMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE30bnLmreMdOEGvPE',
  'TabDGLjJgKRlNQrFxxnF0KECol7cCOtLko4ma14RVKL3KfRDQhalcyqyHLECG0sI',
  '5BnVW6AAMAoGCCqGSM49BAMCA0kAMEYCIQCSGs2GY0EEpfXUXmgbKZSsviY47HIA',
  'xNJ/l/bmJ1paAQIhAODM95/+hb2ahFExfHxLmRztXBxVsu7DYdRfgqb6503z',
  '-----END CERTIFICATE REQUEST-----',
].join('\n');

/** `<group>/<kind>` -> the fields after metadata. */
export const FIXTURES: Record<string, Record<string, unknown>> = {
  '/Pod': { spec: podSpec },
  '/Service': { spec: { ports: [{ port: 80 }], selector: labels } },
  '/Endpoints': { subsets: [{ addresses: [{ ip: '10.1.2.3' }], ports: [{ port: 80 }] }] },
  '/Event': { involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, reason: 'Tested', message: 'm', type: 'Normal' },
  [`events.${GROUP_SUFFIX}/Event`]: {
    eventTime: '2024-01-02T03:04:05.000000Z',
    reportingController: 'example.test/fixtures',
    reportingInstance: 'fixtures-1',
    action: 'Testing',
    reason: 'Tested',
    type: 'Normal',
    regarding: { kind: 'Pod', name: 'p', namespace: 'default' },
  },
  '/ReplicationController': { spec: { replicas: 1, selector: labels, template } },
  '/PodTemplate': { template },
  '/PersistentVolume': { spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/pv' } } },
  '/PersistentVolumeClaim': { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
  '/ResourceQuota': { spec: { hard: { pods: '10' } } },
  '/LimitRange': { spec: { limits: [{ type: 'Container', default: { cpu: '500m' } }] } },
  'apps/Deployment': { spec: { selector, template } },
  'apps/ReplicaSet': { spec: { selector, template } },
  'apps/StatefulSet': { spec: { selector, template, serviceName: 'svc' } },
  'apps/DaemonSet': { spec: { selector, template } },
  'apps/ControllerRevision': { revision: 1, data: { a: 1 } },
  'batch/Job': { spec: { template: jobTemplate } },
  'batch/CronJob': { spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: jobTemplate } } } },
  'autoscaling/HorizontalPodAutoscaler': { spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 3 } },
  'policy/PodDisruptionBudget': { spec: { minAvailable: 1, selector } },
  [`networking.${GROUP_SUFFIX}/Ingress`]: {
    spec: { rules: [{ host: 'example.test', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }] },
  },
  [`networking.${GROUP_SUFFIX}/IngressClass`]: { spec: { controller: `example.test/ingress` } },
  [`networking.${GROUP_SUFFIX}/NetworkPolicy`]: { spec: { podSelector: {} } },
  [`discovery.${GROUP_SUFFIX}/EndpointSlice`]: { addressType: 'IPv4', endpoints: [{ addresses: ['10.1.2.3'] }], ports: [{ port: 80, protocol: 'TCP', name: 'http' }] },
  [`storage.${GROUP_SUFFIX}/StorageClass`]: { provisioner: 'example.test/disk' },
  [`storage.${GROUP_SUFFIX}/CSIDriver`]: { spec: {} },
  [`storage.${GROUP_SUFFIX}/CSINode`]: { spec: { drivers: [{ name: 'example.test', nodeID: 'node-1' }] } },
  [`storage.${GROUP_SUFFIX}/CSIStorageCapacity`]: { storageClassName: 'standard' },
  [`storage.${GROUP_SUFFIX}/VolumeAttachment`]: { spec: { attacher: 'example.test', nodeName: 'node-1', source: { persistentVolumeName: 'pv-1' } } },
  [`node.${GROUP_SUFFIX}/RuntimeClass`]: { handler: 'runc' },
  [`scheduling.${GROUP_SUFFIX}/PriorityClass`]: { value: 1000 },
  [`apiextensions.${GROUP_SUFFIX}/CustomResourceDefinition`]: {
    metadata: { name: 'fixtures.example.com' },
    spec: {
      group: 'example.com',
      names: { plural: 'fixtures', kind: 'Fixture' },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object' } } } } }],
    },
  },
  [`certificates.${GROUP_SUFFIX}/CertificateSigningRequest`]: {
    spec: { request: Buffer.from(CSR_PEM).toString('base64'), signerName: 'example.test/signer', usages: ['client auth'] },
  },
  [`coordination.${GROUP_SUFFIX}/Lease`]: { spec: { holderIdentity: 'me', leaseDurationSeconds: 15 } },
  [`rbac.authorization.${GROUP_SUFFIX}/Role`]: { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] },
  [`rbac.authorization.${GROUP_SUFFIX}/ClusterRole`]: { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] },
  [`rbac.authorization.${GROUP_SUFFIX}/RoleBinding`]: {
    roleRef: { apiGroup: `rbac.authorization.${GROUP_SUFFIX}`, kind: 'Role', name: 'r' },
    subjects: [{ kind: 'User', name: 'u', apiGroup: `rbac.authorization.${GROUP_SUFFIX}` }],
  },
  [`rbac.authorization.${GROUP_SUFFIX}/ClusterRoleBinding`]: {
    roleRef: { apiGroup: `rbac.authorization.${GROUP_SUFFIX}`, kind: 'ClusterRole', name: 'view' },
    subjects: [{ kind: 'User', name: 'u', apiGroup: `rbac.authorization.${GROUP_SUFFIX}` }],
  },
  [`flowcontrol.apiserver.${GROUP_SUFFIX}/FlowSchema`]: { spec: { priorityLevelConfiguration: { name: 'global-default' }, matchingPrecedence: 5000 } },
  [`flowcontrol.apiserver.${GROUP_SUFFIX}/PriorityLevelConfiguration`]: { spec: { type: 'Limited', limited: { limitResponse: { type: 'Reject' } } } },
  [`admissionregistration.${GROUP_SUFFIX}/ValidatingWebhookConfiguration`]: {
    webhooks: [{ name: 'check.example.test', sideEffects: 'None', admissionReviewVersions: ['v1'], clientConfig: { url: 'https://example.test/check' } }],
  },
  [`admissionregistration.${GROUP_SUFFIX}/MutatingWebhookConfiguration`]: {
    webhooks: [{ name: 'mutate.example.test', sideEffects: 'None', admissionReviewVersions: ['v1'], clientConfig: { url: 'https://example.test/mutate' } }],
  },
  [`admissionregistration.${GROUP_SUFFIX}/ValidatingAdmissionPolicy`]: {
    spec: {
      matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] }] },
      validations: [{ expression: 'object.spec.replicas <= 5' }],
    },
  },
  [`admissionregistration.${GROUP_SUFFIX}/ValidatingAdmissionPolicyBinding`]: { spec: { policyName: 'p', validationActions: ['Deny'] } },
  [`apiregistration.${GROUP_SUFFIX}/APIService`]: {
    // An APIService is named `<version>.<group>`.
    metadata: { name: 'v1.fixtures.example.test' },
    spec: { group: 'fixtures.example.test', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 15, service: { namespace: 'default', name: 'api' } },
  },
};

/** A sample value of a schema made of its required members (strings, numbers, one item per list). */
function sample(s: Schema | undefined, depth = 0): unknown {
  if (!s || depth > 12) return undefined;
  if (s['x-kubernetes-int-or-string']) return 1;
  switch (s.type) {
    case 'string':
      return s.format === 'date-time' ? '2024-01-02T03:04:05Z' : s.format === 'byte' ? 'eA==' : 'x';
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return false;
    case 'array': {
      const item = sample(s.items, depth + 1);
      return item === undefined ? [] : [item];
    }
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const k of s.required ?? []) {
        const v = sample(s.properties?.[k], depth + 1);
        if (v !== undefined) out[k] = v;
      }
      return out;
    }
    default:
      return undefined;
  }
}

/** A valid object of `t` named `name` (in `namespace` for namespaced kinds), ready to POST. */
export function fixtureFor(t: ResourceType, name: string, namespace = 'default'): ApiObject {
  const fields = FIXTURES[`${t.group}/${t.kind}`] ?? (sample(t.schema) as Record<string, unknown>);
  const { apiVersion: _a, kind: _k, metadata, ...rest } = fields as Record<string, unknown> & { metadata?: { name?: string } };
  return {
    apiVersion: apiVersionOf(t.group, t.version),
    kind: t.kind,
    // A kind whose names follow a rule of their own names its fixture; `name` is used otherwise.
    metadata: { name: metadata?.name ?? name, ...(t.namespaced ? { namespace } : {}), labels: { ...labels } },
    ...structuredClone(rest),
  };
}
