/**
 * One local APIService per group/version the server serves, named `<version>.<group>` (`v1.` for the core
 * group), with the reference's discovery priorities for its built-in groups. A group/version missing from
 * the table gets no APIService, as in the reference (it would otherwise stay behind forever).
 */
import { GROUP_SUFFIX } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';

export const APIREGISTRATION_GROUP = `apiregistration.${GROUP_SUFFIX}`;

/** [group, version, groupPriorityMinimum, versionPriority]. */
type PriorityRow = readonly [group: string, version: string, groupPriority: number, versionPriority: number];

const s = (prefix: string) => `${prefix}.${GROUP_SUFFIX}`;

// The reference's built-in priority table (1.31); higher numbers come first in discovery.
const PRIORITY_ROWS: readonly PriorityRow[] = [
  ['', 'v1', 18000, 1],
  [s('apiregistration'), 'v1', 18000, 15],
  ['apps', 'v1', 17800, 15],
  [s('events'), 'v1', 17750, 15],
  [s('authentication'), 'v1', 17700, 15],
  [s('authentication'), 'v1beta1', 17700, 9],
  [s('authentication'), 'v1alpha1', 17700, 1],
  [s('authorization'), 'v1', 17600, 15],
  ['autoscaling', 'v1', 17500, 15],
  ['autoscaling', 'v2', 17500, 30],
  ['batch', 'v1', 17400, 15],
  [s('certificates'), 'v1', 17300, 15],
  [s('certificates'), 'v1alpha1', 17300, 1],
  [s('networking'), 'v1', 17200, 15],
  [s('networking'), 'v1beta1', 17200, 9],
  [s('networking'), 'v1alpha1', 17200, 1],
  ['policy', 'v1', 17100, 15],
  [s('rbac.authorization'), 'v1', 17000, 15],
  [s('storage'), 'v1', 16800, 15],
  [s('storage'), 'v1beta1', 16800, 9],
  [s('storage'), 'v1alpha1', 16800, 1],
  [s('apiextensions'), 'v1', 16700, 15],
  [s('admissionregistration'), 'v1', 16700, 15],
  [s('admissionregistration'), 'v1beta1', 16700, 12],
  [s('admissionregistration'), 'v1alpha1', 16700, 9],
  [s('scheduling'), 'v1', 16600, 15],
  [s('coordination'), 'v1', 16500, 15],
  [s('coordination'), 'v1alpha1', 16500, 9],
  [s('node'), 'v1', 16300, 15],
  [s('discovery'), 'v1', 16200, 15],
  [s('flowcontrol.apiserver'), 'v1', 16100, 21],
  [s('flowcontrol.apiserver'), 'v1beta3', 16100, 18],
  [s('internal.apiserver'), 'v1alpha1', 16000, 9],
  [s('resource'), 'v1alpha3', 15900, 9],
  [s('storagemigration'), 'v1alpha1', 15800, 9],
];

const PRIORITIES = new Map(PRIORITY_ROWS.map(([g, v, gp, vp]) => [`${g}/${v}`, { groupPriorityMinimum: gp, versionPriority: vp }]));

/** The built-in priorities of a group/version, or undefined for one the table does not know. */
export function builtinPriority(group: string, version: string): { groupPriorityMinimum: number; versionPriority: number } | undefined {
  return PRIORITIES.get(`${group}/${version}`);
}

export function apiServiceFor(group: string, version: string): ApiObject | undefined {
  const priority = builtinPriority(group, version);
  if (!priority) return undefined;
  return {
    apiVersion: `${APIREGISTRATION_GROUP}/v1`,
    kind: 'APIService',
    metadata: { name: `${version}.${group}` },
    spec: { group, version, ...priority },
  };
}

/** One APIService per distinct group/version of `served`, in the order they first appear; none unless APIServices are served. */
export function apiServicesFor(served: readonly ResourceType[]): ApiObject[] {
  if (!served.some((t) => t.group === APIREGISTRATION_GROUP && t.plural === 'apiservices')) return [];
  const seen = new Set<string>();
  const out: ApiObject[] = [];
  for (const t of served) {
    const key = `${t.group}/${t.version}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const svc = apiServiceFor(t.group, t.version);
    if (svc) out.push(svc);
  }
  return out;
}
