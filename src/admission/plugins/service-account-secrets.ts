/**
 * The secret references of a pod, for the ServiceAccount plugin: a mirror pod may hold none, and a service
 * account that enforces mountable secrets limits its pods to the secrets it lists.
 */
import { isObject } from '../../api/types.js';
import { objectsIn, type Obj } from './pod-request.js';

const named = (v: unknown, key: string): string | undefined => (isObject(v) && typeof v[key] === 'string' ? v[key] : undefined);
/** Volume sources whose `secretRef.name` names a secret (the reference's list). */
const SECRET_REF_SOURCES = ['cephfs', 'cinder', 'flexVolume', 'rbd', 'scaleIO', 'iscsi', 'storageos'];

/** Secret names a container's environment reads. */
export function containerSecretNames(c: Obj): string[] {
  const out: string[] = [];
  for (const from of objectsIn(c.envFrom)) {
    const n = named(from.secretRef, 'name');
    if (n !== undefined) out.push(n);
  }
  for (const env of objectsIn(c.env)) {
    const n = isObject(env.valueFrom) ? named(env.valueFrom.secretKeyRef, 'name') : undefined;
    if (n !== undefined) out.push(n);
  }
  return out;
}

/** Every secret name a pod spec references: pull secrets, container environments, volumes. */
export function podSecretNames(spec: Obj): string[] {
  const out: string[] = [];
  for (const ref of objectsIn(spec.imagePullSecrets)) out.push(typeof ref.name === 'string' ? ref.name : '');
  for (const list of ['initContainers', 'containers', 'ephemeralContainers']) {
    for (const c of objectsIn(spec[list])) out.push(...containerSecretNames(c));
  }
  for (const v of objectsIn(spec.volumes)) {
    const direct = named(v.secret, 'secretName') ?? named(v.azureFile, 'secretName') ?? (isObject(v.csi) ? named(v.csi.nodePublishSecretRef, 'name') : undefined);
    if (direct !== undefined) out.push(direct);
    for (const src of SECRET_REF_SOURCES) {
      const n = isObject(v[src]) ? named((v[src] as Obj).secretRef, 'name') : undefined;
      if (n !== undefined) out.push(n);
    }
    if (isObject(v.projected)) {
      for (const s of objectsIn(v.projected.sources)) {
        const n = named(s.secret, 'name');
        if (n !== undefined) out.push(n);
      }
    }
  }
  return out;
}

const namesOf = (refs: unknown): Set<string> => new Set(objectsIn(refs).map((r) => String(r.name ?? '')));

/**
 * The first reference the account does not allow, in the reference's words (secret volumes, container
 * environments and pull secrets are checked; other volume kinds are not, as in the reference).
 */
export function disallowedSecretReference(sa: Obj, spec: Obj): string | undefined {
  const saName = String((isObject(sa.metadata) ? sa.metadata.name : '') ?? '');
  const mountable = namesOf(sa.secrets);
  for (const v of objectsIn(spec.volumes)) {
    const secret = named(v.secret, 'secretName');
    if (secret !== undefined && !mountable.has(secret)) {
      return `volume with secret.secretName="${secret}" is not allowed because service account ${saName} does not reference that secret`;
    }
  }
  for (const [list, what] of [['initContainers', 'init container'], ['containers', 'container']] as const) {
    const found = envSecretNotListed(objectsIn(spec[list]), mountable, what, saName);
    if (found) return found;
  }
  const pullable = namesOf(sa.imagePullSecrets);
  const pulls = objectsIn(spec.imagePullSecrets);
  for (let i = 0; i < pulls.length; i++) {
    const name = String(pulls[i]!.name ?? '');
    if (!pullable.has(name)) return `imagePullSecrets[${i}].name="${name}" is not allowed because service account ${saName} does not reference that imagePullSecret`;
  }
  return undefined;
}

/** The first environment variable of `containers` reading a secret the account does not list. */
export function envSecretNotListed(containers: Obj[], mountable: Set<string>, what: string, saName: string): string | undefined {
  for (const c of containers) {
    for (const env of objectsIn(c.env)) {
      const secret = isObject(env.valueFrom) ? named(env.valueFrom.secretKeyRef, 'name') : undefined;
      if (secret !== undefined && !mountable.has(secret)) {
        return `${what} ${String(c.name)} with envVar ${String(env.name)} referencing secret.secretName="${secret}" is not allowed because service account ${saName} does not reference that secret`;
      }
    }
  }
  return undefined;
}

export const mountableSecretNames = namesOf;
