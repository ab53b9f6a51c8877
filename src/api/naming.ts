/**
 * Every identifier that carries the maker token lives here (architecture rule 5). No other file spells them.
 */

/**
 * The two namings (issue 21): the spec's (`orch`, the default) and the reference's (`k8s`), which existing
 * clients (kubectl's typed commands, client-node's typed APIs) are written against.
 */
export type Naming = 'orch' | 'k8s';
export const NAMINGS: readonly Naming[] = ['orch', 'k8s'];

/**
 * The spellings of each naming; every constant below is built from one row. The reference spells its API
 * groups under one domain and its labels, annotations, taints, finalizers, secret types and signers under
 * another; the spec uses one domain for both.
 */
const SPELLINGS = {
  orch: {
    groups: 'orch.io', labels: 'orch.io', component: 'orch', kindPrefix: 'Orch', headerToken: 'Orch', mediaToken: 'orch',
    envPrefix: 'ORCH', encPrefix: 'orch', finalizer: 'orch', provider: 'orch', clientConfigEnv: 'ORCHCONFIG', clientConfigDir: '.orch',
  },
  k8s: {
    groups: 'k8s.io', labels: 'kubernetes.io', component: 'kube', kindPrefix: 'Kube', headerToken: 'Kubernetes', mediaToken: 'kubernetes',
    envPrefix: 'KUBERNETES', encPrefix: 'k8s', finalizer: 'kubernetes', provider: 'kubernetes', clientConfigEnv: 'KUBECONFIG', clientConfigDir: '.kube',
  },
} as const satisfies Record<Naming, Record<string, string>>;

// Replaced by esbuild's `define` in a server graph bundled for another naming (server/naming-bundle.ts);
// undeclared (so `typeof` is "undefined") everywhere else.
declare const __ORCH_NAMING__: string | undefined;
/** The naming of this module graph, fixed when it loads: one process can hold one graph per naming. */
export const NAMING: Naming = typeof __ORCH_NAMING__ === 'string' && __ORCH_NAMING__ === 'k8s' ? 'k8s' : 'orch';
const S = SPELLINGS[NAMING];

/** Domain of the API groups (`<name>.<GROUP_SUFFIX>`), and of the few annotations the reference keys by it. */
export const GROUP_SUFFIX: string = S.groups;
/** Domain of labels, annotations, taints, finalizers, secret types, signer names and native resource names. */
export const LABEL_DOMAIN: string = S.labels;
/** Domains (and their subdomains) reserved for the server's own keys: both, where they differ. */
export const RESERVED_DOMAINS: readonly string[] = [...new Set([LABEL_DOMAIN, GROUP_SUFFIX])];

/**
 * The generated tables (src/generated) are spelled in the spec's naming (`"<name>.orch.io"` inside JSON);
 * their modules pass their JSON text through this before parsing it, so that a graph of another naming gets
 * its own groups. Free in the spec's naming.
 */
export function respellGeneratedGroups(jsonText: string): string {
  if (GROUP_SUFFIX === SPELLINGS.orch.groups) return jsonText;
  return jsonText.replaceAll(`.${SPELLINGS.orch.groups}"`, `.${GROUP_SUFFIX}"`);
}

export const PROTOBUF_MEDIA_TYPE = `application/vnd.${S.mediaToken}.protobuf`;
export const META_GROUP = `meta.${GROUP_SUFFIX}`;

export const SYSTEM_NAMESPACE = `${S.component}-system`;
export const PUBLIC_NAMESPACE = `${S.component}-public`;
export const DEFAULT_NAMESPACE = 'default';

export const RBAC_GROUP = `rbac.authorization.${GROUP_SUFFIX}`;
export const AUTHENTICATION_GROUP = `authentication.${GROUP_SUFFIX}`;
export const AUTHORIZATION_GROUP = `authorization.${GROUP_SUFFIX}`;
export const COORDINATION_GROUP = `coordination.${GROUP_SUFFIX}`;
export const EVENTS_GROUP = `events.${GROUP_SUFFIX}`;
export const NETWORKING_GROUP = `networking.${GROUP_SUFFIX}`;
export const DISCOVERY_GROUP = `discovery.${GROUP_SUFFIX}`;
export const STORAGE_GROUP = `storage.${GROUP_SUFFIX}`;
export const NODE_GROUP = `node.${GROUP_SUFFIX}`;
export const SCHEDULING_GROUP = `scheduling.${GROUP_SUFFIX}`;
export const CERTIFICATES_GROUP = `certificates.${GROUP_SUFFIX}`;

