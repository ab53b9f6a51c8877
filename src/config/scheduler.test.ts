import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GROUP_SUFFIX, PROTOBUF_MEDIA_TYPE, SCHEDULER_CONFIG_GROUP, SCHEDULER_LEASE_NAME, SYSTEM_NAMESPACE } from '../api/naming.js';
import { parseSchedulerConfiguration, SCHEDULER_CONFIG_KIND, SchedulerConfigError, type SchedulerConfiguration } from './scheduler.js';

const HEAD = `apiVersion: ${SCHEDULER_CONFIG_GROUP}/v1\nkind: ${SCHEDULER_CONFIG_KIND}\n`;
const doc = (body = '') => HEAD + body;
const parse = (body = '') => parseSchedulerConfiguration(doc(body), '--config f.yaml');
const get = (c: unknown, path: string) => path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], c);

describe('OrchSchedulerConfiguration defaults (spec 2.12)', () => {
  const defaults: [string, unknown][] = [
    ['parallelism', 16],
    ['percentageOfNodesToScore', 0],
    ['podInitialBackoffSeconds', 1],
    ['podMaxBackoffSeconds', 10],
    ['delayCacheUntilActive', false],
    ['enableProfiling', true],
    ['enableContentionProfiling', true],
    ['leaderElection.leaderElect', true],
    ['leaderElection.leaseDuration', 15_000],
    ['leaderElection.renewDeadline', 10_000],
    ['leaderElection.retryPeriod', 2_000],
    ['leaderElection.resourceLock', 'leases'],
    ['leaderElection.resourceName', SCHEDULER_LEASE_NAME],
    ['leaderElection.resourceNamespace', SYSTEM_NAMESPACE],
    ['clientConnection.qps', 50],
    ['clientConnection.burst', 100],
    ['clientConnection.contentType', PROTOBUF_MEDIA_TYPE],
    ['extenders', []],
  ];
  const empty = parse();
  for (const [path, want] of defaults) {
    it(`spec 2.12: ${path} defaults to ${JSON.stringify(want)}`, () => assert.deepEqual(get(empty, path), want));
  }

  it('spec 2.12: a document without profiles gets one named default-scheduler', () => {
    assert.deepEqual(empty.profiles.map((p) => p.schedulerName), ['default-scheduler']);
  });

  it('reference behaviour: the default multiPoint set is the 1.31 one, in order, with its score weights', () => {
    assert.deepEqual(empty.profiles[0]!.plugins.multiPoint.enabled, [
      { name: 'SchedulingGates' },
      { name: 'PrioritySort' },
      { name: 'NodeUnschedulable' },
      { name: 'NodeName' },
      { name: 'TaintToleration', weight: 3 },
      { name: 'NodeAffinity', weight: 2 },
      { name: 'NodePorts' },
      { name: 'NodeResourcesFit', weight: 1 },
      { name: 'VolumeRestrictions' },
      { name: 'NodeVolumeLimits' },
      { name: 'VolumeBinding' },
      { name: 'VolumeZone' },
      { name: 'PodTopologySpread', weight: 2 },
      { name: 'InterPodAffinity', weight: 2 },
      { name: 'DefaultPreemption' },
      { name: 'NodeResourcesBalancedAllocation', weight: 1 },
      { name: 'ImageLocality', weight: 1 },
      { name: 'DefaultBinder' },
    ]);
  });

  const points: [string, string[]][] = [
    ['preEnqueue', ['SchedulingGates']],
    ['queueSort', ['PrioritySort']],
    ['preFilter', ['NodeAffinity', 'NodePorts', 'NodeResourcesFit', 'VolumeRestrictions', 'NodeVolumeLimits', 'VolumeBinding', 'VolumeZone', 'PodTopologySpread', 'InterPodAffinity']],
    ['filter', ['NodeUnschedulable', 'NodeName', 'TaintToleration', 'NodeAffinity', 'NodePorts', 'NodeResourcesFit', 'VolumeRestrictions', 'NodeVolumeLimits', 'VolumeBinding', 'VolumeZone', 'PodTopologySpread', 'InterPodAffinity']],
    ['postFilter', ['DefaultPreemption']],
    ['preScore', ['TaintToleration', 'NodeAffinity', 'NodeResourcesFit', 'VolumeBinding', 'PodTopologySpread', 'InterPodAffinity', 'NodeResourcesBalancedAllocation']],
    ['score', ['TaintToleration', 'NodeAffinity', 'NodeResourcesFit', 'VolumeBinding', 'PodTopologySpread', 'InterPodAffinity', 'NodeResourcesBalancedAllocation', 'ImageLocality']],
    ['reserve', ['VolumeBinding']],
    ['permit', []],
    ['preBind', ['VolumeBinding']],
    ['bind', ['DefaultBinder']],
    ['postBind', []],
  ];
  for (const [point, names] of points) {
    it(`reference behaviour: by default the ${point} extension point runs ${names.join(', ') || 'nothing'}`, () => {
      assert.deepEqual(empty.profiles[0]!.extensionPoints[point as keyof SchedulerConfiguration['profiles'][0]['extensionPoints']].map((p) => p.name), names);
    });
  }

  it('reference behaviour: score weights come from multiPoint, 1 when not given', () => {
    assert.deepEqual(empty.profiles[0]!.extensionPoints.score.map((p) => p.weight), [3, 2, 1, 1, 2, 2, 1, 1]);
  });

  it('reference behaviour: every enabled plugin with an args kind gets defaulted args, sorted by plugin name', () => {
    assert.deepEqual(empty.profiles[0]!.pluginConfig.map((c) => [c.name, c.args.kind]), [
      ['DefaultPreemption', 'DefaultPreemptionArgs'],
      ['InterPodAffinity', 'InterPodAffinityArgs'],
      ['NodeAffinity', 'NodeAffinityArgs'],
      ['NodeResourcesBalancedAllocation', 'NodeResourcesBalancedAllocationArgs'],
      ['NodeResourcesFit', 'NodeResourcesFitArgs'],
      ['PodTopologySpread', 'PodTopologySpreadArgs'],
      ['VolumeBinding', 'VolumeBindingArgs'],
    ]);
  });

  const overrides: [string, string, string, unknown][] = [
    ['a max backoff equal to the initial one', 'parallelism: 4\npercentageOfNodesToScore: 30\npodInitialBackoffSeconds: 2\npodMaxBackoffSeconds: 2\n', 'podMaxBackoffSeconds', 2],
    ['zero qps and burst take the scheduler defaults', 'clientConnection:\n  qps: 0\n  burst: 0\n', 'clientConnection', { kubeconfig: '', acceptContentTypes: '', contentType: PROTOBUF_MEDIA_TYPE, qps: 50, burst: 100 }],
    ['zero durations take the defaults', 'leaderElection:\n  leaseDuration: 0s\n  renewDeadline: 0s\n  retryPeriod: 0s\n', 'leaderElection.leaseDuration', 15_000],
    ['durations in Go syntax', 'leaderElection:\n  leaseDuration: 1m\n  renewDeadline: 30s\n', 'leaderElection.renewDeadline', 30_000],
    ['contention profiling follows profiling when unset', 'enableProfiling: false\n', 'enableContentionProfiling', false],
    ['a disabled election is not timed', 'leaderElection:\n  leaderElect: false\n  leaseDuration: 1s\n  renewDeadline: 5s\n', 'leaderElection.leaderElect', false],
    ['delayCacheUntilActive', 'delayCacheUntilActive: true\n', 'delayCacheUntilActive', true],
    ['an extender gets the 5s call timeout', 'extenders:\n- urlPrefix: http://127.0.0.1:8888/\n  filterVerb: filter\n', 'extenders.0.httpTimeout', 5_000],
  ];
  for (const [title, body, path, want] of overrides) {
    it(`spec 2.12: ${title}`, () => assert.deepEqual(get(parse(body), path), want));
  }

  it('spec 2.12: JSON documents are read too', () => {
    const c = parseSchedulerConfiguration(JSON.stringify({ apiVersion: `${SCHEDULER_CONFIG_GROUP}/v1`, kind: SCHEDULER_CONFIG_KIND, parallelism: 8 }), 'f');
    assert.equal(c.parallelism, 8);
  });
});

