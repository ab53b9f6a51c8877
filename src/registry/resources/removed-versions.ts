/**
 * API versions the reference stopped serving in releases 1.16 to 1.32 (spec 9.6), as data: `--runtime-config`
 * refuses to enable them and says what to use instead.
 */
import { GROUP_SUFFIX } from '../../api/naming.js';

/** The release this server implements; removals after it have not happened yet. */
export const SERVED_RELEASE = { major: 1, minor: 31 } as const;

export interface RemovedResource {
  plural: string;
  kind: string;
  /** What replaces it, when not the same kind in the entry's `replacement` group/version. */
  use?: string;
}

/** Resources of one group/version that one release stopped serving. */
export interface RemovedApi {
  group: string;
  version: string;
  /** `1.<minor>` */
  removedIn: string;
  /** The group/version holding the replacement kinds. */
  replacement: string;
  resources: readonly RemovedResource[];
}

const S = GROUP_SUFFIX;
const FLOWCONTROL = `flowcontrol.apiserver.${S}`;
const flowcontrolKinds = [
  { plural: 'flowschemas', kind: 'FlowSchema' },
  { plural: 'prioritylevelconfigurations', kind: 'PriorityLevelConfiguration' },
];
const webhookKinds = [
  { plural: 'mutatingwebhookconfigurations', kind: 'MutatingWebhookConfiguration' },
  { plural: 'validatingwebhookconfigurations', kind: 'ValidatingWebhookConfiguration' },
];
const accessReviewKinds = [
  { plural: 'localsubjectaccessreviews', kind: 'LocalSubjectAccessReview' },
  { plural: 'selfsubjectaccessreviews', kind: 'SelfSubjectAccessReview' },
  { plural: 'selfsubjectrulesreviews', kind: 'SelfSubjectRulesReview' },
  { plural: 'subjectaccessreviews', kind: 'SubjectAccessReview' },
];
const rbacKinds = [
  { plural: 'clusterrolebindings', kind: 'ClusterRoleBinding' },
  { plural: 'clusterroles', kind: 'ClusterRole' },
  { plural: 'rolebindings', kind: 'RoleBinding' },
  { plural: 'roles', kind: 'Role' },
];
const storage122Kinds = [
  { plural: 'csidrivers', kind: 'CSIDriver' },
  { plural: 'csinodes', kind: 'CSINode' },
  { plural: 'storageclasses', kind: 'StorageClass' },
  { plural: 'volumeattachments', kind: 'VolumeAttachment' },
];
const hpa = [{ plural: 'horizontalpodautoscalers', kind: 'HorizontalPodAutoscaler' }];
const controllerRevision = { plural: 'controllerrevisions', kind: 'ControllerRevision' };
const daemonSet = { plural: 'daemonsets', kind: 'DaemonSet' };
const deployment = { plural: 'deployments', kind: 'Deployment' };
const replicaSet = { plural: 'replicasets', kind: 'ReplicaSet' };
const statefulSet = { plural: 'statefulsets', kind: 'StatefulSet' };

