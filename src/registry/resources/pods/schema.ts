/** The Pod schema: PodSpec and PodStatus as the API reference names them, for `kubectl explain` and apply. */
import {
  anyObject,
  arrayOf,
  bool,
  int32,
  int64,
  mapList,
  mapOf,
  obj,
  objectSchema,
  quantity,
  str,
  stringMap,
  time,
} from '../../schema.js';
import {
  appArmorProfile,
  container,
  ephemeralContainer,
  resourceRequirements,
  seccompProfile,
  seLinuxOptions,
  windowsOptions,
} from './schema-container.js';
import { volumesList } from './schema-volume.js';

const toleration = obj(
  {
    key: str('Key is the taint key that the toleration applies to. Empty means match all taint keys.'),
    operator: str("Operator represents a key's relationship to the value. Valid operators are Exists and Equal. Defaults to Equal.", { enum: ['Equal', 'Exists'] }),
    value: str('Value is the taint value the toleration matches to.'),
    effect: str('Effect indicates the taint effect to match. Empty means match all taint effects.', { enum: ['NoExecute', 'NoSchedule', 'PreferNoSchedule'] }),
    tolerationSeconds: int64('TolerationSeconds represents the period of time the toleration (which must be of effect NoExecute) tolerates the taint.'),
  },
  'The pod this Toleration is attached to tolerates any taint that matches the triple <key,value,effect> using the matching operator <operator>.',
);

const podSecurityContext = obj(
  {
    seLinuxOptions,
    windowsOptions,
    runAsUser: int64('The UID to run the entrypoint of the container process.'),
    runAsGroup: int64('The GID to run the entrypoint of the container process.'),
    runAsNonRoot: bool('Indicates that the container must run as a non-root user.'),
    supplementalGroups: arrayOf(int64(), 'A list of groups applied to the first process run in each container.', { 'x-kubernetes-list-type': 'atomic' }),
    supplementalGroupsPolicy: str('Defines how supplemental groups of the first container processes are calculated.'),
    fsGroup: int64('A special supplemental group that applies to all containers in a pod.'),
    fsGroupChangePolicy: str('fsGroupChangePolicy defines behavior of changing ownership and permission of the volume before being exposed inside Pod.'),
    sysctls: arrayOf(obj({ name: str('Name of a property to set'), value: str('Value of a property to set') }, 'Sysctl defines a kernel parameter to be set', ['name', 'value']), 'Sysctls hold a list of namespaced sysctls used for the pod.', { 'x-kubernetes-list-type': 'atomic' }),
    seccompProfile,
    appArmorProfile,
    seLinuxChangePolicy: str('seLinuxChangePolicy defines how the container\'s SELinux label is applied to all volumes used by the Pod.'),
  },
  'SecurityContext holds pod-level security attributes and common container settings.',
);

const affinity = obj(
  {
    nodeAffinity: anyObject('Describes node affinity scheduling rules for the pod.'),
    podAffinity: anyObject('Describes pod affinity scheduling rules (e.g. co-locate this pod in the same node, zone, etc. as some other pod(s)).'),
    podAntiAffinity: anyObject('Describes pod anti-affinity scheduling rules (e.g. avoid putting this pod in the same node, zone, etc. as some other pod(s)).'),
  },
  "If specified, the pod's scheduling constraints",
);

