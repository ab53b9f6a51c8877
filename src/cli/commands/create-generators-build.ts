/**
 * Pure builders of the objects `orchctl create <kind>` generates: the fields, defaults and checks of the
 * reference client's generators, and the content hash of `--append-hash`.
 */
import { createHash, createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';
import { LABEL_DOMAIN, RBAC_GROUP } from '../../api/naming.js';
import type { KubeObject } from '../../client/index.js';
import { dataKeyProblems, isUtf8, type DataEntry } from './create-generators-sources.js';

/** The reference's secret types with the maker token, spelled through the naming. */
export const TLS_SECRET_TYPE = `${LABEL_DOMAIN}/tls`;
export const DOCKER_CONFIG_JSON_SECRET_TYPE = `${LABEL_DOMAIN}/dockerconfigjson`;
export const DOCKER_CONFIG_JSON_KEY = '.dockerconfigjson';
export const DEFAULT_DOCKER_SERVER = 'https://index.docker.io/v1/';

const meta = (name: string, namespace: string | undefined) => (namespace ? { name, namespace } : { name });

function checkKey(key: string, kind: 'ConfigMap' | 'Secret'): void {
  const problems = dataKeyProblems(key);
  if (problems.length > 0) throw new Error(`"${key}" is not a valid key name for a ${kind}: ${problems.join('; ')}`);
}

export function buildConfigMap(name: string, namespace: string | undefined, entries: DataEntry[]): KubeObject {
  const data: Record<string, string> = {};
  const binaryData: Record<string, string> = {};
  for (const { key, value } of entries) {
    checkKey(key, 'ConfigMap');
    if (key in data || key in binaryData) throw new Error(`cannot add key "${key}": ConfigMap "${name}" already has a key of that name`);
    if (isUtf8(value)) data[key] = value.toString('utf8');
    else binaryData[key] = value.toString('base64');
  }
  const cm: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta(name, namespace), data };
  if (Object.keys(binaryData).length > 0) cm.binaryData = binaryData;
  return cm;
}

/** `data` of a Secret (base64 values) from entries; duplicate keys are an error. */
export function secretData(name: string, entries: DataEntry[]): Record<string, string> {
  const data: Record<string, string> = {};
  for (const { key, value } of entries) {
    checkKey(key, 'Secret');
    if (key in data) throw new Error(`cannot add key "${key}": Secret "${name}" already has a key of that name`);
    data[key] = value.toString('base64');
  }
  return data;
}

export function buildGenericSecret(name: string, namespace: string | undefined, entries: DataEntry[], type?: string): KubeObject {
  const secret: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata: meta(name, namespace), data: secretData(name, entries) };
  if (type) secret.type = type;
  return secret;
}

/** Checks that the key belongs to the certificate (the reference loads them as a pair). */
export function checkKeyPair(certPem: Buffer, keyPem: Buffer): void {
  try {
    const cert = new X509Certificate(certPem);
    const fromCert = cert.publicKey.export({ type: 'spki', format: 'der' });
    const fromKey = createPublicKey(createPrivateKey(keyPem)).export({ type: 'spki', format: 'der' });
    if (!fromCert.equals(fromKey)) throw new Error('the private key does not match the certificate');
  } catch (e) {
    throw new Error(`failed to load key pair: ${(e as Error).message}`);
  }
}

export function buildTlsSecret(name: string, namespace: string | undefined, certPem: Buffer, keyPem: Buffer): KubeObject {
  checkKeyPair(certPem, keyPem);
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: meta(name, namespace),
    type: TLS_SECRET_TYPE,
    data: { 'tls.crt': certPem.toString('base64'), 'tls.key': keyPem.toString('base64') },
  };
}

export interface DockerFlags {
  dockerServer: string;
  dockerUsername?: string;
  dockerPassword?: string;
  dockerEmail?: string;
}

/** `.dockerconfigjson` as the reference writes it (field order, empty fields left out, Go's JSON escaping). */
export function dockerConfigJson(f: DockerFlags): string {
  const entry: Record<string, string> = {};
  if (f.dockerUsername) entry.username = f.dockerUsername;
  if (f.dockerPassword) entry.password = f.dockerPassword;
  if (f.dockerEmail) entry.email = f.dockerEmail;
  const auth = Buffer.from(`${f.dockerUsername ?? ''}:${f.dockerPassword ?? ''}`).toString('base64');
  entry.auth = auth;
  return goJson({ auths: { [f.dockerServer]: entry } }, false);
}