/** Finalizer the namespace lifecycle puts on every namespace (`spec.finalizers`). */
export const NAMESPACE_FINALIZER: string = S.finalizer;

/** Deletion propagation's finalizers (spec 3.1, reference names; no domain, so one spelling for every naming). */
export const ORPHAN_FINALIZER = 'orphan';
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

export const EXEC_INFO_ENV = `${S.envPrefix}_EXEC_INFO`;
/** Group of the `ExecCredential` exchanged with client credential plugins (spec 2.10). */
export const CLIENT_AUTHENTICATION_GROUP = `client.authentication.${GROUP_SUFFIX}`;
/** Cluster extension whose value reaches an exec plugin as `spec.cluster.config`. */
export const EXEC_CLUSTER_EXTENSION = `${CLIENT_AUTHENTICATION_GROUP}/exec`;
/** Client configuration: the environment variable listing kubeconfig files, and the default `~/<dir>/<file>`. */
export const CLIENT_CONFIG_ENV: string = S.clientConfigEnv;
export const CLIENT_CONFIG_HOME_DIR: string = S.clientConfigDir;
export const CLIENT_CONFIG_FILE_NAME = 'config';

/** Annotation on the BOOKMARK that ends the initial events of a watch list. */
export const INITIAL_EVENTS_END_ANNOTATION = `${GROUP_SUFFIX}/initial-events-end`;
export const BOOTSTRAPPING_LABEL = `${LABEL_DOMAIN}/bootstrapping`;
export const RBAC_AUTOUPDATE_ANNOTATION = `rbac.authorization.${LABEL_DOMAIN}/autoupdate`;
/** On the bootstrap flow-control objects: the server keeps their spec at the built-in value unless "false". */
export const APF_AUTOUPDATE_ANNOTATION = `apf.${LABEL_DOMAIN}/autoupdate-spec`;
/** Lets a flowcontrol v1beta3 client round-trip a stored `nominalConcurrencyShares: 0` (spec 9.6). */
export const FLOWCONTROL_PRESERVE_ZERO_SHARES_ANNOTATION = `flowcontrol.${GROUP_SUFFIX}/v1beta3-preserve-zero-concurrency-shares`;

/** Prefix of the labels the Job selector generation puts on pod templates (`<prefix>controller-uid`, `<prefix>job-name`). */
export const BATCH_LABEL_PREFIX = `batch.${LABEL_DOMAIN}/`;
/** Prefix of the annotations autoscaling/v1 uses to carry v2-only HorizontalPodAutoscaler data. */
export const AUTOSCALING_ALPHA_PREFIX = `autoscaling.alpha.${LABEL_DOMAIN}/`;

/** The label every namespace carries with its own name. */
export const NAMESPACE_NAME_LABEL = `${LABEL_DOMAIN}/metadata.name`;

/** The beta annotation that named a volume's or claim's storage class before `spec.storageClassName`. */
export const BETA_STORAGE_CLASS_ANNOTATION = `volume.beta.${LABEL_DOMAIN}/storage-class`;
/** Marks the API mirror of a static pod (one the node agent runs from a file). */
export const MIRROR_POD_ANNOTATION = `${LABEL_DOMAIN}/config.mirror`;

