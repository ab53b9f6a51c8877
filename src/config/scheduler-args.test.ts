import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GROUP_SUFFIX } from '../api/naming.js';
import { ARGS_DECODERS, type ArgsOptions } from './scheduler-args.js';

const decode = (plugin: string, args: unknown, opts: ArgsOptions = {}) => {
  const problems: string[] = [];
  const out = ARGS_DECODERS[plugin]!(args, 'args', problems, opts);
  return { out, problems };
};

describe('scheduler plugin args defaults (spec 2.12)', () => {
  const defaults: [string, ArgsOptions, unknown][] = [
    ['DefaultPreemption', {}, { kind: 'DefaultPreemptionArgs', minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100 }],
    ['InterPodAffinity', {}, { kind: 'InterPodAffinityArgs', hardPodAffinityWeight: 1, ignorePreferredTermsOfExistingPods: false }],
    ['NodeAffinity', {}, { kind: 'NodeAffinityArgs' }],
    ['NodeResourcesBalancedAllocation', {}, { kind: 'NodeResourcesBalancedAllocationArgs', resources: [{ name: 'cpu', weight: 1 }, { name: 'memory', weight: 1 }] }],
    ['NodeResourcesFit', {}, { kind: 'NodeResourcesFitArgs', ignoredResources: [], ignoredResourceGroups: [], scoringStrategy: { type: 'LeastAllocated', resources: [{ name: 'cpu', weight: 1 }, { name: 'memory', weight: 1 }] } }],
    ['PodTopologySpread', {}, { kind: 'PodTopologySpreadArgs', defaultConstraints: [], defaultingType: 'System' }],
    ['VolumeBinding', {}, { kind: 'VolumeBindingArgs', bindTimeoutSeconds: 600, shape: [] }],
    ['VolumeBinding', { volumeCapacityPriority: true }, { kind: 'VolumeBindingArgs', bindTimeoutSeconds: 600, shape: [{ utilization: 0, score: 0 }, { utilization: 100, score: 10 }] }],
  ];
  for (const [plugin, opts, want] of defaults) {
    it(`spec 2.12: ${plugin} args default to ${JSON.stringify(want)}${opts.volumeCapacityPriority ? ' with VolumeCapacityPriority' : ''}`, () => {
      assert.deepEqual(decode(plugin, {}, opts), { out: want, problems: [] });
    });
  }

  const valid: [string, string, unknown, ArgsOptions, string, unknown][] = [
    ['a resource weight of 0 becomes 1', 'NodeResourcesFit', { scoringStrategy: { type: 'MostAllocated', resources: [{ name: 'cpu' }] } }, {}, 'scoringStrategy', { type: 'MostAllocated', resources: [{ name: 'cpu', weight: 1 }] }],
    ['a strategy without resources gets cpu and memory', 'NodeResourcesFit', { scoringStrategy: { type: 'MostAllocated' } }, {}, 'scoringStrategy', { type: 'MostAllocated', resources: [{ name: 'cpu', weight: 1 }, { name: 'memory', weight: 1 }] }],
    ['a requested-to-capacity curve', 'NodeResourcesFit', { scoringStrategy: { type: 'RequestedToCapacityRatio', requestedToCapacityRatio: { shape: [{ utilization: 0, score: 10 }, { utilization: 100, score: 0 }] } } }, {}, 'scoringStrategy', { type: 'RequestedToCapacityRatio', resources: [{ name: 'cpu', weight: 1 }, { name: 'memory', weight: 1 }], requestedToCapacityRatio: { shape: [{ utilization: 0, score: 10 }, { utilization: 100, score: 0 }] } }],
    ['List defaulting with constraints', 'PodTopologySpread', { defaultingType: 'List', defaultConstraints: [{ maxSkew: 1, topologyKey: `topology.${GROUP_SUFFIX}/zone`, whenUnsatisfiable: 'ScheduleAnyway' }] }, {}, 'defaultingType', 'List'],
    ['an added node affinity', 'NodeAffinity', { addedAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'example.com/pool', operator: 'In', values: ['a'] }] }] } } }, {}, 'addedAffinity', { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'example.com/pool', operator: 'In', values: ['a'] }], matchFields: [] }] }, preferredDuringSchedulingIgnoredDuringExecution: [] }],
    ['bindTimeoutSeconds 0', 'VolumeBinding', { bindTimeoutSeconds: 0 }, {}, 'bindTimeoutSeconds', 0],
    ['a shape with VolumeCapacityPriority', 'VolumeBinding', { shape: [{ utilization: 10, score: 1 }] }, { volumeCapacityPriority: true }, 'shape', [{ utilization: 10, score: 1 }]],
    ['hardPodAffinityWeight 100', 'InterPodAffinity', { hardPodAffinityWeight: 100 }, {}, 'hardPodAffinityWeight', 100],
    ['minCandidateNodesPercentage 0 with an absolute count', 'DefaultPreemption', { minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 5 }, {}, 'minCandidateNodesPercentage', 0],
  ];
  for (const [title, plugin, args, opts, field, want] of valid) {
    it(`spec 2.12: ${plugin} accepts ${title}`, () => {
      const { out, problems } = decode(plugin, args, opts);
      assert.deepEqual(problems, []);
      assert.deepEqual((out as unknown as Record<string, unknown>)[field], want);
    });
  }
});

