/** Container-level schemas of the Pod API reference (field names, types, merge keys). */
import { anyObject, arrayOf, bool, int32, int64, intOrString, mapList, mapOf, obj, quantity, str } from '../../schema.js';
import type { Schema } from '../../types.js';

/** The reference keys container ports by (containerPort, protocol) for apply and by containerPort for patches. */
export const portList = (items: Schema, key: string, description: string): Schema => ({
  ...mapList(items, key, description),
  'x-kubernetes-list-map-keys': [key, 'protocol'],
});

const keySelector = (what: string) =>
  obj(
    {
      name: str(`Name of the referent ${what}.`),
      key: str(`The key of the ${what} to select.`),
      optional: bool(`Specify whether the ${what} or its key must be defined.`),
    },
    `Selects a key of a ${what}.`,
    ['key'],
  );

export const objectFieldSelector = obj(
  {
    apiVersion: str('Version of the schema the FieldPath is written in terms of, defaults to "v1".'),
    fieldPath: str('Path of the field to select in the specified API version.'),
  },
  'ObjectFieldSelector selects an APIVersioned field of an object.',
  ['fieldPath'],
);

export const resourceFieldSelector = obj(
  {
    containerName: str('Container name: required for volumes, optional for env vars.'),
    resource: str('Required: resource to select.'),
    divisor: quantity('Specifies the output format of the exposed resources, defaults to "1".'),
  },
  'ResourceFieldSelector represents container resources (cpu, memory) and their output format.',
  ['resource'],
);

const envVar = obj(
  {
    name: str('Name of the environment variable.'),
    value: str('Variable references $(VAR_NAME) are expanded using the previously defined environment variables in the container.'),
    valueFrom: obj(
      {
        fieldRef: objectFieldSelector,
        resourceFieldRef: resourceFieldSelector,
        configMapKeyRef: keySelector('ConfigMap'),
        secretKeyRef: keySelector('Secret'),
      },
      "Source for the environment variable's value. Cannot be used if value is not empty.",
    ),
  },
  'EnvVar represents an environment variable present in a Container.',
  ['name'],
);

const envFromSource = obj(
  {
    prefix: str('Optional text to prepend to the name of each environment variable.'),
    configMapRef: obj({ name: str('Name of the referent.'), optional: bool('Specify whether the ConfigMap must be defined.') }, 'The ConfigMap to select from.'),
    secretRef: obj({ name: str('Name of the referent.'), optional: bool('Specify whether the Secret must be defined.') }, 'The Secret to select from.'),
  },
  'EnvFromSource represents the source of a set of ConfigMaps or Secrets.',
);

const containerPort = obj(
  {
    name: str('If specified, this must be an IANA_SVC_NAME and unique within the pod.'),
    containerPort: int32('Number of port to expose on the pod\'s IP address. This must be a valid port number, 0 < x < 65536.'),
    hostPort: int32('Number of port to expose on the host. If specified, this must be a valid port number, 0 < x < 65536.'),
    hostIP: str('What host IP to bind the external port to.'),
    protocol: str('Protocol for port. Must be UDP, TCP, or SCTP. Defaults to "TCP".', { enum: ['SCTP', 'TCP', 'UDP'] }),
  },
  'ContainerPort represents a network port in a single container.',
  ['containerPort'],
);

export const resourceRequirements = obj(
  {
    limits: mapOf(quantity(), 'Limits describes the maximum amount of compute resources allowed.'),
    requests: mapOf(quantity(), 'Requests describes the minimum amount of compute resources required. Defaults to Limits when omitted.'),
    claims: mapList(obj({ name: str('Name must match the name of one entry in pod.spec.resourceClaims.'), request: str('Request name.') }, 'ResourceClaim references one entry in PodSpec.ResourceClaims.', ['name']), 'name', 'Claims lists the names of resources, defined in spec.resourceClaims, that are used by this container.'),
  },
  'ResourceRequirements describes the compute resource requirements.',
);