describe('OrchSchedulerConfiguration plugins and profiles (spec 2.12)', () => {
  it('reference behaviour: disabling a default in multiPoint removes it everywhere, and its default args', () => {
    const p = parse('profiles:\n- plugins:\n    multiPoint:\n      disabled:\n      - name: PodTopologySpread\n').profiles[0]!;
    assert.ok(!p.extensionPoints.filter.some((e) => e.name === 'PodTopologySpread'));
    assert.ok(!p.pluginConfig.some((c) => c.name === 'PodTopologySpread'));
  });

  it('reference behaviour: a plugin set at one extension point overrides its multiPoint weight and comes first', () => {
    const p = parse('profiles:\n- plugins:\n    score:\n      enabled:\n      - name: ImageLocality\n        weight: 7\n').profiles[0]!;
    assert.deepEqual(p.extensionPoints.score[0], { name: 'ImageLocality', weight: 7 });
    assert.equal(p.extensionPoints.score.filter((e) => e.name === 'ImageLocality').length, 1);
  });

  it('reference behaviour: "*" disables every multiPoint plugin at that extension point only', () => {
    const p = parse('profiles:\n- plugins:\n    score:\n      disabled:\n      - name: "*"\n      enabled:\n      - name: NodeResourcesFit\n').profiles[0]!;
    assert.deepEqual(p.extensionPoints.score, [{ name: 'NodeResourcesFit', weight: 1 }]);
    assert.equal(p.extensionPoints.filter.length, 12);
  });

  it('reference behaviour: re-enabling a default in multiPoint keeps its place and takes the new weight', () => {
    const p = parse('profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - name: TaintToleration\n        weight: 9\n').profiles[0]!;
    assert.deepEqual(p.plugins.multiPoint.enabled[4], { name: 'TaintToleration', weight: 9 });
    assert.equal(p.plugins.multiPoint.enabled.length, 18);
  });

  it('spec 2.12: several named profiles each get the defaults', () => {
    const c = parse('profiles:\n- schedulerName: a\n- schedulerName: b\n');
    assert.deepEqual(c.profiles.map((p) => [p.schedulerName, p.extensionPoints.bind.length]), [['a', 1], ['b', 1]]);
  });

  it('spec 2.12: given args are defaulted field by field and keep their place', () => {
    const p = parse('profiles:\n- pluginConfig:\n  - name: VolumeBinding\n    args: {}\n  - name: DefaultPreemption\n    args:\n      kind: DefaultPreemptionArgs\n      minCandidateNodesPercentage: 20\n').profiles[0]!;
    assert.deepEqual(p.pluginConfig[0], { name: 'VolumeBinding', args: { kind: 'VolumeBindingArgs', bindTimeoutSeconds: 600, shape: [] } });
    assert.deepEqual(p.pluginConfig[1], { name: 'DefaultPreemption', args: { kind: 'DefaultPreemptionArgs', minCandidateNodesPercentage: 20, minCandidateNodesAbsolute: 100 } });
    assert.equal(p.pluginConfig.length, 7);
  });

  it('spec 2.12: a profile may set its own percentageOfNodesToScore', () => {
    assert.equal(parse('profiles:\n- percentageOfNodesToScore: 40\n').profiles[0]!.percentageOfNodesToScore, 40);
  });
});

