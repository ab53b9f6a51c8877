import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CONTROLLER_MANAGER_LEASE_NAME, SYSTEM_NAMESPACE } from '../api/naming.js';
import {
  CONTROLLER_MANAGER_CONFIG_API_VERSION,
  CONTROLLER_MANAGER_CONFIG_KIND,
  ControllerManagerConfigError,
  parseControllerManagerConfiguration,
} from './controller-manager.js';
import { isControllerEnabled, normalizeControllerList } from './controller-names.js';

const HEAD = `apiVersion: ${CONTROLLER_MANAGER_CONFIG_API_VERSION}\nkind: ${CONTROLLER_MANAGER_CONFIG_KIND}\n`;
type Obj = Record<string, unknown>;
const at = (o: unknown, path: string): unknown => path.split('.').reduce<unknown>((v, k) => (v as Obj)[k], o);

function problemsOf(body: string): string[] {
  try {
    parseControllerManagerConfiguration(HEAD + body);
  } catch (e) {
    assert.ok(e instanceof ControllerManagerConfigError, String(e));
    return e.problems;
  }
  return [];
}

describe('OrchControllerManagerConfiguration', () => {
  it('spec 2.12: an empty document gets the reference defaults', () => {
    const c = parseControllerManagerConfiguration(HEAD);
    const cases: [string, unknown][] = [
      ['Generic.Address', '0.0.0.0'],
      ['Generic.MinResyncPeriod', 12 * 3600_000],
      ['Generic.ControllerStartInterval', 0],
      ['Generic.Controllers', ['*']],
      ['Generic.ClientConnection.qps', 20],
      ['Generic.ClientConnection.burst', 30],
      ['Generic.LeaderElection.leaderElect', true],
      ['Generic.LeaderElection.leaseDuration', 15_000],
      ['Generic.LeaderElection.renewDeadline', 10_000],
      ['Generic.LeaderElection.retryPeriod', 2000],
      ['Generic.LeaderElection.resourceLock', 'leases'],
      ['Generic.LeaderElection.resourceName', CONTROLLER_MANAGER_LEASE_NAME],
      ['Generic.LeaderElection.resourceNamespace', SYSTEM_NAMESPACE],
      ['Generic.Debugging.enableProfiling', true],
      ['Generic.LeaderMigrationEnabled', false],
      ['KubeCloudShared.RouteReconciliationPeriod', 10_000],
      ['KubeCloudShared.NodeMonitorPeriod', 5000],
      ['KubeCloudShared.CIDRAllocatorType', 'RangeAllocator'],
      ['KubeCloudShared.ConfigureCloudRoutes', true],
      ['CSRSigningController.ClusterSigningDuration', 365 * 24 * 3600_000],
      ['CSRSigningController.ClusterSigningCertFile', ''],
      ['DaemonSetController.ConcurrentDaemonSetSyncs', 2],
      ['DeploymentController.ConcurrentDeploymentSyncs', 5],
      ['StatefulSetController.ConcurrentStatefulSetSyncs', 5],
      ['EndpointController.ConcurrentEndpointSyncs', 5],
      ['EndpointSliceController.MaxEndpointsPerSlice', 100],
      ['EndpointSliceMirroringController.MirroringMaxEndpointsPerSubset', 1000],
      ['GarbageCollectorController.EnableGarbageCollector', true],
      ['GarbageCollectorController.ConcurrentGCSyncs', 20],
      ['GarbageCollectorController.GCIgnoredResources', [{ Group: '', Resource: 'events' }]],
      ['HPAController.HorizontalPodAutoscalerSyncPeriod', 15_000],
      ['HPAController.HorizontalPodAutoscalerTolerance', 0.1],
      ['HPAController.HorizontalPodAutoscalerDownscaleStabilizationWindow', 300_000],
      ['JobController.ConcurrentJobSyncs', 5],
      ['CronJobController.ConcurrentCronJobSyncs', 5],
      ['NamespaceController.ConcurrentNamespaceSyncs', 10],
      ['NamespaceController.NamespaceSyncPeriod', 300_000],
      ['NodeLifecycleController.NodeEvictionRate', 0.1],
      ['NodeLifecycleController.SecondaryNodeEvictionRate', 0.01],
      ['NodeLifecycleController.NodeMonitorGracePeriod', 40_000],
      ['NodeLifecycleController.LargeClusterSizeThreshold', 50],
      ['NodeLifecycleController.UnhealthyZoneThreshold', 0.55],
      ['PersistentVolumeBinderController.PVClaimBinderSyncPeriod', 15_000],
      ['PersistentVolumeBinderController.VolumeConfiguration.PersistentVolumeRecyclerConfiguration.MinimumTimeoutNFS', 300],
      ['PodGCController.TerminatedPodGCThreshold', 12500],
      ['ReplicaSetController.ConcurrentRSSyncs', 5],
      ['ResourceQuotaController.ResourceQuotaSyncPeriod', 300_000],
      ['SAController.ConcurrentSATokenSyncs', 5],
      ['ServiceController.ConcurrentServiceSyncs', 1],
      ['TTLAfterFinishedController.ConcurrentTTLSyncs', 5],
      ['LegacySATokenCleaner.CleanUpPeriod', 365 * 24 * 3600_000],
      ['ValidatingAdmissionPolicyStatusController.ConcurrentPolicySyncs', 5],
    ];
    for (const [path, want] of cases) assert.deepEqual(at(c, path), want, path);
  });

  it('reference behaviour: controller aliases become current names; a "-" prefix is kept', () => {
    const c = parseControllerManagerConfiguration(`${HEAD}Generic: {Controllers: ["*", tokencleaner, -garbagecollector, ttl-controller]}\n`);
    assert.deepEqual(c.Generic.Controllers, ['*', 'token-cleaner-controller', '-garbage-collector-controller', 'ttl-controller']);
  });

  it('spec 2.12: "*", name and -name; the first item for a name wins; * leaves the off-by-default ones off', () => {
    const cases: [string[], string, boolean][] = [
      [['*'], 'deployment-controller', true],
      [['*'], 'token-cleaner-controller', false],
      [['*'], 'bootstrap-signer-controller', false],
      [['*', 'tokencleaner'], 'token-cleaner-controller', true],
      [['-deployment', '*'], 'deployment-controller', false],
      [['deployment', '-deployment'], 'deployment-controller', true],
      [['-deployment', 'deployment'], 'deployment-controller', false],
      [['job'], 'deployment-controller', false],
      [[], 'deployment-controller', false],
    ];
    for (const [list, name, want] of cases) {
      const problems: string[] = [];
      const normalized = normalizeControllerList(list, 'Controllers', problems);
      assert.deepEqual(problems, []);
      assert.equal(isControllerEnabled(normalized, name), want, `${list.join(',')} ${name}`);
    }
  });

  it('spec 2.12: every invalid field is reported with its path', () => {
    const cases: [string, string][] = [
      ['Generic: {Controllers: [nope]}', 'Generic.Controllers[0]: Invalid value: "nope": "nope" is not a known controller'],
      ['Generic: {Controllers: [-nope]}', 'Generic.Controllers[0]: Invalid value: "-nope"'],
      ['Generic: {LeaderElection: {leaseDuration: 10s, renewDeadline: 11s}}', 'Generic.LeaderElection.renewDeadline: Invalid value: 11s: must be less than or equal to leaseDuration (10s)'],
      ['Generic: {LeaderElection: {leaseDuration: 0s}}', 'Generic.LeaderElection.leaseDuration: Invalid value: "0s": must be greater than 0'],
      ['Generic: {LeaderElection: {retryPeriod: -2s}}', 'Generic.LeaderElection.retryPeriod: Invalid value: "-2s": must be greater than 0'],
      ['Generic: {LeaderElection: {resourceLock: endpoints}}', 'Generic.LeaderElection.resourceLock: Unsupported value: "endpoints"'],
      ['Generic: {LeaderElection: {resourceName: 7}}', 'Generic.LeaderElection.resourceName: Invalid value: 7: must be a string'],
      ['Generic: {Port: 70000}', 'Generic.Port: Invalid value: 70000: must be in the range 0 to 65535'],
      ['Generic: {MinResyncPeriod: 0s}', 'Generic.MinResyncPeriod: Invalid value: "0s": must be greater than 0'],
      ['Generic: {ControllerStartInterval: -1s}', 'Generic.ControllerStartInterval: Invalid value: "-1s"'],
      ['Generic: {ClientConnection: {burst: -1}}', 'Generic.ClientConnection.burst: Invalid value: -1'],
      ['Generic: {Debugging: {enableProfiling: 1}}', 'Generic.Debugging.enableProfiling: Invalid value: 1: must be true or false'],
      ['Generic: {LeaderMigrationEnabled: true}', 'Generic.LeaderMigration.leaderName: Required value'],
      ['Generic: {LeaderMigrationEnabled: true, LeaderMigration: {leaderName: x, controllerLeaders: [{name: route}]}}', 'Generic.LeaderMigration.controllerLeaders[0].component: Required value'],
      ['DeploymentController: {ConcurrentDeploymentSyncs: 0}', 'DeploymentController.ConcurrentDeploymentSyncs: Invalid value: 0: must be greater than 0'],
      ['ReplicaSetController: {ConcurrentRSSyncs: -3}', 'ReplicaSetController.ConcurrentRSSyncs: Invalid value: -3: must be greater than 0'],
      ['GarbageCollectorController: {ConcurrentGCSyncs: 0}', 'GarbageCollectorController.ConcurrentGCSyncs: Invalid value: 0'],
      ['GarbageCollectorController: {GCIgnoredResources: [{Group: "", Kind: x}]}', 'GarbageCollectorController.GCIgnoredResources[0].Kind: unknown field'],
      ['EndpointSliceController: {ConcurrentServiceEndpointSyncs: 51}', 'EndpointSliceController.ConcurrentServiceEndpointSyncs: Invalid value: 51: must be in the range 1 to 50'],
      ['EndpointSliceController: {MaxEndpointsPerSlice: 1001}', 'EndpointSliceController.MaxEndpointsPerSlice: Invalid value: 1001: must be in the range 1 to 1000'],
      ['EndpointSliceMirroringController: {MirroringMaxEndpointsPerSubset: 0}', 'EndpointSliceMirroringController.MirroringMaxEndpointsPerSubset: Invalid value: 0'],
      ['HPAController: {HorizontalPodAutoscalerTolerance: -0.5}', 'HPAController.HorizontalPodAutoscalerTolerance: Invalid value: -0.5'],
      ['CSRSigningController: {ClusterSigningCertFile: /ca.crt}', 'CSRSigningController.ClusterSigningKeyFile: Required value'],
      ['CSRSigningController: {KubeletServingSignerConfiguration: {KeyFile: /k}}', 'CSRSigningController.KubeletServingSignerConfiguration.CertFile: Required value'],
      [
        'CSRSigningController: {ClusterSigningCertFile: /c, ClusterSigningKeyFile: /k, LegacyUnknownSignerConfiguration: {CertFile: /c2, KeyFile: /k2}}',
        'CSRSigningController.LegacyUnknownSignerConfiguration: Invalid value: cannot be set together with ClusterSigningCertFile',
      ],
      ['CSRSigningController: {ClusterSigningDuration: 0s}', 'CSRSigningController.ClusterSigningDuration: Invalid value: "0s": must be greater than 0'],
      ['NodeIPAMController: {ServiceCIDR: 10.0.0.0}', 'NodeIPAMController.ServiceCIDR: Invalid value: "10.0.0.0": must be a valid CIDR'],
      ['NodeIPAMController: {NodeCIDRMaskSizeIPv4: 33}', 'NodeIPAMController.NodeCIDRMaskSizeIPv4: Invalid value: 33'],
      ['KubeCloudShared: {ClusterCIDR: "10.0.0.0/8,x"}', 'KubeCloudShared.ClusterCIDR: Invalid value: "x"'],
      ['KubeCloudShared: {CIDRAllocatorType: Other}', 'KubeCloudShared.CIDRAllocatorType: Unsupported value: "Other"'],
      ['PersistentVolumeBinderController: {VolumeHostCIDRDenylist: [bad]}', 'PersistentVolumeBinderController.VolumeHostCIDRDenylist[0]: Invalid value: "bad"'],
      ['NamespaceController: {NamespaceSyncPeriod: forever}', 'NamespaceController.NamespaceSyncPeriod: Invalid value: "forever": must be a duration'],
      ['PodGCController: {TerminatedPodGCThreshold: 1.5}', 'PodGCController.TerminatedPodGCThreshold: Invalid value: 1.5: must be a 32-bit integer'],
      ['JobControler: {}', 'JobControler: unknown field'],
    ];
    for (const [body, want] of cases) {
      const problems = problemsOf(`${body}\n`);
      assert.ok(problems.some((p) => p.startsWith(want)), `${body}: want ${want}, got ${problems.join(' | ')}`);
    }
  });

  it('spec 2.12: leader election rules apply only when leaderElect is true', () => {
    assert.deepEqual(problemsOf('Generic: {LeaderElection: {leaderElect: false, leaseDuration: 10s, renewDeadline: 11s}}\n'), []);
    assert.deepEqual(problemsOf('Generic: {LeaderElection: {leaseDuration: 10s, renewDeadline: 10s}}\n'), []);
  });

  it('spec 2.12: every problem of the document is collected', () => {
    assert.equal(problemsOf('DeploymentController: {ConcurrentDeploymentSyncs: 0}\nJobController: {ConcurrentJobSyncs: 0}\nGeneric: {Controllers: [x]}\n').length, 3);
  });

  it('spec 2.12: wrong apiVersion or kind is an error', () => {
    assert.throws(() => parseControllerManagerConfiguration('apiVersion: x/v1\nkind: Pod\n'), (e: ControllerManagerConfigError) => {
      assert.equal(e.problems.length, 2);
      assert.match(e.problems[0]!, /^apiVersion: Unsupported value: "x\/v1"/);
      return true;
    });
  });
});
