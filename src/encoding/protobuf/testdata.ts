/**
 * Realistic objects for the hand-written protobuf round trips: most fields of release 1.31 set, times in the
 * wire form of the reference (Time in seconds, MicroTime with six digits). Zero values appear only where the
 * reference's JSON keeps them (pointers and non-omitempty fields).
 */
import type { ApiObject } from '../../api/types.js';

type Obj = Record<string, unknown>;

export const T1 = '2024-05-06T07:08:09Z';
export const T2 = '2024-05-06T07:09:10Z';
export const MICRO = '2024-05-06T07:08:09.123456Z';

export function fullMeta(name: string, namespace?: string): Obj {
  return {
    name,
    generateName: `${name}-`,
    ...(namespace ? { namespace } : {}),
    uid: '6f1b3c2e-0000-4000-8000-000000000001',
    resourceVersion: '42',
    generation: 3,
    creationTimestamp: T1,
    deletionTimestamp: T2,
    deletionGracePeriodSeconds: 0,
    labels: { app: 'web', tier: 'frontend', empty: '' },
    annotations: { 'example.com/note': 'hello, world', unicode: 'grüße ✓' },
    ownerReferences: [
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'u-1', controller: true, blockOwnerDeletion: false },
    ],
    finalizers: ['example.com/cleanup'],
    managedFields: [
      {
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion: 'v1',
        time: T1,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:metadata': { 'f:labels': { 'f:app': {} } } },
        subresource: 'status',
      },
    ],
  };
}

const ref = (kind: string, name: string): Obj => ({
  kind,
  namespace: 'default',
  name,
  uid: 'u-2',
  apiVersion: 'v1',
  resourceVersion: '7',
  fieldPath: 'spec.containers{web}',
});

const container = (name: string): Obj => ({
  name,
  image: 'registry.example.com/web:1.2.3',
  command: ['/bin/server'],
  args: ['--port=8080', ''],
  workingDir: '/srv',
  ports: [{ name: 'http', containerPort: 8080, hostIP: '0.0.0.0', hostPort: 18080, protocol: 'TCP' }],
  envFrom: [{ prefix: 'CFG_', configMapRef: { name: 'cfg', optional: false } }, { secretRef: { name: 'sec', optional: true } }],
  env: [
    { name: 'PLAIN', value: 'v' },
    { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
    { name: 'MEM', valueFrom: { resourceFieldRef: { containerName: name, resource: 'limits.memory', divisor: '1Mi' } } },
    { name: 'CM', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'k', optional: false } } },
    { name: 'SEC', valueFrom: { secretKeyRef: { name: 'sec', key: 'k' } } },
  ],
  resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '250m' }, claims: [{ name: 'gpu', request: 'one' }] },
  resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }],
  volumeMounts: [
    { name: 'data', mountPath: '/data', readOnly: true, subPath: 'sub', mountPropagation: 'None' },
    { name: 'cfg', mountPath: '/cfg', subPathExpr: '$(POD)', recursiveReadOnly: 'Disabled' },
  ],
  volumeDevices: [{ name: 'block', devicePath: '/dev/xvda' }],
  livenessProbe: { httpGet: { port: 8080, httpHeaders: [{ name: 'X-Probe', value: '' }] }, initialDelaySeconds: 5 },
  readinessProbe: { tcpSocket: { port: 'http', host: 'localhost' }, terminationGracePeriodSeconds: 10 },
  startupProbe: { exec: { command: ['true'] }, failureThreshold: 30 },
  lifecycle: {
    postStart: { httpGet: { path: '/start', port: 'http', host: 'h', scheme: 'HTTPS' } },
    preStop: { sleep: { seconds: 5 } },
  },
  terminationMessagePolicy: 'FallbackToLogsOnError',
  securityContext: {
    capabilities: { add: ['NET_ADMIN'], drop: ['ALL'] },
    privileged: false,
    seLinuxOptions: { user: 'u', role: 'r', type: 't', level: 's0' },
    windowsOptions: { runAsUserName: 'ContainerUser', hostProcess: false },
    runAsUser: 1000,
    runAsGroup: 0,
    runAsNonRoot: true,
    readOnlyRootFilesystem: true,
    allowPrivilegeEscalation: false,
    procMount: 'Default',
    seccompProfile: { type: 'RuntimeDefault' },
    appArmorProfile: { type: 'Localhost', localhostProfile: 'k8s-apparmor' },
  },
  stdin: true,
  stdinOnce: true,
  tty: true,
});

