/** The Node schema (NodeSpec, NodeStatus) with the API reference's field names and merge keys. */
import { anyObject, arrayOf, bool, int32, int64, mapList, mapOf, obj, objectSchema, quantity, setList, str, time } from '../../schema.js';

export const taint = obj(
  {
    key: str('Required. The taint key to be applied to a node.'),
    value: str('The taint value corresponding to the taint key.'),
    effect: str('Required. The effect of the taint on pods that do not tolerate the taint. Valid effects are NoSchedule, PreferNoSchedule and NoExecute.', {
      enum: ['NoExecute', 'NoSchedule', 'PreferNoSchedule'],
    }),
    timeAdded: time('TimeAdded represents the time at which the taint was added.'),
  },
  'The node this Taint is attached to has the "effect" on any pod that does not tolerate the Taint.',
  ['key', 'effect'],
);

const nodeSpec = obj(
  {
    podCIDR: str('PodCIDR represents the pod IP range assigned to the node.'),
    podCIDRs: { ...setList(str(), 'podCIDRs represents the IP ranges assigned to the node for usage by Pods on that node.'), 'x-kubernetes-patch-strategy': 'merge' },
    providerID: str('ID of the node assigned by the cloud provider in the format: <ProviderName>://<ProviderSpecificNodeID>'),
    unschedulable: bool('Unschedulable controls node schedulability of new pods. By default, node is schedulable.'),
    taints: arrayOf(taint, "If specified, the node's taints.", { 'x-kubernetes-list-type': 'atomic' }),
    configSource: anyObject('Deprecated: Previously used to specify the source of the node\'s configuration for the DynamicKubeletConfig feature.'),
    externalID: str('Deprecated. Not all kubelets will set this field.'),
  },
  'Spec defines the behavior of a node.',
);

const nodeCondition = obj(
  {
    type: str('Type of node condition.'),
    status: str('Status of the condition, one of True, False, Unknown.'),
    lastHeartbeatTime: time('Last time we got an update on a given condition.'),
    lastTransitionTime: time('Last time the condition transit from one status to another.'),
    reason: str("(brief) reason for the condition's last transition."),
    message: str('Human readable message indicating details about last transition.'),
  },
  'NodeCondition contains condition information for a node.',
  ['type', 'status'],
);

const nodeAddress = obj(
  {
    type: str('Node address type, one of Hostname, ExternalIP or InternalIP.'),
    address: str('The node address.'),
  },
  "NodeAddress contains information for the node's address.",
  ['type', 'address'],
);

const nodeSystemInfo = obj(
  {
    machineID: str('MachineID reported by the node. For unique machine identification in the cluster this field is preferred.'),
    systemUUID: str('SystemUUID reported by the node.'),
    bootID: str('Boot ID reported by the node.'),
    kernelVersion: str("Kernel Version reported by the node from 'uname -r'."),
    osImage: str('OS Image reported by the node from /etc/os-release.'),
    containerRuntimeVersion: str('ContainerRuntime Version reported by the node through runtime remote API.'),
    kubeletVersion: str('Node agent version reported by the node.'),
    kubeProxyVersion: str('Deprecated: network proxy version reported by the node.'),
    operatingSystem: str('The Operating System reported by the node'),
    architecture: str('The Architecture reported by the node'),
    swap: obj({ capacity: int64('Total amount of swap memory in bytes.') }, 'Swap Info reported by the node.'),
  },
  'Set of ids/uuids to uniquely identify the node.',
);

const nodeStatus = obj(
  {
    capacity: mapOf(quantity(), 'Capacity represents the total resources of a node.'),
    allocatable: mapOf(quantity(), 'Allocatable represents the resources of a node that are available for scheduling. Defaults to Capacity.'),
    phase: str('NodePhase is the recently observed lifecycle phase of the node. Deprecated.'),
    conditions: mapList(nodeCondition, 'type', 'Conditions is an array of current observed node conditions.'),
    addresses: mapList(nodeAddress, 'type', 'List of addresses reachable to the node.'),
    daemonEndpoints: obj(
      { kubeletEndpoint: obj({ Port: int32('Port number of the given endpoint.') }, 'Endpoint on which the node agent is listening.', ['Port']) },
      'Endpoints of daemons running on the Node.',
    ),
    nodeInfo: nodeSystemInfo,
    images: arrayOf(
      obj(
        {
          names: arrayOf(str(), 'Names by which this image is known.'),
          sizeBytes: int64('The size of the image in bytes.'),
        },
        'Describe a container image',
      ),
      'List of container images on this node',
      { 'x-kubernetes-list-type': 'atomic' },
    ),
    volumesInUse: arrayOf(str(), 'List of attachable volumes in use (mounted) by the node.', { 'x-kubernetes-list-type': 'atomic' }),
    volumesAttached: arrayOf(
      obj({ name: str('Name of the attached volume'), devicePath: str('DevicePath represents the device path where the volume should be available') }, 'AttachedVolume describes a volume attached to a node', ['name', 'devicePath']),
      'List of volumes that are attached to the node.',
      { 'x-kubernetes-list-type': 'atomic' },
    ),
    config: anyObject('Status of the config assigned to the node via the dynamic node agent config feature.'),
    runtimeHandlers: arrayOf(
      obj({ name: str('Runtime handler name. Empty for the default runtime handler.'), features: obj({ recursiveReadOnlyMounts: bool('Whether the runtime handler supports RecursiveReadOnlyMounts.'), userNamespaces: bool('Whether the runtime handler supports UserNamespaces.') }, 'Supported features.') }, 'NodeRuntimeHandler is a set of runtime handler information.'),
      'The available runtime handlers.',
      { 'x-kubernetes-list-type': 'atomic' },
    ),
    features: obj({ supplementalGroupsPolicy: bool('SupplementalGroupsPolicy is set to true if the runtime supports SupplementalGroupsPolicy and ContainerUser.') }, 'Features describes the set of features implemented by the CRI implementation.'),
  },
  'Most recently observed status of the node.',
);

export const nodeSchema = objectSchema(
  'Node is a worker node in the cluster. Each node will have a unique identifier in the cache (i.e. in etcd).',
  { spec: nodeSpec, status: nodeStatus },
);