describe('scheduler plugin args errors (spec 2.12)', () => {
  const invalid: [string, string, unknown, string][] = [
    ['DefaultPreemption', 'a percentage above 100', { minCandidateNodesPercentage: 101 }, 'args.minCandidateNodesPercentage: Invalid value: 101: not in valid range [0, 100]'],
    ['DefaultPreemption', 'a negative absolute count', { minCandidateNodesAbsolute: -1 }, 'args.minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)'],
    ['DefaultPreemption', 'both counts zero', { minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 0 }, 'args.minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as minCandidateNodesAbsolute'],
    ['InterPodAffinity', 'a weight above 100', { hardPodAffinityWeight: 101 }, 'args.hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]'],
    ['InterPodAffinity', 'a negative weight', { hardPodAffinityWeight: -1 }, 'args.hardPodAffinityWeight: Invalid value: -1: not in valid range [0, 100]'],
    ['NodeAffinity', 'a bad label key', { addedAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: '-bad', operator: 'Exists' }] }] } } }, 'args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].key: Invalid value: "-bad"'],
    ['NodeAffinity', 'an unknown operator', { addedAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'a', operator: 'Near' }] }] } } }, 'args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator: Unsupported value: "Near"'],
    ['NodeAffinity', 'In without values', { addedAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'a', operator: 'In' }] }] } } }, 'args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: Required value'],
    ['NodeAffinity', 'Gt with a word', { addedAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['x'] }] }] } } }, 'args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: Invalid value: ["x"]: must be a single integer'],
    ['NodeAffinity', 'a field other than metadata.name', { addedAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'spec.x', operator: 'In', values: ['a'] }] }] } } }, 'args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].key: Invalid value: "spec.x"'],
    ['NodeAffinity', 'a preferred weight of 0', { addedAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 0, preference: {} }] } }, 'args.addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: must be in the range 1-100'],
    ['NodeResourcesBalancedAllocation', 'a weight other than 1', { resources: [{ name: 'cpu', weight: 2 }] }, 'args.resources[0].weight: Invalid value: 2: must be 1'],
    ['NodeResourcesBalancedAllocation', 'a resource twice', { resources: [{ name: 'cpu' }, { name: 'cpu' }] }, 'args.resources[1].name: Duplicate value: "cpu"'],
    ['NodeResourcesFit', 'an unknown strategy', { scoringStrategy: { type: 'Random' } }, 'args.scoringStrategy.type: Unsupported value: "Random"'],
    ['NodeResourcesFit', 'a strategy without a type', { scoringStrategy: { resources: [{ name: 'cpu', weight: 1 }] } }, 'args.scoringStrategy.type: Unsupported value: ""'],
    ['NodeResourcesFit', 'a resource weight above 100', { scoringStrategy: { type: 'LeastAllocated', resources: [{ name: 'cpu', weight: 101 }] } }, 'args.scoringStrategy.resources[0].weight: Invalid value: 101: resource weight of cpu not in valid range [1, 100]'],
    ['NodeResourcesFit', 'a negative resource weight', { scoringStrategy: { type: 'LeastAllocated', resources: [{ name: 'cpu', weight: -1 }] } }, 'args.scoringStrategy.resources[0].weight: Invalid value: -1'],
    ['NodeResourcesFit', 'RequestedToCapacityRatio without a shape', { scoringStrategy: { type: 'RequestedToCapacityRatio' } }, 'args.scoringStrategy.requestedToCapacityRatio: Required value'],
    ['NodeResourcesFit', 'an empty shape', { scoringStrategy: { type: 'RequestedToCapacityRatio', requestedToCapacityRatio: { shape: [] } } }, 'args.scoringStrategy.requestedToCapacityRatio.shape: Required value: at least one point must be specified'],
    ['NodeResourcesFit', 'a shape not increasing', { scoringStrategy: { type: 'RequestedToCapacityRatio', requestedToCapacityRatio: { shape: [{ utilization: 50, score: 1 }, { utilization: 50, score: 2 }] } } }, 'args.scoringStrategy.requestedToCapacityRatio.shape[1].utilization: Invalid value: 50: utilization values must be sorted in increasing order'],
    ['NodeResourcesFit', 'a score above 10', { scoringStrategy: { type: 'RequestedToCapacityRatio', requestedToCapacityRatio: { shape: [{ utilization: 50, score: 11 }] } } }, 'args.scoringStrategy.requestedToCapacityRatio.shape[0].score: Invalid value: 11: not in valid range [0, 10]'],
    ['NodeResourcesFit', 'a utilization above 100', { scoringStrategy: { type: 'RequestedToCapacityRatio', requestedToCapacityRatio: { shape: [{ utilization: 101, score: 1 }] } } }, 'args.scoringStrategy.requestedToCapacityRatio.shape[0].utilization: Invalid value: 101: not in valid range [0, 100]'],
    ['NodeResourcesFit', 'a resource group with a slash', { ignoredResourceGroups: ['example.com/x'] }, "args.ignoredResourceGroups[0]: Invalid value: \"example.com/x\": resource group name can't contain '/'"],
    ['NodeResourcesFit', 'a bad ignored resource', { ignoredResources: ['bad name'] }, 'args.ignoredResources[0]: Invalid value: "bad name"'],
    ['PodTopologySpread', 'constraints with System defaulting', { defaultConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule' }] }, 'args.defaultingType: Invalid value: "System": when .defaultConstraints are not empty'],
    ['PodTopologySpread', 'an unknown defaulting type', { defaultingType: 'Auto' }, 'args.defaultingType: Unsupported value: "Auto"'],
    ['PodTopologySpread', 'maxSkew 0', { defaultingType: 'List', defaultConstraints: [{ maxSkew: 0, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule' }] }, 'args.defaultConstraints[0].maxSkew: Invalid value: 0: not in valid range (0, inf)'],
    ['PodTopologySpread', 'an empty topology key', { defaultingType: 'List', defaultConstraints: [{ maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule' }] }, 'args.defaultConstraints[0].topologyKey: Required value'],
    ['PodTopologySpread', 'an unknown action', { defaultingType: 'List', defaultConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'Maybe' }] }, 'args.defaultConstraints[0].whenUnsatisfiable: Unsupported value: "Maybe"'],
    ['PodTopologySpread', 'a missing action', { defaultingType: 'List', defaultConstraints: [{ maxSkew: 1, topologyKey: 'zone' }] }, 'args.defaultConstraints[0].whenUnsatisfiable: Required value'],
    ['PodTopologySpread', 'a selector', { defaultingType: 'List', defaultConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: {} }] }, 'args.defaultConstraints[0].labelSelector: Forbidden'],
    ['PodTopologySpread', 'a repeated key and action', { defaultingType: 'List', defaultConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule' }, { maxSkew: 2, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule' }] }, 'args.defaultConstraints[1]: Duplicate value: "{zone, DoNotSchedule}"'],
    ['VolumeBinding', 'a negative timeout', { bindTimeoutSeconds: -1 }, 'args.bindTimeoutSeconds: Invalid value: -1: should not be a negative value'],
    ['VolumeBinding', 'a shape without VolumeCapacityPriority', { shape: [{ utilization: 0, score: 0 }] }, 'args.shape: Forbidden: needs the VolumeCapacityPriority feature gate'],
    ['VolumeBinding', 'an unknown field', { bindTimeout: 5 }, 'args.bindTimeout: unknown field'],
  ];
  for (const [plugin, title, args, want] of invalid) {
    it(`spec 2.12: ${plugin} args reject ${title} with its field path`, () => {
      const { problems } = decode(plugin, args);
      assert.ok(problems.some((p) => p.startsWith(want)), `got ${JSON.stringify(problems)}`);
    });
  }

  it('spec 2.12: VolumeBinding shape points are checked when VolumeCapacityPriority is on', () => {
    const { problems } = decode('VolumeBinding', { shape: [{ utilization: 101, score: 11 }] }, { volumeCapacityPriority: true });
    assert.deepEqual(problems, ['args.shape[0].utilization: Invalid value: 101: not in valid range [0, 100]', 'args.shape[0].score: Invalid value: 11: not in valid range [0, 10]']);
  });
});