const podSpec = obj(
  {
    volumes: volumesList,
    initContainers: mapList(container, 'name', 'List of initialization containers belonging to the pod. Init containers are executed in order prior to containers being started.'),
    containers: mapList(container, 'name', 'List of containers belonging to the pod. Containers cannot currently be added or removed. There must be at least one container in a Pod. Cannot be updated.'),
    ephemeralContainers: mapList(ephemeralContainer, 'name', 'List of ephemeral containers run in this pod. Ephemeral containers may be run in an existing pod to perform user-initiated actions such as debugging.'),
    restartPolicy: str('Restart policy for all containers within the pod. One of Always, OnFailure, Never. Default to Always.', { enum: ['Always', 'Never', 'OnFailure'] }),
    terminationGracePeriodSeconds: int64('Optional duration in seconds the pod needs to terminate gracefully. Defaults to 30 seconds.'),
    activeDeadlineSeconds: int64('Optional duration in seconds the pod may be active on the node relative to StartTime before the system will actively try to mark it failed and kill associated containers.'),
    dnsPolicy: str("Set DNS policy for the pod. Defaults to \"ClusterFirst\". Valid values are 'ClusterFirstWithHostNet', 'ClusterFirst', 'Default' or 'None'.", { enum: ['ClusterFirst', 'ClusterFirstWithHostNet', 'Default', 'None'] }),
    nodeSelector: { ...stringMap("NodeSelector is a selector which must be true for the pod to fit on a node."), 'x-kubernetes-map-type': 'atomic' },
    serviceAccountName: str('ServiceAccountName is the name of the ServiceAccount to use to run this pod.'),
    serviceAccount: str('DeprecatedServiceAccount is a deprecated alias for ServiceAccountName. Deprecated: Use serviceAccountName instead.'),
    automountServiceAccountToken: bool('AutomountServiceAccountToken indicates whether a service account token should be automatically mounted.'),
    nodeName: str('NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling by the scheduler defined in schedulerName.'),
    hostNetwork: bool("Host networking requested for this pod. Use the host's network namespace. Default to false."),
    hostPID: bool("Use the host's pid namespace. Optional: Default to false."),
    hostIPC: bool("Use the host's ipc namespace. Optional: Default to false."),
    shareProcessNamespace: bool('Share a single process namespace between all of the containers in a pod. Optional: Default to false.'),
    securityContext: podSecurityContext,
    imagePullSecrets: mapList(obj({ name: str('Name of the referent.') }, 'LocalObjectReference contains enough information to let you locate the referenced object inside the same namespace.'), 'name', 'ImagePullSecrets is an optional list of references to secrets in the same namespace to use for pulling any of the images used by this PodSpec.'),
    hostname: str("Specifies the hostname of the Pod. If not specified, the pod's hostname will be set to a system-defined value."),
    subdomain: str('If specified, the fully qualified Pod hostname will be "<hostname>.<subdomain>.<pod namespace>.svc.<cluster domain>".'),
    setHostnameAsFQDN: bool("If true the pod's hostname will be configured as the pod's FQDN, rather than the leaf name (the default)."),
    affinity,
    schedulerName: str('If specified, the pod will be dispatched by specified scheduler. If not specified, the pod will be dispatched by default scheduler.'),
    tolerations: arrayOf(toleration, "If specified, the pod's tolerations.", { 'x-kubernetes-list-type': 'atomic' }),
    hostAliases: mapList(obj({ ip: str('IP address of the host file entry.'), hostnames: arrayOf(str(), 'Hostnames for the above IP address.') }, 'HostAlias holds the mapping between IP and hostnames that will be injected as an entry in the pod\'s hosts file.', ['ip']), 'ip', "HostAliases is an optional list of hosts and IPs that will be injected into the pod's hosts file if specified."),
    priorityClassName: str('If specified, indicates the pod\'s priority. "system-node-critical" and "system-cluster-critical" are two special keywords.'),
    priority: int32('The priority value. Various system components use this field to find the priority of the pod.'),
    preemptionPolicy: str('PreemptionPolicy is the Policy for preempting pods with lower priority. One of Never, PreemptLowerPriority. Defaults to PreemptLowerPriority if unset.', { enum: ['Never', 'PreemptLowerPriority'] }),
    dnsConfig: obj(
      {
        nameservers: arrayOf(str(), 'A list of DNS name server IP addresses.', { 'x-kubernetes-list-type': 'atomic' }),
        searches: arrayOf(str(), 'A list of DNS search domains for host-name lookup.', { 'x-kubernetes-list-type': 'atomic' }),
        options: arrayOf(obj({ name: str('Name is this DNS resolver option\'s name. Required.'), value: str("Value is this DNS resolver option's value.") }, 'PodDNSConfigOption defines DNS resolver options of a pod.'), 'A list of DNS resolver options.', { 'x-kubernetes-list-type': 'atomic' }),
      },
      'Specifies the DNS parameters of a pod. Parameters specified here will be merged to the generated DNS configuration based on DNSPolicy.',
    ),
    readinessGates: arrayOf(obj({ conditionType: str("ConditionType refers to a condition in the pod's condition list with matching type.") }, 'PodReadinessGate contains the reference to a pod condition', ['conditionType']), 'If specified, all readiness gates will be evaluated for pod readiness.', { 'x-kubernetes-list-type': 'atomic' }),
    runtimeClassName: str('RuntimeClassName refers to a RuntimeClass object in the node.k8s.io group, which should be used to run this pod.'),
    enableServiceLinks: bool("EnableServiceLinks indicates whether information about services should be injected into pod's environment variables. Optional: Defaults to true."),
    overhead: mapOf(quantity(), 'Overhead represents the resource overhead associated with running a pod for a given RuntimeClass.'),
    topologySpreadConstraints: arrayOf(anyObject('TopologySpreadConstraint specifies how to spread matching pods among the given topology.'), 'TopologySpreadConstraints describes how a group of pods ought to spread across topology domains.', { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['topologyKey', 'whenUnsatisfiable'] }),
    os: obj({ name: str('Name is the name of the operating system. The currently supported values are linux and windows.') }, 'Specifies the OS of the containers in the pod.', ['name']),
    hostUsers: bool('Use the host\'s user namespace. Optional: Default to true.'),
    schedulingGates: mapList(obj({ name: str('Name of the scheduling gate. Each scheduling gate must have a unique name field.') }, 'PodSchedulingGate is associated to a Pod to guard its scheduling.', ['name']), 'name', 'SchedulingGates is an opaque list of values that if specified will block scheduling the pod.'),
    resourceClaims: mapList(anyObject('PodResourceClaim references exactly one ResourceClaim.'), 'name', 'ResourceClaims defines which ResourceClaims must be allocated and reserved before the Pod is allowed to start.'),
    resources: resourceRequirements,
  },
  'Specification of the desired behavior of the pod.',
  ['containers'],
);

