/** Volume schemas of the Pod API reference: the common in-tree sources, the rest kept as free-form objects. */
import { anyObject, arrayOf, bool, int32, int64, mapList, obj, quantity, str } from '../../schema.js';
import { objectFieldSelector, resourceFieldSelector } from './schema-container.js';

const keyToPath = obj(
  {
    key: str('key is the key to project.'),
    path: str('path is the relative path of the file to map the key to. May not be an absolute path.'),
    mode: int32('mode is Optional: mode bits used to set permissions on this file.'),
  },
  'Maps a string key to a path within a volume.',
  ['key', 'path'],
);
const items = arrayOf(keyToPath, 'items maps keys of the referenced object to paths within the volume.', { 'x-kubernetes-list-type': 'atomic' });
const defaultMode = int32('Optional: mode bits used to set permissions on created files by default. Defaults to 0644.');

const configMapSource = obj(
  { name: str('Name of the referent.'), items, defaultMode, optional: bool('optional specify whether the ConfigMap or its keys must be defined') },
  'configMap represents a configMap that should populate this volume',
);
const secretSource = obj(
  { secretName: str("secretName is the name of the secret in the pod's namespace to use."), items, defaultMode, optional: bool('optional field specify whether the Secret or its keys must be defined') },
  'secret represents a secret that should populate this volume.',
);
const downwardAPIFile = obj(
  {
    path: str("Required: Path is the relative path name of the file to be created. Must not be absolute or contain the '..' path."),
    fieldRef: objectFieldSelector,
    resourceFieldRef: resourceFieldSelector,
    mode: int32('Optional: mode bits used to set permissions on this file.'),
  },
  'DownwardAPIVolumeFile represents information to create the file containing the pod field',
  ['path'],
);
const downwardAPISource = obj(
  { items: arrayOf(downwardAPIFile, 'Items is a list of downward API volume file', { 'x-kubernetes-list-type': 'atomic' }), defaultMode },
  'downwardAPI represents downward API about the pod that should populate this volume',
);
const projectedSource = obj(
  {
    sources: arrayOf(
      obj(
        {
          configMap: obj({ name: str('Name of the referent.'), items, optional: bool('optional specify whether the ConfigMap or its keys must be defined') }, 'configMap information about the configMap data to project'),
          secret: obj({ name: str('Name of the referent.'), items, optional: bool('optional field specify whether the Secret or its key must be defined') }, 'secret information about the secret data to project'),
          downwardAPI: obj({ items: arrayOf(downwardAPIFile, 'Items is a list of DownwardAPIVolume file') }, 'downwardAPI information about the downwardAPI data to project'),
          serviceAccountToken: obj(
            {
              audience: str('audience is the intended audience of the token.'),
              expirationSeconds: int64('expirationSeconds is the requested duration of validity of the service account token. Defaults to 1 hour.'),
              path: str('path is the path relative to the mount point of the file to project the token into.'),
            },
            'serviceAccountToken is information about the serviceAccountToken data to project',
            ['path'],
          ),
          clusterTrustBundle: anyObject('ClusterTrustBundle allows a pod to access the `.spec.trustBundle` field of ClusterTrustBundle objects.'),
        },
        'Projection that may be projected along with other supported volume types. Exactly one of these fields must be set.',
      ),
      'sources is the list of volume projections. Each entry in this list handles one source.',
      { 'x-kubernetes-list-type': 'atomic' },
    ),
    defaultMode,
  },
  'projected items for all in one resources secrets, configmaps, and downward API',
);

/** Volume sources, keyed by their field name; exactly one may be set per volume. */
export const volumeSources = {
  emptyDir: obj(
    {
      medium: str('medium represents what type of storage medium should back this directory. "" or "Memory".'),
      sizeLimit: quantity('sizeLimit is the total amount of local storage required for this EmptyDir volume.'),
    },
    "emptyDir represents a temporary directory that shares a pod's lifetime.",
  ),
  hostPath: obj(
    { path: str('path of the directory on the host.'), type: str('type for HostPath Volume. Defaults to "".') },
    'hostPath represents a pre-existing file or directory on the host machine that is directly exposed to the container.',
    ['path'],
  ),
  configMap: configMapSource,
  secret: secretSource,
  downwardAPI: downwardAPISource,
  projected: projectedSource,
  persistentVolumeClaim: obj(
    { claimName: str('claimName is the name of a PersistentVolumeClaim in the same namespace as the pod using this volume.'), readOnly: bool('readOnly Will force the ReadOnly setting in VolumeMounts. Default false.') },
    'persistentVolumeClaimVolumeSource represents a reference to a PersistentVolumeClaim in the same namespace.',
    ['claimName'],
  ),
  nfs: obj(
    { server: str('server is the hostname or IP address of the NFS server.'), path: str('path that is exported by the NFS server.'), readOnly: bool('readOnly here will force the NFS export to be mounted with read-only permissions.') },
    'nfs represents an NFS mount on the host that shares a pod\'s lifetime',
    ['server', 'path'],
  ),
  image: obj(
    { reference: str('Required: Image or artifact reference to be used.'), pullPolicy: str('Policy for pulling OCI objects. Possible values are: Always, Never, IfNotPresent.') },
    'image represents an OCI object (a container image or artifact) pulled and mounted on the host machine.',
  ),
  csi: anyObject('csi (Container Storage Interface) represents ephemeral storage that is handled by certain external CSI drivers.'),
  ephemeral: anyObject('ephemeral represents a volume that is handled by a cluster storage driver.'),
  iscsi: anyObject('iscsi represents an ISCSI Disk resource that is attached to a host machine and then exposed to the pod.'),
  fc: anyObject('fc represents a Fibre Channel resource that is attached to a host machine and then exposed to the pod.'),
  local: anyObject('local represents directly-attached storage with node affinity.'),
};

export const VOLUME_SOURCE_NAMES = Object.keys(volumeSources);

export const volume = obj(
  { name: str("name of the volume. Must be a DNS_LABEL and unique within the pod."), ...volumeSources },
  'Volume represents a named volume in a pod that may be accessed by any container in the pod.',
  ['name'],
);

export const volumesList = mapList(volume, 'name', 'List of volumes that can be mounted by containers belonging to the pod.');