/** The maker's short name (`orch`), for identifiers the reference spells with `kube-`. */
const MAKER: string = S.component;
/** This package's npm name (its package.json `name`), which /version reads its build facts from: not a spelling. */
export const PACKAGE_NAME = SPELLINGS.orch.component;
/** Where the ServiceAccount admission plugin mounts a pod's API credentials in every container. */
export const SA_TOKEN_MOUNT_PATH = `/var/run/secrets/${LABEL_DOMAIN}/serviceaccount`;
/** Name prefix of the projected volume carrying those credentials (a random 5-character suffix follows). */
export const SA_TOKEN_VOLUME_PREFIX = `${MAKER}-api-access-`;
/** The ConfigMap in every namespace that holds the cluster's CA bundle under `ca.crt`. */
export const ROOT_CA_CONFIGMAP = `${MAKER}-root-ca.crt`;
/** Annotation saying what an object the system keeps is for (on the root CA ConfigMap, among others). */
export const DESCRIPTION_ANNOTATION = `${LABEL_DOMAIN}/description`;
/** On a ServiceAccount: "true" limits its pods to the secrets the account lists. */
export const ENFORCE_MOUNTABLE_SECRETS_ANNOTATION = `${LABEL_DOMAIN}/enforce-mountable-secrets`;
/** Taints the node lifecycle puts on nodes that are not ready or not reachable. */
export const TAINT_NODE_NOT_READY = `node.${LABEL_DOMAIN}/not-ready`;
export const TAINT_NODE_UNREACHABLE = `node.${LABEL_DOMAIN}/unreachable`;
/** Taint of a node short of memory; PodTolerationRestriction lets pods that are not BestEffort tolerate it. */
export const TAINT_NODE_MEMORY_PRESSURE = `node.${LABEL_DOMAIN}/memory-pressure`;
/** The node label holding its host name: the one topology key LimitPodHardAntiAffinityTopology allows. */
export const LABEL_HOSTNAME = `${LABEL_DOMAIN}/hostname`;
/** Namespace annotation (PodNodeSelector): the node selector every pod in the namespace gets. */
export const NAMESPACE_NODE_SELECTOR_ANNOTATION = `scheduler.alpha.${LABEL_DOMAIN}/node-selector`;
/** Namespace annotations (PodTolerationRestriction): JSON lists of default and of allowed tolerations. */
export const NAMESPACE_DEFAULT_TOLERATIONS_ANNOTATION = `scheduler.alpha.${LABEL_DOMAIN}/defaultTolerations`;
export const NAMESPACE_TOLERATIONS_WHITELIST_ANNOTATION = `scheduler.alpha.${LABEL_DOMAIN}/tolerationsWhitelist`;
/** Group of PodTolerationRestriction's `Configuration` document. */
export const POD_TOLERATION_RESTRICTION_CONFIG_GROUP = `podtolerationrestriction.admission.${GROUP_SUFFIX}`;

/**
 * OpenAPI vendor extensions that existing clients (kubectl explain, client-side apply) look for by their
 * exact names; renaming them would break those clients, so they keep the reference spelling.
 */
export const OPENAPI_GVK_EXTENSION = 'x-kubernetes-group-version-kind';
export const OPENAPI_PATCH_MERGE_KEY = 'x-kubernetes-patch-merge-key';
export const OPENAPI_PATCH_STRATEGY = 'x-kubernetes-patch-strategy';
export const OPENAPI_LIST_TYPE = 'x-kubernetes-list-type';
export const OPENAPI_LIST_MAP_KEYS = 'x-kubernetes-list-map-keys';
export const OPENAPI_MAP_TYPE = 'x-kubernetes-map-type';

/** Issuer of service account tokens unless `--service-account-issuer` says otherwise. */
export const DEFAULT_SA_ISSUER = `https://${MAKER}-apiserver.${SYSTEM_NAMESPACE}.svc`;

/**
 * The reference's own meta group. Real kubectl asks for tables only as `as=Table;g=meta.k8s.io`; orch also
 * answers that form (echoing the group it was asked for) so that kubectl shows the server's columns. The
 * canonical form of spec 2.6 is META_GROUP.
 */
export const REFERENCE_META_GROUP_ALIAS = `meta.${SPELLINGS.k8s.groups}`;

/**
 * The reference's spelling of the authentication group. Real kubectl posts TokenRequests (on a core-group
 * path) in this version and decodes only the version it knows, so the answer echoes the group it was sent.
 */
export const REFERENCE_AUTHENTICATION_GROUP_ALIAS = `authentication.${SPELLINGS.k8s.groups}`;

/** `provider` label of the `kubernetes` Service in `default` (the reference labels it with its own name). */
export const API_SERVICE_PROVIDER: string = S.provider;

