/**
 * The controller names the controller manager's `Controllers` list accepts (release 1.31's list), the older
 * short names it still reads as aliases, and the `*` / `name` / `-name` rule that decides which run.
 */

/** Every controller, by its current name. */
export const KNOWN_CONTROLLERS: readonly string[] = [
  'bootstrap-signer-controller',
  'certificatesigningrequest-approving-controller',
  'certificatesigningrequest-cleaner-controller',
  'certificatesigningrequest-signing-controller',
  'cloud-node-lifecycle-controller',
  'clusterrole-aggregation-controller',
  'cronjob-controller',
  'daemonset-controller',
  'deployment-controller',
  'disruption-controller',
  'endpoints-controller',
  'endpointslice-controller',
  'endpointslice-mirroring-controller',
  'ephemeral-volume-controller',
  'garbage-collector-controller',
  'horizontal-pod-autoscaler-controller',
  'job-controller',
  'legacy-serviceaccount-token-cleaner-controller',
  'namespace-controller',
  'node-ipam-controller',
  'node-lifecycle-controller',
  'node-route-controller',
  'persistentvolume-attach-detach-controller',
  'persistentvolume-binder-controller',
  'persistentvolume-expander-controller',
  'persistentvolume-protection-controller',
  'persistentvolumeclaim-protection-controller',
  'pod-garbage-collector-controller',
  'replicaset-controller',
  'replicationcontroller-controller',
  'resourceclaim-controller',
  'resourcequota-controller',
  'root-ca-certificate-publisher-controller',
  'service-cidr-controller',
  'service-lb-controller',
  'serviceaccount-controller',
  'serviceaccount-token-controller',
  'statefulset-controller',
  'storage-version-migrator-controller',
  'storageversion-garbage-collector-controller',
  'taint-eviction-controller',
  'token-cleaner-controller',
  'ttl-after-finished-controller',
  'ttl-controller',
  'validatingadmissionpolicy-status-controller',
  'volumeattributesclass-protection-controller',
];

/** Controllers that `*` leaves off: they run only when named. */
export const DISABLED_BY_DEFAULT: ReadonlySet<string> = new Set(['bootstrap-signer-controller', 'token-cleaner-controller']);

/** The short names older configurations use, and the controller each means. */
export const CONTROLLER_ALIASES: ReadonlyMap<string, string> = new Map([
  ['attachdetach', 'persistentvolume-attach-detach-controller'],
  ['bootstrapsigner', 'bootstrap-signer-controller'],
  ['cloud-node-lifecycle', 'cloud-node-lifecycle-controller'],
  ['clusterrole-aggregation', 'clusterrole-aggregation-controller'],
  ['cronjob', 'cronjob-controller'],
  ['csrapproving', 'certificatesigningrequest-approving-controller'],
  ['csrcleaner', 'certificatesigningrequest-cleaner-controller'],
  ['csrsigning', 'certificatesigningrequest-signing-controller'],
  ['daemonset', 'daemonset-controller'],
  ['deployment', 'deployment-controller'],
  ['disruption', 'disruption-controller'],
  ['endpoint', 'endpoints-controller'],
  ['endpointslice', 'endpointslice-controller'],
  ['endpointslicemirroring', 'endpointslice-mirroring-controller'],
  ['ephemeral-volume', 'ephemeral-volume-controller'],
  ['garbagecollector', 'garbage-collector-controller'],
  ['horizontalpodautoscaling', 'horizontal-pod-autoscaler-controller'],
  ['job', 'job-controller'],
  ['legacy-service-account-token-cleaner', 'legacy-serviceaccount-token-cleaner-controller'],
  ['namespace', 'namespace-controller'],
  ['nodeipam', 'node-ipam-controller'],
  ['nodelifecycle', 'node-lifecycle-controller'],
  ['persistentvolume-binder', 'persistentvolume-binder-controller'],
  ['persistentvolume-expander', 'persistentvolume-expander-controller'],
  ['podgc', 'pod-garbage-collector-controller'],
  ['pv-protection', 'persistentvolume-protection-controller'],
  ['pvc-protection', 'persistentvolumeclaim-protection-controller'],
  ['replicaset', 'replicaset-controller'],
  ['replicationcontroller', 'replicationcontroller-controller'],
  ['resource-claim-controller', 'resourceclaim-controller'],
  ['resourcequota', 'resourcequota-controller'],
  ['root-ca-cert-publisher', 'root-ca-certificate-publisher-controller'],
  ['route', 'node-route-controller'],
  ['service', 'service-lb-controller'],
  ['serviceaccount', 'serviceaccount-controller'],
  ['serviceaccount-token', 'serviceaccount-token-controller'],
  ['statefulset', 'statefulset-controller'],
  ['storage-version-gc', 'storageversion-garbage-collector-controller'],
  ['tokencleaner', 'token-cleaner-controller'],
  ['ttl', 'ttl-controller'],
  ['ttl-after-finished', 'ttl-after-finished-controller'],
]);

const KNOWN = new Set(KNOWN_CONTROLLERS);

/** The current name of a controller given by its name or alias; undefined when it is not one. */
export function canonicalController(name: string): string | undefined {
  if (KNOWN.has(name)) return name;
  return CONTROLLER_ALIASES.get(name);
}

/**
 * Checks a `Controllers` list and rewrites aliases to current names (a `-` prefix kept). Problems name the
 * item's index under `path`.
 */
export function normalizeControllerList(items: readonly string[], path: string, problems: string[]): string[] {
  return items.map((item, i) => {
    if (item === '*') return item;
    const off = item.startsWith('-');
    const name = canonicalController(off ? item.slice(1) : item);
    if (name === undefined) {
      problems.push(`${path}[${i}]: Invalid value: ${JSON.stringify(item)}: "${off ? item.slice(1) : item}" is not a known controller; use "*", a controller name or "-" and a name`);
      return item;
    }
    return off ? `-${name}` : name;
  });
}

/**
 * Whether a controller runs under a (normalized) list: the first item naming it decides (`name` on, `-name`
 * off); otherwise `*` turns on every controller that is not off by default.
 */
export function isControllerEnabled(list: readonly string[], name: string): boolean {
  let star = false;
  for (const item of list) {
    if (item === name) return true;
    if (item === `-${name}`) return false;
    if (item === '*') star = true;
  }
  return star && !DISABLED_BY_DEFAULT.has(name);
}