const volumeMount = obj(
  {
    name: str('This must match the Name of a Volume.'),
    mountPath: str("Path within the container at which the volume should be mounted. Must not contain ':'."),
    subPath: str("Path within the volume from which the container's volume should be mounted. Defaults to \"\" (volume's root)."),
    subPathExpr: str('Expanded path within the volume from which the container\'s volume should be mounted.'),
    readOnly: bool('Mounted read-only if true, read-write otherwise (false or unspecified). Defaults to false.'),
    recursiveReadOnly: str('RecursiveReadOnly specifies whether read-only mounts should be handled recursively.'),
    mountPropagation: str('mountPropagation determines how mounts are propagated from the host to container and the other way around.'),
  },
  'VolumeMount describes a mounting of a Volume within a container.',
  ['name', 'mountPath'],
);

const volumeDevice = obj(
  {
    name: str('name must match the name of a persistentVolumeClaim in the pod'),
    devicePath: str('devicePath is the path inside of the container that the device will be mapped to.'),
  },
  'volumeDevice describes a mapping of a raw block device within a container.',
  ['name', 'devicePath'],
);

const execAction = obj({ command: arrayOf(str(), 'Command is the command line to execute inside the container.') }, 'Exec specifies a command to execute in the container.');
const httpGetAction = obj(
  {
    path: str('Path to access on the HTTP server.'),
    port: intOrString('Name or number of the port to access on the container.'),
    host: str('Host name to connect to, defaults to the pod IP.'),
    scheme: str('Scheme to use for connecting to the host. Defaults to HTTP.'),
    httpHeaders: arrayOf(obj({ name: str('The header field name.'), value: str('The header field value') }, 'HTTPHeader describes a custom header to be used in HTTP probes', ['name', 'value']), 'Custom headers to set in the request.'),
  },
  'HTTPGet specifies an HTTP GET request to perform.',
  ['port'],
);
const tcpSocketAction = obj({ port: intOrString('Number or name of the port to access on the container.'), host: str('Optional: Host name to connect to, defaults to the pod IP.') }, 'TCPSocket specifies a connection to a TCP port.', ['port']);
const handlerFields = { exec: execAction, httpGet: httpGetAction, tcpSocket: tcpSocketAction };

export const probe = obj(
  {
    ...handlerFields,
    grpc: obj({ port: int32('Port number of the gRPC service.'), service: str('Service is the name of the service to place in the gRPC HealthCheckRequest.') }, 'GRPC specifies a GRPC HealthCheckRequest.', ['port']),
    initialDelaySeconds: int32('Number of seconds after the container has started before liveness probes are initiated.'),
    timeoutSeconds: int32('Number of seconds after which the probe times out. Defaults to 1 second.'),
    periodSeconds: int32('How often (in seconds) to perform the probe. Default to 10 seconds.'),
    successThreshold: int32('Minimum consecutive successes for the probe to be considered successful after having failed. Defaults to 1.'),
    failureThreshold: int32('Minimum consecutive failures for the probe to be considered failed after having succeeded. Defaults to 3.'),
    terminationGracePeriodSeconds: int64('Optional duration in seconds the pod needs to terminate gracefully upon probe failure.'),
  },
  'Probe describes a health check to be performed against a container to determine whether it is alive or ready to receive traffic.',
);

const lifecycleHandler = obj(
  { ...handlerFields, sleep: obj({ seconds: int64('Seconds is the number of seconds to sleep.') }, 'Sleep represents a duration that the container should sleep.', ['seconds']) },
  'LifecycleHandler defines a specific action that should be taken in a lifecycle hook.',
);

const capabilities = obj({ add: arrayOf(str(), 'Added capabilities'), drop: arrayOf(str(), 'Removed capabilities') }, 'The capabilities to add/drop when running containers.');
export const seLinuxOptions = obj({ user: str('User is a SELinux user label.'), role: str('Role is a SELinux role label.'), type: str('Type is a SELinux type label.'), level: str('Level is SELinux level label.') }, 'The SELinux context to be applied to the container.');
export const seccompProfile = obj({ type: str('type indicates which kind of seccomp profile will be applied: Localhost, RuntimeDefault, Unconfined.'), localhostProfile: str('localhostProfile indicates a profile defined in a file on the node should be used.') }, 'The seccomp options to use by this container.', ['type']);
export const appArmorProfile = obj({ type: str('type indicates which kind of AppArmor profile will be applied: Localhost, RuntimeDefault, Unconfined.'), localhostProfile: str('localhostProfile indicates a profile loaded on the node that should be used.') }, 'appArmorProfile is the AppArmor options to use by this container.', ['type']);
export const windowsOptions = anyObject('The Windows specific settings applied to all containers.');