/** AdmissionReview's group (spec 2.11) and the group of the objects that configure admission. */
export const ADMISSION_GROUP = `admission.${GROUP_SUFFIX}`;
/** Group of the audit `Event`, `EventList` and `Policy` documents (spec 2.11). */
export const AUDIT_GROUP = `audit.${GROUP_SUFFIX}`;
/** Audit annotations of every audited request: the authorization decision (allow|forbid) and its reason. */
export const AUDIT_AUTHZ_DECISION_ANNOTATION = `authorization.${GROUP_SUFFIX}/decision`;
export const AUDIT_AUTHZ_REASON_ANNOTATION = `authorization.${GROUP_SUFFIX}/reason`;
/** Audit annotations of a request to a deprecated API (spec 7), and the release that removes it. */
export const AUDIT_DEPRECATED_ANNOTATION = `${GROUP_SUFFIX}/deprecated`;
export const AUDIT_REMOVED_RELEASE_ANNOTATION = `${GROUP_SUFFIX}/removed-release`;
export const ADMISSIONREGISTRATION_GROUP = `admissionregistration.${GROUP_SUFFIX}`;
/** Group of CustomResourceDefinition. */
export const APIEXTENSIONS_GROUP = `apiextensions.${GROUP_SUFFIX}`;
/** Finalizer of a CRD: its custom resources are all deleted before the CRD leaves storage. */
export const CRD_CLEANUP_FINALIZER = `customresourcecleanup.${APIEXTENSIONS_GROUP}`;
/** On a CRD of a protected group (the maker's own domain): where its API was approved, or `unapproved...`. */
export const API_APPROVED_ANNOTATION = `api-approved.${GROUP_SUFFIX}`;
/**
 * Audit annotation key prefixes of admission webhooks: which webhook changed the object, and which one
 * failed while its failurePolicy let the request through (`<prefix>/round_<n>_index_<i>`).
 */
export const WEBHOOK_MUTATION_ANNOTATION_PREFIX = `mutation.webhook.admission.${GROUP_SUFFIX}`;
export const WEBHOOK_FAILED_OPEN_MUTATING_PREFIX = `failed-open.mutation.webhook.admission.${GROUP_SUFFIX}`;
export const WEBHOOK_FAILED_OPEN_VALIDATING_PREFIX = `failed-open.validating.webhook.admission.${GROUP_SUFFIX}`;
/** Audit annotation under which ValidatingAdmissionPolicy bindings with the Audit action record failures. */
export const POLICY_VALIDATION_FAILURE_ANNOTATION = `validation.policy.admission.${GROUP_SUFFIX}/validation_failure`;

/** Group of the `AdmissionConfiguration` document (`--admission-control-config-file`, spec 2.12). */
export const ADMISSION_CONFIG_GROUP = `apiserver.config.${GROUP_SUFFIX}`;
/** Group of the `AuthorizationConfiguration` document (`--authorization-config`, spec 5.7 item 6). */
export const AUTHORIZATION_CONFIG_GROUP = `apiserver.config.${GROUP_SUFFIX}`;
/** Group of the `AuthenticationConfiguration` document (`--authentication-config`, spec 5.5). */
export const AUTHENTICATION_CONFIG_GROUP = `apiserver.config.${GROUP_SUFFIX}`;
/** The older group the reference also reads that document in (v1alpha1 only). */
export const ADMISSION_CONFIG_LEGACY_GROUP = `apiserver.${GROUP_SUFFIX}`;
/** Group of the `EgressSelectorConfiguration` document (spec 2.12); TracingConfiguration is in TRACING_CONFIG_GROUP. */
export const APISERVER_GROUP = `apiserver.${GROUP_SUFFIX}`;

/** The built-in signer of client certificates the API server trusts (CertificateSubjectRestriction guards it). */
export const KUBE_APISERVER_CLIENT_SIGNER = `${LABEL_DOMAIN}/kube-apiserver-client`;
/** The signer of requests made through the removed v1beta1 API; certificates/v1 refuses it. */
export const LEGACY_UNKNOWN_SIGNER = `${LABEL_DOMAIN}/legacy-unknown`;
/** Built-in signers of node agents' client certificates and of their serving certificates. */
export const KUBE_APISERVER_CLIENT_KUBELET_SIGNER = `${LABEL_DOMAIN}/kube-apiserver-client-kubelet`;
export const KUBELET_SERVING_SIGNER = `${LABEL_DOMAIN}/kubelet-serving`;
/** Secret type of bootstrap tokens (spec 2.9). */
export const BOOTSTRAP_TOKEN_SECRET_TYPE = `bootstrap.${LABEL_DOMAIN}/token`;
/** Taint marking a node out of service: pod GC force-deletes the terminating pods left on it. */
export const TAINT_NODE_OUT_OF_SERVICE = `node.${LABEL_DOMAIN}/out-of-service`;

