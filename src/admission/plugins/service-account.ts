/**
 * ServiceAccount (reference plugin, on by default). On pod creation: a pod naming no account gets `default`;
 * the account must exist in the pod's namespace; unless the pod (first) or the account says not to, every
 * container and init container mounts a projected volume with a token for the account, the cluster CA and
 * the namespace; a pod without pull secrets gets the account's. Mirror pods are left unchanged and may not
 * reference an account, secrets or token projections. Adding ephemeral containers checks the account again.
 * An account annotated to enforce mountable secrets limits its pods to the secrets it lists.
 *
 * orch has no controller that creates the `default` account in each namespace yet (the reference's does so
 * within moments of the namespace's creation). Until one exists the plugin is built with
 * `assumeDefaultAccount`: a missing `default` account is taken as an account with no settings (what the
 * controller would create) instead of refusing every pod. Any other missing account is refused.
 */
import { randomInt } from 'node:crypto';
import { ENFORCE_MOUNTABLE_SECRETS_ANNOTATION, MIRROR_POD_ANNOTATION, ROOT_CA_CONFIGMAP, SA_TOKEN_MOUNT_PATH, SA_TOKEN_VOLUME_PREFIX } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { isObject } from '../../api/types.js';
import { forbiddenFor, noConfiguration } from './common.js';
import { andThen, forEachContainer, isPodWrite, objectsIn, specOf, type Obj } from './pod-request.js';
import { disallowedSecretReference, envSecretNotListed, mountableSecretNames, podSecretNames } from './service-account-secrets.js';
import type { AdmissionDeps, AdmissionOperation, AdmissionPlugin, AdmissionRequest, ObjectReader } from '../types.js';

export const SERVICE_ACCOUNT = 'ServiceAccount';
export const DEFAULT_SERVICE_ACCOUNT = 'default';
/** The token lifetime the reference projects (a little over an hour, so it can tell its own tokens apart). */
export const TOKEN_EXPIRATION_SECONDS = 3607;
/** 0644 (decimal in JSON), the mode the reference sets explicitly on the volume. */
const TOKEN_VOLUME_MODE = 420;
/** The reference's alphabet for generated suffixes (no vowels, no look-alike digits). */
const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const SUFFIX_LENGTH = 5;

export function randomSuffix(): string {
  let s = '';
  for (let i = 0; i < SUFFIX_LENGTH; i++) s += SUFFIX_ALPHABET[randomInt(SUFFIX_ALPHABET.length)];
  return s;
}

export interface ServiceAccountOptions {
  /** Take a missing `default` account as one with no settings (no controller creates it yet). */
  assumeDefaultAccount: boolean;
  /** The token volume's name suffix: random in the server, fixed in tests. */
  suffix: () => string;
}

/** The account a missing `default` stands for; shared and never changed. */
const IMPLICIT_DEFAULT: ApiObject = Object.freeze({ metadata: Object.freeze({ name: DEFAULT_SERVICE_ACCOUNT }) });