const securityContext = obj(
  {
    capabilities,
    privileged: bool('Run container in privileged mode. Defaults to false.'),
    seLinuxOptions,
    windowsOptions,
    runAsUser: int64('The UID to run the entrypoint of the container process.'),
    runAsGroup: int64('The GID to run the entrypoint of the container process.'),
    runAsNonRoot: bool('Indicates that the container must run as a non-root user.'),
    readOnlyRootFilesystem: bool('Whether this container has a read-only root filesystem. Default is false.'),
    allowPrivilegeEscalation: bool('AllowPrivilegeEscalation controls whether a process can gain more privileges than its parent process.'),
    procMount: str('procMount denotes the type of proc mount to use for the containers.'),
    seccompProfile,
    appArmorProfile,
  },
  'SecurityContext defines the security options the container should be run with.',
);

/** Fields shared by containers and init containers (ephemeral containers use the same shape). */
export const container = obj(
  {
    name: str('Name of the container specified as a DNS_LABEL. Each container in a pod must have a unique name. Cannot be updated.'),
    image: str('Container image name.'),
    command: arrayOf(str(), "Entrypoint array. Not executed within a shell. The container image's ENTRYPOINT is used if this is not provided."),
    args: arrayOf(str(), "Arguments to the entrypoint. The container image's CMD is used if this is not provided."),
    workingDir: str("Container's working directory. Defaults to the container runtime's default."),
    ports: portList(containerPort, 'containerPort', 'List of ports to expose from the container.'),
    envFrom: arrayOf(envFromSource, 'List of sources to populate environment variables in the container.'),
    env: mapList(envVar, 'name', 'List of environment variables to set in the container. Cannot be updated.'),
    resources: resourceRequirements,
    resizePolicy: arrayOf(obj({ resourceName: str('Name of the resource to which this resource resize policy applies.'), restartPolicy: str('Restart policy to apply when specified resource is resized.') }, 'ContainerResizePolicy represents resource resize policy for the container.', ['resourceName', 'restartPolicy']), 'Resources resize policy for the container.', { 'x-kubernetes-list-type': 'atomic' }),
    restartPolicy: str('RestartPolicy defines the restart behavior of individual containers in a pod. The only allowed value is "Always", for init containers.'),
    volumeMounts: mapList(volumeMount, 'mountPath', "Pod volumes to mount into the container's filesystem. Cannot be updated."),
    volumeDevices: mapList(volumeDevice, 'devicePath', 'volumeDevices is the list of block devices to be used by the container.'),
    livenessProbe: probe,
    readinessProbe: probe,
    startupProbe: probe,
    lifecycle: obj({ postStart: lifecycleHandler, preStop: lifecycleHandler, stopSignal: str('StopSignal defines which signal will be sent to a container when it is being stopped.') }, 'Actions that the management system should take in response to container lifecycle events.'),
    terminationMessagePath: str("Path at which the file to which the container's termination message will be written is mounted. Defaults to /dev/termination-log."),
    terminationMessagePolicy: str('Indicate how the termination message should be populated. File or FallbackToLogsOnError. Defaults to File.', { enum: ['FallbackToLogsOnError', 'File'] }),
    imagePullPolicy: str('Image pull policy. One of Always, Never, IfNotPresent. Defaults to Always if :latest tag is specified, or IfNotPresent otherwise.', { enum: ['Always', 'IfNotPresent', 'Never'] }),
    securityContext,
    stdin: bool('Whether this container should allocate a buffer for stdin in the container runtime.'),
    stdinOnce: bool('Whether the container runtime should close the stdin channel after it has been opened by a single attach.'),
    tty: bool("Whether this container should allocate a TTY for itself, also requires 'stdin' to be true."),
  },
  'A single application container that you want to run within a pod.',
  ['name'],
);

export const ephemeralContainer = obj(
  {
    ...(container.properties ?? {}),
    targetContainerName: str('If set, the name of the container from PodSpec that this ephemeral container targets.'),
  },
  'An EphemeralContainer is a temporary container that you may add to an existing Pod for user-initiated activities such as debugging.',
  ['name'],
);
