/**
 * LimitPodHardAntiAffinityTopology (reference plugin, off by default): a pod's required anti-affinity
 * terms (`spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution`) may only spread
 * pods across hosts, so each term's `topologyKey` must be the host name label. Pod creates and updates.
 */
import { LABEL_HOSTNAME } from '../../api/naming.js';
import { isObject } from '../../api/types.js';
import { noConfiguration } from './common.js';
import { forbiddenNamed, objectName } from './placement-common.js';
import { isPodWrite, objectsIn, specOf } from './pod-request.js';
import type { AdmissionDeps, AdmissionOperation, AdmissionPlugin, AdmissionRequest } from '../types.js';

export const LIMIT_POD_HARD_ANTI_AFFINITY_TOPOLOGY = 'LimitPodHardAntiAffinityTopology';

/** The first required anti-affinity term's topology key that is not the host name label, if any. */
export function disallowedTopologyKey(spec: Record<string, unknown>): string | undefined {
  const affinity = spec.affinity;
  if (!isObject(affinity) || !isObject(affinity.podAntiAffinity)) return undefined;
  for (const term of objectsIn(affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution)) {
    const key = typeof term.topologyKey === 'string' ? term.topologyKey : '';
    if (key !== LABEL_HOSTNAME) return key;
  }
  return undefined;
}

export class LimitPodHardAntiAffinityTopologyPlugin implements AdmissionPlugin {
  readonly name = LIMIT_POD_HARD_ANTI_AFFINITY_TOPOLOGY;

  handles(op: AdmissionOperation): boolean {
    return op === 'CREATE' || op === 'UPDATE';
  }

  validate(req: AdmissionRequest): void {
    if (!isPodWrite(req)) return;
    const spec = specOf(req.object);
    const key = spec ? disallowedTopologyKey(spec) : undefined;
    if (key === undefined) return;
    throw forbiddenNamed(req, objectName(req.object), `affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey ${key} but only key ${LABEL_HOSTNAME} is allowed`);
  }
}

export function limitPodHardAntiAffinityTopologyPlugin(_deps: AdmissionDeps, configuration: unknown): AdmissionPlugin {
  noConfiguration(LIMIT_POD_HARD_ANTI_AFFINITY_TOPOLOGY, configuration);
  return new LimitPodHardAntiAffinityTopologyPlugin();
}