/** The projected volume with the account's token, the cluster CA and the pod's namespace. */
export function tokenVolume(name: string): Obj {
  return {
    name,
    projected: {
      sources: [
        { serviceAccountToken: { expirationSeconds: TOKEN_EXPIRATION_SECONDS, path: 'token' } },
        { configMap: { name: ROOT_CA_CONFIGMAP, items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
      defaultMode: TOKEN_VOLUME_MODE,
    },
  };
}

/** The pod's own setting wins, then the account's; mounting is the default. */
export function shouldAutomount(sa: ApiObject, spec: Obj): boolean {
  if (typeof spec.automountServiceAccountToken === 'boolean') return spec.automountServiceAccountToken;
  if (typeof sa.automountServiceAccountToken === 'boolean') return sa.automountServiceAccountToken;
  return true;
}

/**
 * Mounts the token volume read-only at the credentials path in every container and init container that
 * has nothing mounted there, adding the volume (reusing an existing token volume's name) when one does.
 */
export function mountToken(spec: Obj, suffix: () => string): void {
  const existing = objectsIn(spec.volumes).find((v) => typeof v.name === 'string' && v.name.startsWith(SA_TOKEN_VOLUME_PREFIX));
  const name = existing ? (existing.name as string) : SA_TOKEN_VOLUME_PREFIX + suffix();
  let needed = false;
  forEachContainer(spec, (c) => {
    if (objectsIn(c.volumeMounts).some((m) => m.mountPath === SA_TOKEN_MOUNT_PATH)) return;
    const mounts = Array.isArray(c.volumeMounts) ? c.volumeMounts : (c.volumeMounts = []);
    mounts.push({ name, readOnly: true, mountPath: SA_TOKEN_MOUNT_PATH });
    needed = true;
  }, ['initContainers', 'containers']);
  if (existing || !needed) return;
  const volumes = Array.isArray(spec.volumes) ? spec.volumes : (spec.volumes = []);
  volumes.push(tokenVolume(name));
}

/** The reference's strconv.ParseBool, for the enforcement annotation (anything else is false). */
const TRUE_WORDS = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
export const enforcesMountableSecrets = (sa: ApiObject): boolean => {
  const v = isObject(sa.metadata?.annotations) ? (sa.metadata.annotations as Obj)[ENFORCE_MOUNTABLE_SECRETS_ANNOTATION] : undefined;
  return typeof v === 'string' && TRUE_WORDS.has(v);
};

const isNameOrBlank = (v: unknown): boolean => v === undefined || v === null || typeof v === 'string';
const accountName = (spec: Obj): string => (typeof spec.serviceAccountName === 'string' ? spec.serviceAccountName : '');
const isMirror = (o: ApiObject | undefined): boolean => isObject(o?.metadata?.annotations) && MIRROR_POD_ANNOTATION in (o.metadata.annotations as Obj);

/** Why a mirror pod is refused, or undefined when it references nothing it may not. */
export function mirrorPodViolation(spec: Obj): string | undefined {
  if (accountName(spec) !== '') return 'a mirror pod may not reference service accounts';
  if (podSecretNames(spec).length > 0) return 'a mirror pod may not reference secrets';
  for (const v of objectsIn(spec.volumes)) {
    const sources = isObject(v.projected) ? objectsIn(v.projected.sources) : [];
    if (sources.some((s) => s.serviceAccountToken !== undefined && s.serviceAccountToken !== null)) {
      return 'a mirror pod may not use ServiceAccountToken volume projections';
    }
  }
  return undefined;
}

export class ServiceAccountPlugin implements AdmissionPlugin {
  readonly name = SERVICE_ACCOUNT;

  constructor(
    private readonly objects: ObjectReader,
    private readonly opts: ServiceAccountOptions,
  ) {}

  handles(op: AdmissionOperation): boolean {
    return op === 'CREATE' || op === 'UPDATE';
  }

  admit(req: AdmissionRequest): void | Promise<void> {
    if (req.operation !== 'CREATE' || !isPodWrite(req)) return;
    const spec = specOf(req.object);
    if (!spec) return;
    // A mirror pod's spec must stay what the node agent read from its file, so it is only checked.
    if (isMirror(req.object)) return this.checkMirror(req, spec);
    // A name of the wrong type is the type validation's to refuse (422 naming the field), not replaced.
    if (!isNameOrBlank(spec.serviceAccountName)) return;
    if (accountName(spec) === '') {
      spec.serviceAccountName = DEFAULT_SERVICE_ACCOUNT;
      spec.serviceAccount = DEFAULT_SERVICE_ACCOUNT;
    }
    return andThen(this.account(req, accountName(spec)), (sa) => {
      if (shouldAutomount(sa, spec)) mountToken(spec, this.opts.suffix);
      const accountPulls = objectsIn(sa.imagePullSecrets);
      if (objectsIn(spec.imagePullSecrets).length === 0 && accountPulls.length > 0) {
        spec.imagePullSecrets = accountPulls.map((r) => ({ name: r.name }));
      }
    });
  }

  validate(req: AdmissionRequest): void | Promise<void> {
    if (req.operation === 'UPDATE') return isPodWrite(req, 'ephemeralcontainers') ? this.checkEphemeral(req) : undefined;
    if (!isPodWrite(req)) return;
    const spec = specOf(req.object);
    if (!spec) return;
    if (isMirror(req.object)) return this.checkMirror(req, spec);
    const name = accountName(spec);
    if (name === '') throw forbiddenFor(req, `no service account specified for pod ${req.namespace}/${req.name}`);
    return andThen(this.account(req, name), (sa) => {
      if (!enforcesMountableSecrets(sa)) return;
      const why = disallowedSecretReference(sa, spec);
      if (why) throw forbiddenFor(req, why);
    });
  }

  private checkMirror(req: AdmissionRequest, spec: Obj): void {
    const why = mirrorPodViolation(spec);
    if (why) throw forbiddenFor(req, why);
  }

  /** Ephemeral containers are added to a running pod: its account must exist and allow their secrets. */
  private checkEphemeral(req: AdmissionRequest): void | Promise<void> {
    const spec = specOf(req.object);
    if (!spec) return;
    const name = accountName(spec);
    if (name === '') throw forbiddenFor(req, `no service account specified for pod ${req.namespace}/${req.name}`);
    return andThen(this.account(req, name), (sa) => {
      if (!enforcesMountableSecrets(sa)) return;
      const saName = String(sa.metadata?.name ?? name);
      const why = envSecretNotListed(objectsIn(spec.ephemeralContainers), mountableSecretNames(sa.secrets), 'ephemeral container', saName);
      if (why) throw forbiddenFor(req, why);
    });
  }

  /** The account from the watch cache when it holds it (no await), else from storage. */
  private account(req: AdmissionRequest, name: string): ApiObject | Promise<ApiObject> {
    const cached = this.objects.peek?.('', 'serviceaccounts', req.namespace, name);
    if (cached) return cached;
    return this.objects.get('', 'serviceaccounts', req.namespace, name).then((sa) => {
      if (sa) return sa;
      if (name === DEFAULT_SERVICE_ACCOUNT && this.opts.assumeDefaultAccount) return IMPLICIT_DEFAULT;
      throw forbiddenFor(req, `error looking up service account ${req.namespace}/${name}: serviceaccount "${name}" not found`);
    });
  }
}

export function serviceAccountPlugin(deps: AdmissionDeps, configuration: unknown): AdmissionPlugin {
  noConfiguration(SERVICE_ACCOUNT, configuration);
  return new ServiceAccountPlugin(deps.objects, { assumeDefaultAccount: true, suffix: randomSuffix });
}