const containerState = obj(
  {
    waiting: obj({ reason: str('(brief) reason the container is not yet running.'), message: str('Message regarding why the container is not yet running.') }, 'Details about a waiting container'),
    running: obj({ startedAt: time('Time at which the container was last (re-)started') }, 'Details about a running container'),
    terminated: obj(
      {
        exitCode: int32('Exit status from the last termination of the container'),
        signal: int32('Signal from the last termination of the container'),
        reason: str('(brief) reason from the last termination of the container'),
        message: str('Message regarding the last termination of the container'),
        startedAt: time('Time at which previous execution of the container started'),
        finishedAt: time('Time at which the container last terminated'),
        containerID: str("Container's ID in the format '<type>://<container_id>'"),
      },
      'Details about a terminated container',
      ['exitCode'],
    ),
  },
  'ContainerState holds a possible state of container. Only one of its members may be specified.',
);

const containerStatus = obj(
  {
    name: str('Name is a DNS_LABEL representing the unique name of the container.'),
    state: containerState,
    lastState: containerState,
    ready: bool('Ready specifies whether the container is currently passing its readiness check.'),
    restartCount: int32('RestartCount holds the number of times the container has been restarted.'),
    image: str('Image is the name of container image that the container is running.'),
    imageID: str("ImageID is the image ID of the container's image."),
    containerID: str("ContainerID is the ID of the container in the format '<type>://<container_id>'."),
    started: bool('Started indicates whether the container has finished its postStart lifecycle hook and passed its startup probe.'),
    allocatedResources: mapOf(quantity(), 'AllocatedResources represents the compute resources allocated for this container by the node.'),
    resources: resourceRequirements,
    volumeMounts: mapList(obj({ name: str('Name corresponds to the name of the original VolumeMount.'), mountPath: str('MountPath corresponds to the original VolumeMount.'), readOnly: bool('ReadOnly corresponds to the original VolumeMount.'), recursiveReadOnly: str('RecursiveReadOnly must be set to Disabled, Enabled, or unspecified.') }, 'VolumeMountStatus shows status of volume mounts.', ['name', 'mountPath']), 'mountPath', 'Status of volume mounts.'),
    user: anyObject('User represents user identity information initially attached to the first process of the container'),
    allocatedResourcesStatus: arrayOf(anyObject('ResourceStatus represents the status of a single resource allocated to a Pod.'), 'AllocatedResourcesStatus represents the status of various resources allocated for this Pod.'),
    stopSignal: str('StopSignal reports the effective stop signal for this container'),
  },
  'ContainerStatus contains details for the current status of this container.',
  ['name', 'ready', 'restartCount', 'image', 'imageID'],
);

