/**
 * The admission plugins by name: the reference 1.31 server's fixed order, its default set, the ones orch
 * implements, and the enabled list that `--enable-admission-plugins` / `--disable-admission-plugins` give.
 */
import { alwaysAdmitPlugin, alwaysDenyPlugin } from './plugins/always.js';
import { certificateApprovalPlugin, certificateSigningPlugin, certificateSubjectRestrictionPlugin } from './plugins/certificates.js';
import { namespaceLifecyclePlugin } from './plugins/namespace-lifecycle.js';
import { podSecurityPlugin } from './plugins/pod-security/plugin.js';
import { priorityPlugin } from './plugins/priority.js';
import { eventRateLimitPlugin } from './plugins/event-rate-limit.js';
import { imagePolicyWebhookPlugin } from './plugins/image-policy.js';
import { alwaysPullImagesPlugin } from './plugins/always-pull-images.js';
import { defaultTolerationSecondsPlugin } from './plugins/default-toleration-seconds.js';
import { runtimeClassPlugin } from './plugins/runtime-class.js';
import { serviceAccountPlugin } from './plugins/service-account.js';
import { limitRangerPlugin } from './plugins/limit-ranger.js';
import { defaultIngressClassPlugin, defaultStorageClassPlugin } from './plugins/default-class.js';
import { resourceQuotaPlugin } from './plugins/resource-quota.js';
import { storageObjectInUseProtectionPlugin } from './plugins/storage-protection.js';
import { persistentVolumeClaimResizePlugin } from './plugins/pvc-resize.js';
import { ownerReferencesPermissionEnforcementPlugin } from './plugins/owner-references.js';
import { clusterTrustBundleAttestPlugin } from './plugins/ctb-attest.js';
import { namespaceExistsPlugin } from './plugins/namespace-exists.js';
import { namespaceAutoProvisionPlugin } from './plugins/namespace-autoprovision.js';
import { limitPodHardAntiAffinityTopologyPlugin } from './plugins/anti-affinity-topology.js';
import { taintNodesByConditionPlugin } from './plugins/taint-nodes-by-condition.js';
import { podNodeSelectorPlugin } from './plugins/pod-node-selector.js';
import { podTolerationRestrictionPlugin } from './plugins/pod-toleration-restriction.js';
import { extendedResourceTolerationPlugin } from './plugins/extended-resource-toleration.js';
import { denyServiceExternalIPsPlugin } from './plugins/deny-service-external-ips.js';
import { nodeRestrictionPlugin } from './plugins/node-restriction.js';
import type { AdmissionPluginFactory } from './types.js';
import { validatingAdmissionPolicyPlugin } from './policy/index.js';
import { mutatingWebhookPlugin, validatingWebhookPlugin } from './webhook/index.js';

/** Every plugin name the reference 1.31 server knows, in the order the chain runs them. */
export const ORDERED_PLUGINS: readonly string[] = [
  'AlwaysAdmit',
  'NamespaceAutoProvision',
  'NamespaceLifecycle',
  'NamespaceExists',
  'LimitPodHardAntiAffinityTopology',
  'LimitRanger',
  'ServiceAccount',
  'NodeRestriction',
  'TaintNodesByCondition',
  'AlwaysPullImages',
  'ImagePolicyWebhook',
  'PodSecurity',
  'PodNodeSelector',
  'Priority',
  'DefaultTolerationSeconds',
  'PodTolerationRestriction',
  'EventRateLimit',
  'ExtendedResourceToleration',
  'DefaultStorageClass',
  'StorageObjectInUseProtection',
  'OwnerReferencesPermissionEnforcement',
  'PersistentVolumeClaimResize',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'ClusterTrustBundleAttest',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'DenyServiceExternalIPs',
  // Webhooks, policies, quota and deny always come last.
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
  'AlwaysDeny',
];

