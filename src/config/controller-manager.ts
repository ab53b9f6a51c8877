/**
 * The controller manager's configuration document (spec 2.12), `OrchControllerManagerConfiguration` in the
 * controller manager config group (v1alpha1, the reference's version). Like the reference, its blocks and
 * their fields are spelt in Go style (`Generic.LeaderElection`, `DeploymentController.ConcurrentDeploymentSyncs`)
 * while the shared component blocks inside keep their lower-case names (`leaderElect`, `qps`). Every problem
 * is collected with its field path; durations decode to milliseconds.
 */
import {
  API_SERVICE_PROVIDER,
  CONTROLLER_MANAGER_CONFIG_GROUP,
  CONTROLLER_MANAGER_CONFIG_KIND,
  CONTROLLER_MANAGER_LEASE_NAME,
  PACKAGE_NAME,
  SYSTEM_NAMESPACE,
} from '../api/naming.js';
import { normalizeControllerList } from './controller-names.js';
import { checkTypeMeta, clientConnection, decodeBlock, isCIDR, parseDocumentText, type Decoded, type FieldSpec, type Problems, type Schema } from './fields.js';

export const CONTROLLER_MANAGER_CONFIG_API_VERSION = `${CONTROLLER_MANAGER_CONFIG_GROUP}/v1alpha1`;
export { CONTROLLER_MANAGER_CONFIG_KIND };

const SEC = 1000;
const MIN = 60 * SEC;
const HOUR = 60 * MIN;
const dur = (d: number): FieldSpec => ({ t: 'dur', d, min: 0 });
const positiveDur = (d: number): FieldSpec => ({ t: 'dur', d, min: 1, rule: 'must be greater than 0' });
/** A concurrent sync count: how many objects a controller works on at once; 0 would stall it. */
const syncs = (d: number, max?: number): FieldSpec => ({ t: 'int', d, min: 1, ...(max === undefined ? {} : { max }) });
const str = (d = ''): FieldSpec => ({ t: 'str', d });
const bool = (d: boolean): FieldSpec => ({ t: 'bool', d });

/** The leader election block shared with the scheduler (spec 2.12). */
export const LEADER_ELECTION: Schema = {
  leaderElect: bool(true),
  leaseDuration: positiveDur(15 * SEC),
  renewDeadline: positiveDur(10 * SEC),
  retryPeriod: positiveDur(2 * SEC),
  resourceLock: { t: 'str', d: 'leases', oneOf: ['leases'] },
  resourceName: str(CONTROLLER_MANAGER_LEASE_NAME),
  resourceNamespace: str(SYSTEM_NAMESPACE),
};

const LEADER_MIGRATION: Schema = {
  apiVersion: str(),
  kind: str(),
  leaderName: str(),
  resourceLock: { t: 'str', d: 'leases', oneOf: ['leases'] },
  controllerLeaders: { t: 'list', of: { name: str(), component: str() } },
};

const GENERIC: Schema = {
  Port: { t: 'int', d: 0, min: 0, max: 65535 },
  Address: str('0.0.0.0'),
  MinResyncPeriod: positiveDur(12 * HOUR),
  ClientConnection: { t: 'obj', fields: clientConnection(20, 30) },
  ControllerStartInterval: dur(0),
  LeaderElection: { t: 'obj', fields: LEADER_ELECTION },
  Controllers: { t: 'strs', d: ['*'] },
  Debugging: { t: 'obj', fields: { enableProfiling: bool(true), enableContentionProfiling: bool(false) } },
  LeaderMigrationEnabled: bool(false),
  LeaderMigration: { t: 'obj', fields: LEADER_MIGRATION },
};

const KUBE_CLOUD_SHARED: Schema = {
  CloudProvider: { t: 'obj', fields: { Name: str(), CloudConfigFile: str() } },
  ExternalCloudVolumePlugin: str(),
  UseServiceAccountCredentials: bool(false),
  AllowUntaggedCloud: bool(false),
  RouteReconciliationPeriod: positiveDur(10 * SEC),
  NodeMonitorPeriod: positiveDur(5 * SEC),
  ClusterName: str(API_SERVICE_PROVIDER),
  ClusterCIDR: str(),
  AllocateNodeCIDRs: bool(false),
  CIDRAllocatorType: { t: 'str', d: 'RangeAllocator', oneOf: ['RangeAllocator', 'CloudAllocator'] },
  ConfigureCloudRoutes: bool(true),
  NodeSyncPeriod: dur(0),
};