const podCondition = obj(
  {
    type: str('Type is the type of the condition.'),
    observedGeneration: int64('If set, this represents the .metadata.generation that the pod condition was set based upon.'),
    status: str('Status is the status of the condition. Can be True, False, Unknown.'),
    lastProbeTime: time('Last time we probed the condition.'),
    lastTransitionTime: time('Last time the condition transitioned from one status to another.'),
    reason: str("Unique, one-word, CamelCase reason for the condition's last transition."),
    message: str('Human-readable message indicating details about last transition.'),
  },
  'PodCondition contains details for the current condition of this pod.',
  ['type', 'status'],
);

const ipList = (what: string) => mapList(obj({ ip: str(`IP is the IP address assigned to the ${what}`) }, `An IP address allocated to the ${what}.`, ['ip']), 'ip', `IP addresses allocated to the ${what}.`);

const podStatus = obj(
  {
    observedGeneration: int64('If set, this represents the .metadata.generation that the pod status was set based upon.'),
    phase: str('The phase of a Pod is a simple, high-level summary of where the Pod is in its lifecycle.', { enum: ['Failed', 'Pending', 'Running', 'Succeeded', 'Unknown'] }),
    conditions: mapList(podCondition, 'type', 'Current service state of pod.'),
    message: str('A human readable message indicating details about why the pod is in this condition.'),
    reason: str("A brief CamelCase message indicating details about why the pod is in this state. e.g. 'Evicted'"),
    nominatedNodeName: str('nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods.'),
    hostIP: str('hostIP holds the IP address of the host to which the pod is assigned.'),
    hostIPs: ipList('host'),
    podIP: str('podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.'),
    podIPs: ipList('pod'),
    startTime: time('RFC 3339 date and time at which the object was acknowledged by the Kubelet.'),
    initContainerStatuses: arrayOf(containerStatus, 'Statuses of init containers in this pod.', { 'x-kubernetes-list-type': 'atomic' }),
    containerStatuses: arrayOf(containerStatus, 'Statuses of containers in this pod.', { 'x-kubernetes-list-type': 'atomic' }),
    ephemeralContainerStatuses: arrayOf(containerStatus, 'Statuses for any ephemeral containers that have run in this pod.', { 'x-kubernetes-list-type': 'atomic' }),
    qosClass: str('The Quality of Service (QOS) classification assigned to the pod based on resource requirements.', { enum: ['BestEffort', 'Burstable', 'Guaranteed'] }),
    resize: str('Status of resources resize desired for pod\'s containers.'),
    resourceClaimStatuses: arrayOf(anyObject('PodResourceClaimStatus is stored in the PodStatus for each PodResourceClaim.'), 'Status of resource claims.'),
  },
  'Most recently observed status of the pod.',
);

export const podSchema = objectSchema(
  'Pod is a collection of containers that can run on a host. This resource is created by clients and scheduled onto hosts.',
  { spec: podSpec, status: podStatus },
);