const items = [{ key: 'k', path: 'p', mode: 0o400 }];
const downwardItems = [
  { path: 'labels', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.labels' }, mode: 0o444 },
  { path: 'cpu', resourceFieldRef: { containerName: 'web', resource: 'requests.cpu', divisor: '1m' } },
];
const selector = { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] };

export function podSample(): ApiObject {
  const init = { ...container('init'), restartPolicy: 'Always' };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: fullMeta('web-0', 'default'),
    spec: {
      volumes: [
        { name: 'data', emptyDir: { medium: 'Memory', sizeLimit: '1Gi' } },
        { name: 'cfg', configMap: { name: 'cfg', items, defaultMode: 0o644, optional: true } },
        { name: 'sec', secret: { secretName: 'sec', items, optional: false } },
        { name: 'host', hostPath: { path: '/var/log', type: 'Directory' } },
        { name: 'claim', persistentVolumeClaim: { claimName: 'pvc', readOnly: true } },
        { name: 'down', downwardAPI: { items: downwardItems } },
        { name: 'nfs', nfs: { server: 'nfs.example.com', path: '/exports', readOnly: true } },
        { name: 'img', image: { reference: 'registry.example.com/data:1', pullPolicy: 'IfNotPresent' } },
        { name: 'csi', csi: { driver: 'csi.example.com', readOnly: true, fsType: 'ext4', volumeAttributes: { a: 'b' }, nodePublishSecretRef: { name: 's' } } },
        { name: 'iscsi', iscsi: { targetPortal: '10.0.0.1:3260', iqn: 'iqn.2001-04.com.example:storage', lun: 0, portals: ['10.0.0.2'], chapAuthSession: true, secretRef: { name: 'chap' }, initiatorName: 'iqn.init' } },
        { name: 'fc', fc: { targetWWNs: ['500a0982991b8dc5'], lun: 2, fsType: 'xfs', readOnly: true } },
        {
          name: 'eph',
          ephemeral: {
            volumeClaimTemplate: {
              metadata: { labels: { a: 'b' } },
              spec: {
                accessModes: ['ReadWriteOnce'],
                resources: { requests: { storage: '1Gi' } },
                storageClassName: 'fast',
                volumeMode: 'Filesystem',
                selector,
                dataSource: { apiGroup: 'snapshot.storage.example.com', kind: 'VolumeSnapshot', name: 'snap' },
              },
            },
          },
        },
        {
          name: 'proj',
          projected: {
            defaultMode: 0o440,
            sources: [
              { serviceAccountToken: { audience: 'api', expirationSeconds: 3600, path: 'token' } },
              { configMap: { name: 'cfg', items, optional: true } },
              { secret: { name: 'sec' } },
              { downwardAPI: { items: downwardItems } },
              { clusterTrustBundle: { signerName: 'example.com/signer', labelSelector: selector, path: 'ca.pem', optional: false } },
            ],
          },
        },
      ],
      initContainers: [init],
      containers: [container('web')],
      ephemeralContainers: [{ name: 'debug', image: 'busybox:1.36', targetContainerName: 'web', stdin: true, tty: true }],
      restartPolicy: 'OnFailure',
      terminationGracePeriodSeconds: 0,
      activeDeadlineSeconds: 600,
      dnsPolicy: 'None',
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      serviceAccountName: 'builder',
      automountServiceAccountToken: false,
      nodeName: 'node-1',
      hostNetwork: true,
      hostPID: true,
      hostIPC: true,
      shareProcessNamespace: false,
      securityContext: {
        runAsUser: 1000,
        runAsGroup: 3000,
        runAsNonRoot: true,
        supplementalGroups: [4000, 0, 2 ** 40],
        supplementalGroupsPolicy: 'Strict',
        fsGroup: 2000,
        fsGroupChangePolicy: 'OnRootMismatch',
        sysctls: [{ name: 'net.core.somaxconn', value: '1024' }],
        seLinuxOptions: { level: 's0:c123,c456' },
        seccompProfile: { type: 'Localhost', localhostProfile: 'profiles/audit.json' },
        appArmorProfile: { type: 'RuntimeDefault' },
      },
      imagePullSecrets: [{ name: 'regcred' }],
      hostname: 'web',
      subdomain: 'svc',
      setHostnameAsFQDN: true,
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }], matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['n2'] }] }],
          },
          preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, preference: { matchExpressions: [{ key: 'ssd', operator: 'Exists' }] } }],
        },
        podAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: selector, topologyKey: 'zone', namespaces: ['default'], matchLabelKeys: ['pod-template-hash'] }],
        },
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 100, podAffinityTerm: { labelSelector: selector, topologyKey: 'kubernetes.io/hostname', namespaceSelector: {}, mismatchLabelKeys: ['x'] } },
          ],
        },
      },
      schedulerName: 'custom-scheduler',
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' },
      ],
      hostAliases: [{ ip: '127.0.0.1', hostnames: ['foo.local', 'bar.local'] }],
      priorityClassName: 'system-node-critical',
      dnsConfig: { nameservers: ['1.1.1.1'], searches: ['svc.cluster.local'], options: [{ name: 'ndots', value: '2' }, { name: 'edns0' }] },
      readinessGates: [{ conditionType: 'example.com/ready' }],
      runtimeClassName: 'gvisor',
      enableServiceLinks: false,
      overhead: { cpu: '100m' },
      topologySpreadConstraints: [
        { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: selector, minDomains: 2, nodeAffinityPolicy: 'Honor', nodeTaintsPolicy: 'Ignore', matchLabelKeys: ['rev'] },
      ],
      os: { name: 'linux' },
      hostUsers: false,
      schedulingGates: [{ name: 'example.com/gate' }],
      resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: 'gpu-template' }, { name: 'fpga', resourceClaimName: 'fpga-claim' }],
    },
  };
}

