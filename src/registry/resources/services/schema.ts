/** The Service schema (ServiceSpec, ServiceStatus) with the API reference's field names and list keys. */
import { arrayOf, bool, int32, intOrString, mapList, obj, objectSchema, str, stringMap, time, int64 } from '../../schema.js';
import type { Schema } from '../../types.js';

const servicePort = obj(
  {
    name: str('The name of this port within the service. This must be a DNS_LABEL. All ports within a ServiceSpec must have unique names.'),
    protocol: str('The IP protocol for this port. Supports "TCP", "UDP", and "SCTP". Default is TCP.', { enum: ['SCTP', 'TCP', 'UDP'] }),
    appProtocol: str('The application protocol for this port. Un-prefixed names are reserved for IANA standard service names.'),
    port: int32('The port that will be exposed by this service.'),
    targetPort: intOrString('Number or name of the port to access on the pods targeted by the service. Defaults to the value of the port field.'),
    nodePort: int32('The port on each node on which this service is exposed when type is NodePort or LoadBalancer. Usually assigned by the system.'),
  },
  "ServicePort contains information on service's port.",
  ['port'],
);

const atomicList = (items: Schema, description: string): Schema => arrayOf(items, description, { 'x-kubernetes-list-type': 'atomic' });

const serviceSpec = obj(
  {
    ports: {
      ...mapList(servicePort, 'port', 'The list of ports that are exposed by this service.'),
      // Apply keys service ports by port and protocol (a port may be served over TCP and UDP).
      'x-kubernetes-list-map-keys': ['port', 'protocol'],
    },
    selector: { ...stringMap('Route service traffic to pods with label keys and values matching this selector.'), 'x-kubernetes-map-type': 'atomic' },
    clusterIP: str('clusterIP is the IP address of the service and is usually assigned randomly. "None" makes a headless service.'),
    clusterIPs: atomicList(str(), 'ClusterIPs is a list of IP addresses assigned to this service, and are usually assigned randomly.'),
    type: str('type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer.', {
      enum: ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'],
    }),
    externalIPs: atomicList(str(), 'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.'),
    sessionAffinity: str('Supports "ClientIP" and "None". Used to maintain session affinity. Defaults to None.', { enum: ['ClientIP', 'None'] }),
    loadBalancerIP: str('Only applies to Service Type: LoadBalancer. Deprecated.'),
    loadBalancerSourceRanges: atomicList(str(), 'If specified and supported by the platform, traffic through the load-balancer will be restricted to the specified client IPs.'),
    externalName: str('externalName is the external reference that discovery mechanisms will return as an alias for this service (e.g. a DNS CNAME record).'),
    externalTrafficPolicy: str('externalTrafficPolicy describes how nodes distribute service traffic they receive on one of the Service\'s "externally-facing" addresses.', {
      enum: ['Cluster', 'Local'],
    }),
    healthCheckNodePort: int32('healthCheckNodePort specifies the healthcheck nodePort for the service.'),
    publishNotReadyAddresses: bool('publishNotReadyAddresses indicates that any agent which deals with endpoints for this Service should disregard any indications of ready/not-ready.'),
    sessionAffinityConfig: obj(
      { clientIP: obj({ timeoutSeconds: int32('timeoutSeconds specifies the seconds of ClientIP type session sticky time. Default value is 10800 (3 hours).') }, 'clientIP contains the configurations of Client IP based session affinity.') },
      'sessionAffinityConfig contains the configurations of session affinity.',
    ),
    ipFamilies: atomicList(str('', { enum: ['IPv4', 'IPv6'] }), 'IPFamilies is a list of IP families (e.g. IPv4, IPv6) assigned to this service.'),
    ipFamilyPolicy: str('IPFamilyPolicy represents the dual-stack-ness requested or required by this Service.', {
      enum: ['PreferDualStack', 'RequireDualStack', 'SingleStack'],
    }),
    allocateLoadBalancerNodePorts: bool('allocateLoadBalancerNodePorts defines if NodePorts will be automatically allocated for services with type LoadBalancer. Default is "true".'),
    loadBalancerClass: str('loadBalancerClass is the class of the load balancer implementation this Service belongs to.'),
    internalTrafficPolicy: str('InternalTrafficPolicy describes how nodes distribute service traffic they receive on the ClusterIP.', { enum: ['Cluster', 'Local'] }),
    trafficDistribution: str('TrafficDistribution offers a way to express preferences for how traffic is distributed to Service endpoints.'),
  },
  'Spec defines the behavior of a service.',
);

const condition = obj(
  {
    type: str('type of condition in CamelCase or in foo.example.com/CamelCase.'),
    status: str('status of the condition, one of True, False, Unknown.'),
    observedGeneration: int64('observedGeneration represents the .metadata.generation that the condition was set based upon.'),
    lastTransitionTime: time('lastTransitionTime is the last time the condition transitioned from one status to another.'),
    reason: str("reason contains a programmatic identifier indicating the reason for the condition's last transition."),
    message: str('message is a human readable message indicating details about the transition.'),
  },
  'Condition contains details for one aspect of the current state of this API Resource.',
  ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
);

const serviceStatus = obj(
  {
    loadBalancer: obj(
      {
        ingress: atomicList(
          obj(
            {
              ip: str('IP is set for load-balancer ingress points that are IP based.'),
              hostname: str('Hostname is set for load-balancer ingress points that are DNS based.'),
              ipMode: str('IPMode specifies how the load-balancer IP behaves, and may only be specified when the ip field is specified.'),
              ports: atomicList(
                obj({ port: int32('Port is the port number of the service port of which status is recorded here'), protocol: str('Protocol is the protocol of the service port of which status is recorded here'), error: str('Error is to record the problem with the service port') }, 'PortStatus represents the error condition of a service port', ['port', 'protocol']),
                'Ports is a list of records of service ports',
              ),
            },
            'LoadBalancerIngress represents the status of a load-balancer ingress point.',
          ),
          'Ingress is a list containing ingress points for the load-balancer.',
        ),
      },
      'LoadBalancer contains the current status of the load-balancer, if one is present.',
    ),
    conditions: mapList(condition, 'type', 'Current service state'),
  },
  'Most recently observed status of the service.',
);

export const serviceSchema = objectSchema(
  'Service is a named abstraction of software service (for example, mysql) consisting of local port that the proxy listens on, and the selector that determines which pods will answer requests sent through the proxy.',
  { spec: serviceSpec, status: serviceStatus },
);