/** The reference 1.31 default set (what runs without either flag). */
export const DEFAULT_ON_PLUGINS: ReadonlySet<string> = new Set([
  'NamespaceLifecycle',
  'LimitRanger',
  'ServiceAccount',
  'DefaultStorageClass',
  'PersistentVolumeClaimResize',
  'DefaultTolerationSeconds',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
  'StorageObjectInUseProtection',
  'Priority',
  'TaintNodesByCondition',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'ClusterTrustBundleAttest',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'ValidatingAdmissionPolicy',
  'PodSecurity',
]);

/** The plugins orch implements, by reference name. */
export const PLUGIN_FACTORIES: ReadonlyMap<string, AdmissionPluginFactory> = new Map<string, AdmissionPluginFactory>([
  ['AlwaysAdmit', alwaysAdmitPlugin],
  ['NamespaceLifecycle', namespaceLifecyclePlugin],
  ['PodSecurity', podSecurityPlugin],
  ['Priority', priorityPlugin],
  ['EventRateLimit', eventRateLimitPlugin],
  ['ImagePolicyWebhook', imagePolicyWebhookPlugin],
  ['ServiceAccount', serviceAccountPlugin],
  ['NodeRestriction', nodeRestrictionPlugin],
  ['LimitRanger', limitRangerPlugin],
  ['DefaultStorageClass', defaultStorageClassPlugin],
  ['DefaultIngressClass', defaultIngressClassPlugin],
  ['AlwaysPullImages', alwaysPullImagesPlugin],
  ['DefaultTolerationSeconds', defaultTolerationSecondsPlugin],
  ['RuntimeClass', runtimeClassPlugin],
  ['CertificateApproval', certificateApprovalPlugin],
  ['CertificateSigning', certificateSigningPlugin],
  ['CertificateSubjectRestriction', certificateSubjectRestrictionPlugin],
  ['StorageObjectInUseProtection', storageObjectInUseProtectionPlugin],
  ['PersistentVolumeClaimResize', persistentVolumeClaimResizePlugin],
  ['OwnerReferencesPermissionEnforcement', ownerReferencesPermissionEnforcementPlugin],
  ['ClusterTrustBundleAttest', clusterTrustBundleAttestPlugin],
  ['NamespaceExists', namespaceExistsPlugin],
  ['NamespaceAutoProvision', namespaceAutoProvisionPlugin],
  ['LimitPodHardAntiAffinityTopology', limitPodHardAntiAffinityTopologyPlugin],
  ['TaintNodesByCondition', taintNodesByConditionPlugin],
  ['PodNodeSelector', podNodeSelectorPlugin],
  ['PodTolerationRestriction', podTolerationRestrictionPlugin],
  ['ExtendedResourceToleration', extendedResourceTolerationPlugin],
  ['DenyServiceExternalIPs', denyServiceExternalIPsPlugin],
  ['MutatingAdmissionWebhook', mutatingWebhookPlugin],
  ['ValidatingAdmissionPolicy', validatingAdmissionPolicyPlugin],
  ['ValidatingAdmissionWebhook', validatingWebhookPlugin],
  ['ResourceQuota', resourceQuotaPlugin],
  ['AlwaysDeny', alwaysDenyPlugin],
]);

const KNOWN: ReadonlySet<string> = new Set(ORDERED_PLUGINS);

/**
 * The enabled plugin names, in the fixed order: the default set plus `enable` minus `disable`. Throws an
 * Error naming the flag and the plugin for an unknown name or a name in both flags. Every name of the
 * reference's list has a factory (a test holds it so).
 */
export function resolvePlugins(enable: readonly string[] = [], disable: readonly string[] = []): string[] {
  for (const [flag, names] of [['--enable-admission-plugins', enable], ['--disable-admission-plugins', disable]] as const) {
    for (const n of names) if (!KNOWN.has(n)) throw new Error(`${flag}: plugin "${n}" is unknown`);
  }
  const both = [...new Set(enable.filter((n) => disable.includes(n)))].sort();
  if (both.length > 0) throw new Error(`[${both.join(' ')}] in enable-admission-plugins and disable-admission-plugins overlapped`);
  const wanted = new Set(enable);
  const off = new Set(disable);
  return ORDERED_PLUGINS.filter((n) => !off.has(n) && (wanted.has(n) || DEFAULT_ON_PLUGINS.has(n)));
}