/** A running pod's status, set after create (which resets status). */
export function podStatus(): Obj {
  const status = (name: string): Obj => ({
    name,
    state: { running: { startedAt: T2 } },
    lastState: { terminated: { exitCode: 0, signal: 15, reason: 'Completed', message: 'done', startedAt: T1, finishedAt: T2, containerID: 'containerd://old' } },
    ready: false,
    restartCount: 0,
    image: 'registry.example.com/web:1.2.3',
    imageID: 'registry.example.com/web@sha256:abc',
    containerID: 'containerd://abc',
    started: true,
    allocatedResources: { cpu: '250m' },
    resources: { requests: { cpu: '250m' } },
    volumeMounts: [{ name: 'data', mountPath: '/data', readOnly: true, recursiveReadOnly: 'Disabled' }],
    user: { linux: { uid: 1000, gid: 0, supplementalGroups: [4000] } },
    allocatedResourcesStatus: [{ name: 'claim:gpu/one', resources: [{ resourceID: 'gpu-0', health: 'Healthy' }] }],
  });
  return {
    phase: 'Running',
    conditions: [
      { type: 'Ready', status: 'False', lastTransitionTime: T1, reason: 'ContainersNotReady', message: 'not ready' },
      { type: 'PodScheduled', status: 'True', lastProbeTime: T2, lastTransitionTime: T1 },
    ],
    message: 'm',
    reason: 'r',
    nominatedNodeName: 'node-2',
    hostIP: '10.0.0.1',
    hostIPs: [{ ip: '10.0.0.1' }, { ip: 'fd00::1' }],
    podIP: '10.244.0.5',
    podIPs: [{ ip: '10.244.0.5' }],
    startTime: T1,
    initContainerStatuses: [{ ...status('init'), state: { waiting: { reason: 'PodInitializing', message: 'wait' } } }],
    containerStatuses: [status('web')],
    ephemeralContainerStatuses: [{ name: 'debug', ready: false, restartCount: 0, image: 'busybox:1.36', imageID: '' }],
    qosClass: 'Burstable',
    resize: 'InProgress',
    resourceClaimStatuses: [{ name: 'gpu', resourceClaimName: 'web-0-gpu-abc' }],
  };
}

export { ref, selector };