const SIGNER: FieldSpec = { t: 'obj', fields: { CertFile: str(), KeyFile: str() } };
const SIGNERS = ['KubeletServingSignerConfiguration', 'KubeletClientSignerConfiguration', 'KubeAPIServerClientSignerConfiguration', 'LegacyUnknownSignerConfiguration'];

const RECYCLER: Schema = {
  MaximumRetry: { t: 'int', d: 3, min: 0 },
  MinimumTimeoutNFS: { t: 'int', d: 300, min: 0 },
  PodTemplateFilePathNFS: str(),
  IncrementTimeoutNFS: { t: 'int', d: 30, min: 0 },
  PodTemplateFilePathHostPath: str(),
  MinimumTimeoutHostPath: { t: 'int', d: 60, min: 0 },
  IncrementTimeoutHostPath: { t: 'int', d: 30, min: 0 },
};

/** One block per controller, with the reference's defaults. */
const CONTROLLER_BLOCKS: Schema = {
  AttachDetachController: { t: 'obj', fields: { DisableAttachDetachReconcilerSync: bool(false), ReconcilerSyncLoopPeriod: positiveDur(60 * SEC), disableForceDetachOnTimeout: bool(false) } },
  CSRSigningController: {
    t: 'obj',
    fields: { ClusterSigningCertFile: str(), ClusterSigningKeyFile: str(), ...Object.fromEntries(SIGNERS.map((s) => [s, SIGNER])), ClusterSigningDuration: positiveDur(365 * 24 * HOUR) },
  },
  DaemonSetController: { t: 'obj', fields: { ConcurrentDaemonSetSyncs: syncs(2) } },
  DeploymentController: { t: 'obj', fields: { ConcurrentDeploymentSyncs: syncs(5) } },
  StatefulSetController: { t: 'obj', fields: { ConcurrentStatefulSetSyncs: syncs(5) } },
  DeprecatedController: { t: 'obj', fields: {} },
  EndpointController: { t: 'obj', fields: { ConcurrentEndpointSyncs: syncs(5), EndpointUpdatesBatchPeriod: dur(0) } },
  EndpointSliceController: {
    t: 'obj',
    fields: { ConcurrentServiceEndpointSyncs: syncs(5, 50), MaxEndpointsPerSlice: { t: 'int', d: 100, min: 1, max: 1000 }, EndpointUpdatesBatchPeriod: dur(0) },
  },
  EndpointSliceMirroringController: {
    t: 'obj',
    fields: { MirroringConcurrentServiceEndpointSyncs: syncs(5, 50), MirroringMaxEndpointsPerSubset: { t: 'int', d: 1000, min: 1, max: 1000 }, MirroringEndpointUpdatesBatchPeriod: dur(0) },
  },
  EphemeralVolumeController: { t: 'obj', fields: { ConcurrentEphemeralVolumeSyncs: syncs(5) } },
  GarbageCollectorController: {
    t: 'obj',
    fields: { EnableGarbageCollector: bool(true), ConcurrentGCSyncs: syncs(20), GCIgnoredResources: { t: 'list', of: { Group: str(), Resource: str() }, d: [{ Group: '', Resource: 'events' }] } },
  },
  HPAController: {
    t: 'obj',
    fields: {
      ConcurrentHorizontalPodAutoscalerSyncs: syncs(5),
      HorizontalPodAutoscalerSyncPeriod: positiveDur(15 * SEC),
      HorizontalPodAutoscalerUpscaleForbiddenWindow: dur(3 * MIN),
      HorizontalPodAutoscalerDownscaleForbiddenWindow: dur(5 * MIN),
      HorizontalPodAutoscalerDownscaleStabilizationWindow: dur(5 * MIN),
      HorizontalPodAutoscalerTolerance: { t: 'float', d: 0.1, min: 0 },
      HorizontalPodAutoscalerCPUInitializationPeriod: dur(5 * MIN),
      HorizontalPodAutoscalerInitialReadinessDelay: dur(30 * SEC),
    },
  },
  JobController: { t: 'obj', fields: { ConcurrentJobSyncs: syncs(5) } },
  CronJobController: { t: 'obj', fields: { ConcurrentCronJobSyncs: syncs(5) } },
  LegacySATokenCleaner: { t: 'obj', fields: { CleanUpPeriod: positiveDur(365 * 24 * HOUR) } },
  NamespaceController: { t: 'obj', fields: { NamespaceSyncPeriod: positiveDur(5 * MIN), ConcurrentNamespaceSyncs: syncs(10) } },
  NodeIPAMController: {
    t: 'obj',
    fields: {
      ServiceCIDR: str(),
      SecondaryServiceCIDR: str(),
      NodeCIDRMaskSize: { t: 'int', d: 0, min: 0, max: 128 },
      NodeCIDRMaskSizeIPv4: { t: 'int', d: 0, min: 0, max: 32 },
      NodeCIDRMaskSizeIPv6: { t: 'int', d: 0, min: 0, max: 128 },
    },
  },
  NodeLifecycleController: {
    t: 'obj',
    fields: {
      NodeEvictionRate: { t: 'float', d: 0.1, min: 0 },
      SecondaryNodeEvictionRate: { t: 'float', d: 0.01, min: 0 },
      NodeStartupGracePeriod: positiveDur(MIN),
      NodeMonitorGracePeriod: positiveDur(40 * SEC),
      LargeClusterSizeThreshold: { t: 'int', d: 50, min: 0 },
      UnhealthyZoneThreshold: { t: 'float', d: 0.55, min: 0 },
    },
  },
  PersistentVolumeBinderController: {
    t: 'obj',
    fields: {
      PVClaimBinderSyncPeriod: positiveDur(15 * SEC),
      VolumeConfiguration: {
        t: 'obj',
        fields: {
          EnableHostPathProvisioning: bool(false),
          EnableDynamicProvisioning: bool(true),
          PersistentVolumeRecyclerConfiguration: { t: 'obj', fields: RECYCLER },
          FlexVolumePluginDir: str(`/usr/libexec/${PACKAGE_NAME}/kubelet-plugins/volume/exec/`),
        },
      },
      VolumeHostCIDRDenylist: { t: 'strs', d: [] },
      VolumeHostAllowLocalLoopback: bool(true),
    },
  },
  PodGCController: { t: 'obj', fields: { TerminatedPodGCThreshold: { t: 'int', d: 12500 } } },
  ReplicaSetController: { t: 'obj', fields: { ConcurrentRSSyncs: syncs(5) } },
  ReplicationController: { t: 'obj', fields: { ConcurrentRCSyncs: syncs(5) } },
  ResourceQuotaController: { t: 'obj', fields: { ResourceQuotaSyncPeriod: positiveDur(5 * MIN), ConcurrentResourceQuotaSyncs: syncs(5) } },
  SAController: { t: 'obj', fields: { ServiceAccountKeyFile: str(), ConcurrentSATokenSyncs: syncs(5), RootCAFile: str() } },
  ServiceController: { t: 'obj', fields: { ConcurrentServiceSyncs: syncs(1) } },
  TTLAfterFinishedController: { t: 'obj', fields: { ConcurrentTTLSyncs: syncs(5) } },
  ValidatingAdmissionPolicyStatusController: { t: 'obj', fields: { ConcurrentPolicySyncs: syncs(5) } },
};