/** Namespace labels of pod security admission: `<prefix>enforce`, `<prefix>audit-version`, ... */
export const POD_SECURITY_LABEL_PREFIX = `pod-security.${LABEL_DOMAIN}/`;
/** Group of the PodSecurity plugin's configuration document (`PodSecurityConfiguration`). */
export const POD_SECURITY_CONFIG_GROUP = `pod-security.admission.config.${GROUP_SUFFIX}`;
/** Legacy AppArmor annotation prefix on pods: `<prefix><container name>`. */
export const APPARMOR_CONTAINER_ANNOTATION_PREFIX = `container.apparmor.security.beta.${LABEL_DOMAIN}/`;

/** Group of EventRateLimit's `Configuration` document (spec 2.12). */
export const EVENT_RATE_LIMIT_CONFIG_GROUP = `eventratelimit.admission.${GROUP_SUFFIX}`;
/** Group of the `ImageReview` the ImagePolicyWebhook plugin sends (spec 2.11). */
export const IMAGE_POLICY_GROUP = `imagepolicy.${GROUP_SUFFIX}`;
/** Pod annotations whose key contains this (`*.image-policy.orch.io/*`) travel in an ImageReview. */
export const IMAGE_POLICY_ANNOTATION_MARK = `.image-policy.${GROUP_SUFFIX}/`;
/** Prefix of the audit annotations ImagePolicyWebhook records (`failed-open`, and the backend's own keys). */
export const IMAGE_POLICY_AUDIT_PREFIX = `imagepolicywebhook.image-policy.${GROUP_SUFFIX}/`;

/** Set by LimitRanger on a pod whose containers it gave default requests or limits, saying which. */
export const LIMIT_RANGER_ANNOTATION = `${LABEL_DOMAIN}/limit-ranger`;
/** `"true"` on the StorageClass that claims without a class get (the beta spelling is still honoured). */
export const DEFAULT_STORAGE_CLASS_ANNOTATION = `storageclass.${LABEL_DOMAIN}/is-default-class`;
export const BETA_DEFAULT_STORAGE_CLASS_ANNOTATION = `storageclass.beta.${LABEL_DOMAIN}/is-default-class`;
/** `"true"` on the IngressClass that ingresses without a class get. */
export const DEFAULT_INGRESS_CLASS_ANNOTATION = `ingressclass.${LABEL_DOMAIN}/is-default-class`;
/** The deprecated annotation that named an ingress's class before `spec.ingressClassName`. */
export const LEGACY_INGRESS_CLASS_ANNOTATION = `${LABEL_DOMAIN}/ingress.class`;
/** Legacy seccomp annotations on pods (policy versions before 1.19 check them). */
export const SECCOMP_POD_ANNOTATION = `seccomp.security.alpha.${LABEL_DOMAIN}/pod`;
export const SECCOMP_CONTAINER_ANNOTATION_PREFIX = `container.seccomp.security.alpha.${LABEL_DOMAIN}/`;

/** Finalizers StorageObjectInUseProtection puts on new claims and volumes, so in-use storage is not removed. */
export const PVC_PROTECTION_FINALIZER = `${LABEL_DOMAIN}/pvc-protection`;
export const PV_PROTECTION_FINALIZER = `${LABEL_DOMAIN}/pv-protection`;
/** Group of ResourceQuota's `Configuration` document (`limitedResources`). */
export const RESOURCE_QUOTA_CONFIG_GROUP = `resourcequota.admission.${GROUP_SUFFIX}`;