export const REMOVED_APIS: readonly RemovedApi[] = [
  { group: FLOWCONTROL, version: 'v1beta3', removedIn: '1.32', replacement: `${FLOWCONTROL}/v1`, resources: flowcontrolKinds },
  { group: FLOWCONTROL, version: 'v1beta2', removedIn: '1.29', replacement: `${FLOWCONTROL}/v1`, resources: flowcontrolKinds },
  {
    group: `storage.${S}`, version: 'v1beta1', removedIn: '1.27', replacement: `storage.${S}/v1`,
    resources: [{ plural: 'csistoragecapacities', kind: 'CSIStorageCapacity' }],
  },
  { group: FLOWCONTROL, version: 'v1beta1', removedIn: '1.26', replacement: `${FLOWCONTROL}/v1`, resources: flowcontrolKinds },
  { group: 'autoscaling', version: 'v2beta2', removedIn: '1.26', replacement: 'autoscaling/v2', resources: hpa },
  { group: 'batch', version: 'v1beta1', removedIn: '1.25', replacement: 'batch/v1', resources: [{ plural: 'cronjobs', kind: 'CronJob' }] },
  { group: `discovery.${S}`, version: 'v1beta1', removedIn: '1.25', replacement: `discovery.${S}/v1`, resources: [{ plural: 'endpointslices', kind: 'EndpointSlice' }] },
  { group: `events.${S}`, version: 'v1beta1', removedIn: '1.25', replacement: `events.${S}/v1`, resources: [{ plural: 'events', kind: 'Event' }] },
  { group: 'autoscaling', version: 'v2beta1', removedIn: '1.25', replacement: 'autoscaling/v2', resources: hpa },
  {
    group: 'policy', version: 'v1beta1', removedIn: '1.25', replacement: 'policy/v1',
    resources: [
      { plural: 'poddisruptionbudgets', kind: 'PodDisruptionBudget' },
      { plural: 'podsecuritypolicies', kind: 'PodSecurityPolicy', use: 'pod security admission or an admission webhook' },
    ],
  },
  { group: `node.${S}`, version: 'v1beta1', removedIn: '1.25', replacement: `node.${S}/v1`, resources: [{ plural: 'runtimeclasses', kind: 'RuntimeClass' }] },
  { group: `admissionregistration.${S}`, version: 'v1beta1', removedIn: '1.22', replacement: `admissionregistration.${S}/v1`, resources: webhookKinds },
  {
    group: `apiextensions.${S}`, version: 'v1beta1', removedIn: '1.22', replacement: `apiextensions.${S}/v1`,
    resources: [{ plural: 'customresourcedefinitions', kind: 'CustomResourceDefinition' }],
  },
  { group: `apiregistration.${S}`, version: 'v1beta1', removedIn: '1.22', replacement: `apiregistration.${S}/v1`, resources: [{ plural: 'apiservices', kind: 'APIService' }] },
  { group: `authentication.${S}`, version: 'v1beta1', removedIn: '1.22', replacement: `authentication.${S}/v1`, resources: [{ plural: 'tokenreviews', kind: 'TokenReview' }] },
  { group: `authorization.${S}`, version: 'v1beta1', removedIn: '1.22', replacement: `authorization.${S}/v1`, resources: accessReviewKinds },
  {
    group: `certificates.${S}`, version: 'v1beta1', removedIn: '1.22', replacement: `certificates.${S}/v1`,
    resources: [{ plural: 'certificatesigningrequests', kind: 'CertificateSigningRequest' }],
  },
  { group: `coordination.${S}`, version: 'v1beta1', removedIn: '1.22', replacement: `coordination.${S}/v1`, resources: [{ plural: 'leases', kind: 'Lease' }] },
  { group: 'extensions', version: 'v1beta1', removedIn: '1.22', replacement: `networking.${S}/v1`, resources: [{ plural: 'ingresses', kind: 'Ingress' }] },
  {
    group: `networking.${S}`, version: 'v1beta1', removedIn: '1.22', replacement: `networking.${S}/v1`,
    resources: [{ plural: 'ingressclasses', kind: 'IngressClass' }, { plural: 'ingresses', kind: 'Ingress' }],
  },
  { group: `rbac.authorization.${S}`, version: 'v1beta1', removedIn: '1.22', replacement: `rbac.authorization.${S}/v1`, resources: rbacKinds },
  { group: `scheduling.${S}`, version: 'v1beta1', removedIn: '1.22', replacement: `scheduling.${S}/v1`, resources: [{ plural: 'priorityclasses', kind: 'PriorityClass' }] },
  { group: `storage.${S}`, version: 'v1beta1', removedIn: '1.22', replacement: `storage.${S}/v1`, resources: storage122Kinds },
  {
    group: 'extensions', version: 'v1beta1', removedIn: '1.16', replacement: 'apps/v1',
    resources: [
      daemonSet, deployment, replicaSet,
      { plural: 'networkpolicies', kind: 'NetworkPolicy', use: `networking.${S}/v1 NetworkPolicy` },
      { plural: 'podsecuritypolicies', kind: 'PodSecurityPolicy', use: 'policy/v1beta1 PodSecurityPolicy' },
    ],
  },
  { group: 'apps', version: 'v1beta1', removedIn: '1.16', replacement: 'apps/v1', resources: [controllerRevision, deployment, statefulSet] },
  { group: 'apps', version: 'v1beta2', removedIn: '1.16', replacement: 'apps/v1', resources: [controllerRevision, daemonSet, deployment, replicaSet, statefulSet] },
];

const minorOf = (release: string): number => Number(release.split('.')[1]);

/** Removals that have happened by the served release, for one group/version (and one resource, if given). */
export function removalsOf(group: string, version: string, plural?: string): RemovedApi[] {
  return REMOVED_APIS.filter(
    (r) =>
      r.group === group &&
      r.version === version &&
      minorOf(r.removedIn) <= SERVED_RELEASE.minor &&
      (plural === undefined || r.resources.some((x) => x.plural === plural)),
  );
}

const gvText = (group: string, version: string) => (group === '' ? version : `${group}/${version}`);

function useText(entry: RemovedApi, r: RemovedResource): string {
  return `${r.kind}: use ${r.use ?? `${entry.replacement} ${r.kind}`}`;
}

/**
 * Why `group/version` (or one resource of it) cannot be served, naming the release(s) that removed it and
 * the replacements; undefined when nothing was removed there.
 */
export function removalMessage(group: string, version: string, plural?: string): string | undefined {
  const entries = removalsOf(group, version, plural);
  if (entries.length === 0) return undefined;
  const target = plural === undefined ? gvText(group, version) : `${gvText(group, version)}/${plural}`;
  const parts = entries.map((e) => {
    const resources = plural === undefined ? e.resources : e.resources.filter((r) => r.plural === plural);
    return `release ${e.removedIn} (${resources.map((r) => useText(e, r)).join('; ')})`;
  });
  return `${target} was removed in ${parts.join(' and ')}`;
}