const TOP: Schema = {
  apiVersion: str(),
  kind: str(),
  Generic: { t: 'obj', fields: GENERIC },
  KubeCloudShared: { t: 'obj', fields: KUBE_CLOUD_SHARED },
  ...CONTROLLER_BLOCKS,
};

/** The decoded document: every block and field present, defaults filled in, durations in milliseconds. */
export type ControllerManagerConfiguration = Decoded & { Generic: Decoded & { Controllers: string[]; LeaderElection: Decoded } };

/** Thrown with every problem of the document, each starting with its field path. */
export class ControllerManagerConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
  }
}

/** Parses and checks the document's text (YAML or JSON). */
export function parseControllerManagerConfiguration(text: string): ControllerManagerConfiguration {
  const problems: Problems = [];
  const doc = parseDocumentText(text, problems);
  const config = problems.length === 0 ? decodeControllerManagerConfiguration(doc, problems) : undefined;
  if (problems.length > 0 || !config) throw new ControllerManagerConfigError(problems);
  return config;
}

/** Decodes and checks an already parsed document, adding every problem to `problems`. */
export function decodeControllerManagerConfiguration(doc: unknown, problems: Problems): ControllerManagerConfiguration | undefined {
  const top = checkTypeMeta(doc, CONTROLLER_MANAGER_CONFIG_API_VERSION, CONTROLLER_MANAGER_CONFIG_KIND, problems);
  if (!top) return undefined;
  const c = decodeBlock(top, TOP, '', problems) as ControllerManagerConfiguration;
  const g = c.Generic;
  g.Controllers = normalizeControllerList(g.Controllers, 'Generic.Controllers', problems);
  checkLeaderElection(g.LeaderElection, 'Generic.LeaderElection', problems);
  if (g.LeaderMigrationEnabled === true) checkLeaderMigration(g.LeaderMigration as Decoded, problems);
  checkSigning(c.CSRSigningController as Decoded, problems);
  checkCIDRs(c, problems);
  return c;
}