/** Namespace holding each node's heartbeat Lease (named after the node). */
export const NODE_LEASE_NAMESPACE = `${MAKER}-node-lease`;
/** Group of the versioned ABAC policy line (`--authorization-policy-file`). */
export const ABAC_GROUP = `abac.authorization.${LABEL_DOMAIN}`;
/** Group of dynamic resource allocation (ResourceClaims a node may read for its pods). */
export const RESOURCE_GROUP = `resource.${GROUP_SUFFIX}`;
/** Label domain reserved for labels that nodes may not set on themselves (NodeRestriction). */
export const NODE_RESTRICTION_LABEL_DOMAIN = `node-restriction.${LABEL_DOMAIN}`;
/** Labels under the maker's domains that a node may set on its own Node object (NodeRestriction). */
export const KUBELET_LABELS: readonly string[] = [
  `${LABEL_DOMAIN}/hostname`,
  `topology.${LABEL_DOMAIN}/zone`,
  `topology.${LABEL_DOMAIN}/region`,
  `failure-domain.beta.${LABEL_DOMAIN}/zone`,
  `failure-domain.beta.${LABEL_DOMAIN}/region`,
  `beta.${LABEL_DOMAIN}/instance-type`,
  `node.${LABEL_DOMAIN}/instance-type`,
  `${LABEL_DOMAIN}/os`,
  `${LABEL_DOMAIN}/arch`,
  `beta.${LABEL_DOMAIN}/os`,
  `beta.${LABEL_DOMAIN}/arch`,
];
/** Label domains (and their subdomains) a node may set labels in on its own Node object. */
export const KUBELET_LABEL_DOMAINS: readonly string[] = [`kubelet.${LABEL_DOMAIN}`, `node.${LABEL_DOMAIN}`];

/** Group of the `TracingConfiguration` document (`--tracing-config-file`, spec 2.12). */
export const TRACING_CONFIG_GROUP = `apiserver.config.${GROUP_SUFFIX}`;
/** Group of the `EncryptionConfiguration` document (`--encryption-provider-config`, spec 2.12). */
export const ENCRYPTION_CONFIG_GROUP = `apiserver.config.${GROUP_SUFFIX}`;
/** Every value encrypted at rest starts with this (`<prefix><provider>:v1:<key name>:`). */
export const ENCRYPTED_VALUE_PREFIX = `${S.encPrefix}:enc:`;
/** Response headers of priority and fairness: the UIDs of the FlowSchema and priority level a request got. */
export const APF_FLOWSCHEMA_UID_HEADER = `X-${S.headerToken}-PF-FlowSchema-UID`;
export const APF_PRIORITY_LEVEL_UID_HEADER = `X-${S.headerToken}-PF-PriorityLevel-UID`;
/** Prefix of the component configuration kinds (`<prefix>SchedulerConfiguration`, ...). */
const MAKER_TITLE: string = S.kindPrefix;
/** Group and kind of the network proxy's configuration document (spec 2.12). */
export const PROXY_CONFIG_GROUP = `${MAKER}proxy.config.${GROUP_SUFFIX}`;
export const PROXY_CONFIG_KIND = `${MAKER_TITLE}ProxyConfiguration`;
/** Group and kind of the controller manager's configuration document (spec 2.12). */
export const CONTROLLER_MANAGER_CONFIG_GROUP = `${MAKER}controllermanager.config.${GROUP_SUFFIX}`;
export const CONTROLLER_MANAGER_CONFIG_KIND = `${MAKER_TITLE}ControllerManagerConfiguration`;
/** The controller manager's leader-election lock name (in SYSTEM_NAMESPACE). */
export const CONTROLLER_MANAGER_LEASE_NAME = `${MAKER}-controller-manager`;
/** The controller manager's user (and its default ClusterRole and binding): the reference's `system:kube-controller-manager`. */
export const CONTROLLER_MANAGER_USER = `system:${MAKER}-controller-manager`;
/** Group and kind of the scheduler's configuration document (spec 2.12), and its leader-election lock name. */
export const SCHEDULER_CONFIG_GROUP = `${MAKER}scheduler.config.${GROUP_SUFFIX}`;
export const SCHEDULER_CONFIG_KIND = `${MAKER_TITLE}SchedulerConfiguration`;
export const SCHEDULER_LEASE_NAME = `${MAKER}-scheduler`;
/** The command-line client's name as a field manager prefix (`orchctl-create`, ...) and annotation domain label. */
export const CLI_FIELD_MANAGER = `${MAKER}ctl`;
/** Where client-side apply keeps the configuration it applied last (the three-way patch's original). */
export const LAST_APPLIED_ANNOTATION = `${CLI_FIELD_MANAGER}.${LABEL_DOMAIN}/last-applied-configuration`;
/** The environment variable naming the editor of `edit`, looked at before `EDITOR`. */
export const CLI_EDITOR_ENV = `${MAKER.toUpperCase()}_EDITOR`;