export function buildDockerRegistrySecret(name: string, namespace: string | undefined, files: DataEntry[], f: DockerFlags): KubeObject {
  if (files.length === 0 && (!f.dockerUsername || !f.dockerPassword || !f.dockerServer)) {
    throw new Error('either --from-file or all of --docker-username, --docker-password and --docker-server are required');
  }
  const data = files.length > 0 ? secretData(name, files) : { [DOCKER_CONFIG_JSON_KEY]: Buffer.from(dockerConfigJson(f)).toString('base64') };
  return { apiVersion: 'v1', kind: 'Secret', metadata: meta(name, namespace), type: DOCKER_CONFIG_JSON_SECRET_TYPE, data };
}

/**
 * Go's encoding/json text of a JSON value: object keys in byte order (when `sortKeys`; else as given), and
 * `<`, `>`, `&`, U+2028 and U+2029 escaped. The reference hashes this text, so it must match byte for byte.
 */
export function goJson(value: unknown, sortKeys = true): string {
  const text = (v: unknown): string => {
    if (v === null || v === undefined) return 'null';
    if (Array.isArray(v)) return `[${v.map(text).join(',')}]`;
    if (typeof v === 'object') {
      const keys = Object.keys(v as object);
      if (sortKeys) keys.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
      return `{${keys.map((k) => `${JSON.stringify(k)}:${text((v as Record<string, unknown>)[k])}`).join(',')}}`;
    }
    return JSON.stringify(v);
  };
  return text(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The reference's hash suffix: the first ten hex digits of the SHA-256, with vowel-like digits swapped out. */
export function encodeHash(hex: string): string {
  const swap: Record<string, string> = { '0': 'g', '1': 'h', '3': 'k', a: 'm', e: 't' };
  return [...hex.slice(0, 10)].map((c) => swap[c] ?? c).join('');
}

/** `--append-hash`: the content hash of a ConfigMap or Secret, as the reference computes it. */
export function contentHash(obj: KubeObject): string {
  const m: Record<string, unknown> = { kind: obj.kind, name: obj.metadata.name, data: obj.data ?? null };
  if (obj.kind === 'Secret') m.type = obj.type ?? '';
  if (obj.immutable !== undefined) m.immutable = obj.immutable;
  if (obj.kind === 'ConfigMap' && obj.binaryData && Object.keys(obj.binaryData as object).length > 0) m.binaryData = obj.binaryData;
  return encodeHash(createHash('sha256').update(goJson(m)).digest('hex'));
}

export function withHashSuffix(obj: KubeObject): KubeObject {
  return { ...obj, metadata: { ...obj.metadata, name: `${obj.metadata.name}-${contentHash(obj)}` } };
}

export const buildNamespace = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });

export const buildServiceAccount = (name: string, namespace: string | undefined): KubeObject => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta(name, namespace) });

export interface BindingFlags {
  role?: string;
  clusterrole?: string;
  user?: string[];
  group?: string[];
  serviceaccount?: string[];
}

function subjects(f: BindingFlags): Record<string, string>[] {
  const out: Record<string, string>[] = [];
  for (const name of f.user ?? []) out.push({ kind: 'User', apiGroup: RBAC_GROUP, name });
  for (const name of f.group ?? []) out.push({ kind: 'Group', apiGroup: RBAC_GROUP, name });
  for (const sa of f.serviceaccount ?? []) {
    const parts = sa.split(':');
    if (parts.length !== 2 || !parts[0] || !parts[1]) throw new Error(`--serviceaccount: "${sa}" is not <namespace>:<name>`);
    out.push({ kind: 'ServiceAccount', name: parts[1], namespace: parts[0] });
  }
  return out;
}

export function buildRoleBinding(name: string, namespace: string | undefined, f: BindingFlags): KubeObject {
  if (!f.role === !f.clusterrole) throw new Error('exactly one of --clusterrole or --role must be given');
  const roleRef = f.role ? { apiGroup: RBAC_GROUP, kind: 'Role', name: f.role } : { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: f.clusterrole! };
  const binding: KubeObject = { apiVersion: `${RBAC_GROUP}/v1`, kind: 'RoleBinding', metadata: meta(name, namespace), roleRef };
  const list = subjects(f);
  if (list.length > 0) binding.subjects = list;
  return binding;
}

export function buildClusterRoleBinding(name: string, f: BindingFlags): KubeObject {
  if (!f.clusterrole) throw new Error('--clusterrole is required');
  const binding: KubeObject = { apiVersion: `${RBAC_GROUP}/v1`, kind: 'ClusterRoleBinding', metadata: { name }, roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: f.clusterrole } };
  const list = subjects(f);
  if (list.length > 0) binding.subjects = list;
  return binding;
}