/** Spec 2.12's rule for an enabled leader election: renewDeadline within the lease (periods are positive by schema). */
export function checkLeaderElection(le: Decoded, path: string, problems: Problems): void {
  if (le.leaderElect !== true) return;
  const lease = le.leaseDuration as number;
  const renew = le.renewDeadline as number;
  if (lease > 0 && renew > lease) {
    problems.push(`${path}.renewDeadline: Invalid value: ${renew / SEC}s: must be less than or equal to leaseDuration (${lease / SEC}s)`);
  }
}

function checkLeaderMigration(lm: Decoded, problems: Problems): void {
  const at = 'Generic.LeaderMigration';
  if (lm.leaderName === '') problems.push(`${at}.leaderName: Required value: needed when LeaderMigrationEnabled is true`);
  (lm.controllerLeaders as Decoded[]).forEach((leader, i) => {
    if (leader.name === '') problems.push(`${at}.controllerLeaders[${i}].name: Required value`);
    if (leader.component === '') problems.push(`${at}.controllerLeaders[${i}].component: Required value`);
  });
}

/** One CA for every signer, or one per signer; a certificate always comes with its key. */
function checkSigning(csr: Decoded, problems: Problems): void {
  const at = 'CSRSigningController';
  const cert = csr.ClusterSigningCertFile as string;
  const key = csr.ClusterSigningKeyFile as string;
  if ((cert === '') !== (key === '')) problems.push(`${at}.${cert === '' ? 'ClusterSigningCertFile' : 'ClusterSigningKeyFile'}: Required value: the cluster signing certificate and key go together`);
  for (const s of SIGNERS) {
    const signer = csr[s] as Decoded;
    if ((signer.CertFile === '') !== (signer.KeyFile === '')) {
      problems.push(`${at}.${s}.${signer.CertFile === '' ? 'CertFile' : 'KeyFile'}: Required value: a signer's certificate and key go together`);
    }
    if ((cert !== '' || key !== '') && (signer.CertFile !== '' || signer.KeyFile !== '')) {
      problems.push(`${at}.${s}: Invalid value: cannot be set together with ClusterSigningCertFile and ClusterSigningKeyFile`);
    }
  }
}

function checkCIDRs(c: ControllerManagerConfiguration, problems: Problems): void {
  const ipam = c.NodeIPAMController as Decoded;
  for (const k of ['ServiceCIDR', 'SecondaryServiceCIDR']) {
    const v = ipam[k] as string;
    if (v !== '' && !isCIDR(v)) problems.push(`NodeIPAMController.${k}: Invalid value: ${JSON.stringify(v)}: must be a valid CIDR`);
  }
  const clusterCIDR = (c.KubeCloudShared as Decoded).ClusterCIDR as string;
  if (clusterCIDR !== '') {
    clusterCIDR.split(',').forEach((v) => {
      if (!isCIDR(v)) problems.push(`KubeCloudShared.ClusterCIDR: Invalid value: ${JSON.stringify(v)}: must be a valid CIDR`);
    });
  }
  ((c.PersistentVolumeBinderController as Decoded).VolumeHostCIDRDenylist as string[]).forEach((v, i) => {
    if (!isCIDR(v)) problems.push(`PersistentVolumeBinderController.VolumeHostCIDRDenylist[${i}]: Invalid value: ${JSON.stringify(v)}: must be a valid CIDR`);
  });
}