describe('OrchSchedulerConfiguration errors (spec 2.12)', () => {
  const invalid: [string, string, string][] = [
    ['parallelism 0', 'parallelism: 0\n', 'parallelism: Invalid value: 0: should be an integer value greater than zero'],
    ['a percentage above 100', 'percentageOfNodesToScore: 101\n', 'percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]'],
    ['a negative percentage', 'percentageOfNodesToScore: -1\n', 'percentageOfNodesToScore: Invalid value: -1'],
    ['a profile percentage above 100', 'profiles:\n- percentageOfNodesToScore: 200\n', 'profiles[0].percentageOfNodesToScore: Invalid value: 200'],
    ['initial backoff 0', 'podInitialBackoffSeconds: 0\n', 'podInitialBackoffSeconds: Invalid value: 0: must be greater than 0'],
    ['max backoff below initial', 'podInitialBackoffSeconds: 5\npodMaxBackoffSeconds: 4\n', 'podMaxBackoffSeconds: Invalid value: 4: must be greater than or equal to podInitialBackoffSeconds (5)'],
    ['renewDeadline above leaseDuration', 'leaderElection:\n  leaseDuration: 10s\n  renewDeadline: 11s\n', 'leaderElection.renewDeadline: Invalid value: 11000ms: must be less than or equal to leaseDuration'],
    ['a negative lease duration', 'leaderElection:\n  leaseDuration: -1s\n', 'leaderElection.leaseDuration: Invalid value: -1000ms: must be greater than zero'],
    ['renewDeadline within the retry jitter', 'leaderElection:\n  renewDeadline: 2s\n  retryPeriod: 2s\n', 'leaderElection.renewDeadline: Invalid value: 2000ms: must be greater than retryPeriod times 1.2'],
    ['a removed lock kind', 'leaderElection:\n  resourceLock: endpoints\n', 'leaderElection.resourceLock: Unsupported value: "endpoints"'],
    ['a duration that is not one', 'leaderElection:\n  leaseDuration: soon\n', 'leaderElection.leaseDuration: Invalid value: "soon"'],
    ['a negative burst', 'clientConnection:\n  burst: -1\n', 'clientConnection.burst: Invalid value: -1'],
    ['an unknown top-level field', 'paralelism: 3\n', 'paralelism: unknown field'],
    ['an unknown profile field', 'profiles:\n- schedulername: x\n', 'profiles[0].schedulername: unknown field'],
    ['an unnamed profile among several', 'profiles:\n- schedulerName: a\n- {}\n', 'profiles[1].schedulerName: Required value'],
    ['an empty profile name', 'profiles:\n- schedulerName: ""\n', 'profiles[0].schedulerName: Required value'],
    ['two profiles with one name', 'profiles:\n- schedulerName: a\n- schedulerName: a\n', 'profiles[1].schedulerName: Duplicate value: "a"'],
    ['an unknown plugin', 'profiles:\n- plugins:\n    filter:\n      enabled:\n      - name: Magic\n', 'profiles[0].plugins.filter.enabled[0].name: Invalid value: "Magic": not a known plugin'],
    ['a removed plugin', 'profiles:\n- plugins:\n    filter:\n      enabled:\n      - name: EBSLimits\n', 'profiles[0].plugins.filter.enabled[0].name: Invalid value: "EBSLimits": the plugin was removed'],
    ['a plugin at a point it does not implement', 'profiles:\n- plugins:\n    score:\n      enabled:\n      - name: DefaultBinder\n', 'profiles[0].plugins.score.enabled[0].name: Invalid value: "DefaultBinder": the plugin does not implement the score extension point'],
    ['a plugin twice at one point', 'profiles:\n- plugins:\n    filter:\n      enabled:\n      - name: NodeName\n      - name: NodeName\n', 'profiles[0].plugins.filter.enabled[1].name: Duplicate value: "NodeName"'],
    ['a plugin without a name', 'profiles:\n- plugins:\n    filter:\n      enabled:\n      - weight: 1\n', 'profiles[0].plugins.filter.enabled[0].name: Required value'],
    ['a negative weight', 'profiles:\n- plugins:\n    score:\n      enabled:\n      - name: ImageLocality\n        weight: -1\n', 'profiles[0].plugins.score.enabled[0].weight: Invalid value: -1: must not be negative'],
    ['no queue sort plugin', 'profiles:\n- plugins:\n    queueSort:\n      disabled:\n      - name: "*"\n', 'profiles[0].plugins.queueSort: Invalid value: 0: exactly one queue sort plugin must be enabled'],
    ['no bind plugin', 'profiles:\n- plugins:\n    multiPoint:\n      disabled:\n      - name: DefaultBinder\n', 'profiles[0].plugins.bind: Required value: at least one bind plugin must be enabled'],
    ['profiles with different queue sorts', 'profiles:\n- schedulerName: a\n- schedulerName: b\n  plugins:\n    queueSort:\n      disabled:\n      - name: "*"\n', 'profiles[1].plugins.queueSort: Invalid value: "": must be the same for all profiles'],
    ['two pluginConfig entries for one plugin', 'profiles:\n- pluginConfig:\n  - name: NodeAffinity\n  - name: NodeAffinity\n', 'profiles[0].pluginConfig[1].name: Duplicate value: "NodeAffinity"'],
    ['pluginConfig for an unknown plugin', 'profiles:\n- pluginConfig:\n  - name: Magic\n    args: {}\n', 'profiles[0].pluginConfig[0].name: Invalid value: "Magic": not a known plugin'],
    ['pluginConfig for a plugin that is not enabled', 'profiles:\n- plugins:\n    multiPoint:\n      disabled:\n      - name: VolumeBinding\n  pluginConfig:\n  - name: VolumeBinding\n', 'profiles[0].pluginConfig[0].name: Invalid value: "VolumeBinding": the plugin is not enabled'],
    ['pluginConfig for a removed plugin', 'profiles:\n- pluginConfig:\n  - name: GCEPDLimits\n', 'profiles[0].pluginConfig[0].name: Invalid value: "GCEPDLimits": the plugin was removed'],
    ['pluginConfig without a name', 'profiles:\n- pluginConfig:\n  - args: {}\n', 'profiles[0].pluginConfig[0].name: Required value'],
    ['args of the wrong kind', 'profiles:\n- pluginConfig:\n  - name: NodeAffinity\n    args:\n      kind: InterPodAffinityArgs\n', 'profiles[0].pluginConfig[0].args.kind: Invalid value: "InterPodAffinityArgs": has to match plugin args'],
    ['args of another group', 'profiles:\n- pluginConfig:\n  - name: NodeAffinity\n    args:\n      apiVersion: example.com/v1\n', 'profiles[0].pluginConfig[0].args.apiVersion: Unsupported value: "example.com/v1"'],
    ['args for a plugin that takes none', 'profiles:\n- pluginConfig:\n  - name: ImageLocality\n    args:\n      x: 1\n', 'profiles[0].pluginConfig[0].args: Invalid value: {"x":1}: the ImageLocality plugin takes no args'],
    ['an extender without urlPrefix', 'extenders:\n- filterVerb: filter\n', 'extenders[0].urlPrefix: Required value'],
    ['an extender URL that is not http', 'extenders:\n- urlPrefix: ftp://x\n', 'extenders[0].urlPrefix: Invalid value: "ftp://x": must be an http or https URL'],
    ['a prioritizing extender without weight', 'extenders:\n- urlPrefix: http://x\n  prioritizeVerb: prioritize\n', 'extenders[0].weight: Invalid value: 0: must have a positive weight applied to it'],
    ['two binding extenders', 'extenders:\n- urlPrefix: http://x\n  bindVerb: bind\n- urlPrefix: http://y\n  bindVerb: bind\n', 'extenders: Invalid value: "found 2 extenders implementing bind": only one extender can implement bind'],
    ['a managed resource named twice', 'extenders:\n- urlPrefix: http://x\n  managedResources:\n  - name: example.com/gpu\n  - name: example.com/gpu\n', 'extenders[0].managedResources[1].name: Invalid value: "example.com/gpu": duplicate extender managed resource name'],
    ['a managed resource that is built in', 'extenders:\n- urlPrefix: http://x\n  managedResources:\n  - name: cpu\n', 'extenders[0].managedResources[0].name: Invalid value: "cpu": is an invalid extended resource name'],
    ['a managed resource in the built-in domain', `extenders:\n- urlPrefix: http://x\n  managedResources:\n  - name: ${GROUP_SUFFIX}/gpu\n`, `extenders[0].managedResources[0].name: Invalid value: "${GROUP_SUFFIX}/gpu": is an invalid extended resource name`],
    ['a negative extender timeout', 'extenders:\n- urlPrefix: http://x\n  httpTimeout: -1s\n', 'extenders[0].httpTimeout: Invalid value: "-1s": must not be negative'],
    ['TLS data that is not base64', 'extenders:\n- urlPrefix: https://x\n  tlsConfig:\n    caData: "%%%"\n', 'extenders[0].tlsConfig.caData: Invalid value: must be base64-encoded'],
  ];
  for (const [title, body, want] of invalid) {
    it(`spec 2.12: rejects ${title} with its field path`, () => {
      assert.throws(
        () => parse(body),
        (e: unknown) => e instanceof SchedulerConfigError && e.message.startsWith('--config f.yaml: ') && e.problems.some((p) => p.startsWith(want)),
      );
    });
  }

  const meta: [string, string, RegExp][] = [
    ['the wrong apiVersion', `apiVersion: ${SCHEDULER_CONFIG_GROUP}/v1beta3\nkind: ${SCHEDULER_CONFIG_KIND}\n`, /apiVersion: Unsupported value: ".*\/v1beta3"/],
    ['the reference kind name', `apiVersion: ${SCHEDULER_CONFIG_GROUP}/v1\nkind: KubeSchedulerConfiguration\n`, /kind: Unsupported value: "KubeSchedulerConfiguration"/],
    ['text that is not YAML', '{ nope', /not valid YAML or JSON/],
    ['a list instead of an object', '- 1\n', /must be an object/],
  ];
  for (const [title, text, want] of meta) {
    it(`spec 2.12: rejects ${title}`, () => assert.throws(() => parseSchedulerConfiguration(text, 'f'), want));
  }

  it('reference behaviour: every problem of a document is reported at once', () => {
    assert.throws(
      () => parse('parallelism: 0\npodInitialBackoffSeconds: 0\nprofiles:\n- schedulerName: a\n- schedulerName: a\n'),
      (e: unknown) => e instanceof SchedulerConfigError && e.problems.length === 3,
    );
  });
});
