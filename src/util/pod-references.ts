/**
 * The API objects a pod or a persistent volume names, read from plain JSON the way the reference's
 * visitors read them. The Node authorizer lets a node read exactly these; NodeRestriction refuses mirror
 * pods that name any. Pure and allocation-light: callbacks, no intermediate arrays.
 */
type Json = Record<string, unknown>;

const obj = (v: unknown): Json | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined);
const list = (v: unknown): readonly unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Volume types that carry a secret reference, and the field path of the name inside the volume source. */
const SECRET_VOLUME_FIELDS: readonly (readonly [string, string, string?])[] = [
  ['secret', 'secretName'],
  ['azureFile', 'secretName'],
  ['cephfs', 'secretRef', 'name'],
  ['cinder', 'secretRef', 'name'],
  ['flexVolume', 'secretRef', 'name'],
  ['iscsi', 'secretRef', 'name'],
  ['rbd', 'secretRef', 'name'],
  ['scaleIO', 'secretRef', 'name'],
  ['storageos', 'secretRef', 'name'],
  ['csi', 'nodePublishSecretRef', 'name'],
];

function containersOf(spec: Json, visit: (c: Json) => void): void {
  for (const field of ['initContainers', 'containers', 'ephemeralContainers']) {
    for (const c of list(spec[field])) {
      const container = obj(c);
      if (container) visit(container);
    }
  }
}

function emit(name: string, visit: (name: string) => void): void {
  if (name !== '') visit(name);
}

/** Secrets a pod names: image pull secrets, secret-backed volumes, projected secrets, env and envFrom. */
export function visitPodSecretNames(pod: Json, visit: (name: string) => void): void {
  const spec = obj(pod.spec);
  if (!spec) return;
  for (const s of list(spec.imagePullSecrets)) emit(str(obj(s)?.name), visit);
  containersOf(spec, (c) => {
    for (const e of list(c.envFrom)) emit(str(obj(obj(e)?.secretRef)?.name), visit);
    for (const e of list(c.env)) emit(str(obj(obj(obj(e)?.valueFrom)?.secretKeyRef)?.name), visit);
  });
  for (const v of list(spec.volumes)) {
    const vol = obj(v);
    if (!vol) continue;
    for (const [type, field, inner] of SECRET_VOLUME_FIELDS) {
      const source = obj(vol[type]);
      if (source) emit(inner ? str(obj(source[field])?.[inner]) : str(source[field]), visit);
    }
    for (const p of list(obj(vol.projected)?.sources)) emit(str(obj(obj(p)?.secret)?.name), visit);
  }
}

/** ConfigMaps a pod names: configMap volumes, projected configMaps, env and envFrom. */
export function visitPodConfigMapNames(pod: Json, visit: (name: string) => void): void {
  const spec = obj(pod.spec);
  if (!spec) return;
  containersOf(spec, (c) => {
    for (const e of list(c.envFrom)) emit(str(obj(obj(e)?.configMapRef)?.name), visit);
    for (const e of list(c.env)) emit(str(obj(obj(obj(e)?.valueFrom)?.configMapKeyRef)?.name), visit);
  });
  for (const v of list(spec.volumes)) {
    const vol = obj(v);
    if (!vol) continue;
    emit(str(obj(vol.configMap)?.name), visit);
    for (const p of list(obj(vol.projected)?.sources)) emit(str(obj(obj(p)?.configMap)?.name), visit);
  }
}

/** Claims a pod's volumes use; a generic ephemeral volume's claim is named `<pod>-<volume>`. */
export function visitPodClaimNames(pod: Json, visit: (name: string) => void): void {
  const spec = obj(pod.spec);
  if (!spec) return;
  const podName = str(obj(pod.metadata)?.name);
  for (const v of list(spec.volumes)) {
    const vol = obj(v);
    if (!vol) continue;
    const pvc = obj(vol.persistentVolumeClaim);
    if (pvc) emit(str(pvc.claimName), visit);
    else if (obj(vol.ephemeral) && podName !== '') emit(`${podName}-${str(vol.name)}`, visit);
  }
}

/**
 * ResourceClaims a pod uses: the ones named directly, and for claims made from a template the name the
 * pod's status records (none yet while the claim is still to be created).
 */
export function visitPodResourceClaimNames(pod: Json, visit: (name: string) => void): void {
  const claims = list(obj(pod.spec)?.resourceClaims);
  if (claims.length === 0) return;
  const statuses = list(obj(pod.status)?.resourceClaimStatuses);
  for (const c of claims) {
    const claim = obj(c);
    if (!claim) continue;
    const direct = str(claim.resourceClaimName);
    if (direct !== '') {
      visit(direct);
      continue;
    }
    if (str(claim.resourceClaimTemplateName) === '') continue;
    for (const s of statuses) {
      const status = obj(s);
      if (status && str(status.name) === str(claim.name)) emit(str(status.resourceClaimName), visit);
    }
  }
}

/**
 * Secrets a persistent volume's source names that the node itself reads (not the controller-only CSI
 * secrets), each with its namespace: the reference's own, else the bound claim's.
 */
export function visitPersistentVolumeSecrets(pv: Json, visit: (namespace: string, name: string) => void): void {
  const spec = obj(pv.spec);
  if (!spec) return;
  const claimNamespace = str(obj(spec.claimRef)?.namespace);
  const ref = (r: unknown) => {
    const o = obj(r);
    const name = str(o?.name);
    if (name !== '') visit(str(o?.namespace) || claimNamespace, name);
  };
  const azure = obj(spec.azureFile);
  if (azure && str(azure.secretName) !== '') visit(str(azure.secretNamespace) || claimNamespace, str(azure.secretName));
  for (const type of ['cephfs', 'cinder', 'flexVolume', 'iscsi', 'rbd', 'scaleIO', 'storageos']) {
    const source = obj(spec[type]);
    if (source) ref(source.secretRef);
  }
  const csi = obj(spec.csi);
  if (csi) for (const field of ['nodeStageSecretRef', 'nodePublishSecretRef', 'nodeExpandSecretRef']) ref(csi[field]);
}
