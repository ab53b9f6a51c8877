/**
 * ImagePolicyWebhook's configuration: an `imagePolicy` section (`kubeConfigFile`, `allowTTL`, `denyTTL`,
 * `retryBackoff`, `defaultAllow`) and the kubeconfig file it names, which says where the backend is and how
 * to reach it (server URL, CA, client certificate, token or basic credentials). Checked at start-up; every
 * problem names its field.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { isObject } from '../api/types.js';
import { loadWebhookKubeconfig, type WebhookConnection } from '../util/webhook-kubeconfig.js';
import { PluginConfigurationError } from './plugin-error.js';

export interface ImagePolicySettings {
  readonly backend: BackendConnection;
  /** How long answers are remembered; 0 remembers nothing. */
  readonly allowTtlMs: number;
  readonly denyTtlMs: number;
  /** Wait before the one retry of a failed call. */
  readonly retryBackoffMs: number;
  /** Whether a request is let through when the backend cannot give an answer. */
  readonly defaultAllow: boolean;
}

export type BackendConnection = WebhookConnection;

/** [field, scale to ms, default, min, max] of the three durations, in the reference's units and ranges. */
const DURATIONS = [
  ['allowTTL', 1000, 300_000, 1_000, 1_800_000, 'seconds'],
  ['denyTTL', 1000, 30_000, 1_000, 1_800_000, 'seconds'],
  ['retryBackoff', 1, 500, 1, 300_000, 'milliseconds'],
] as const;
const SECTION_FIELDS = new Set(['kubeConfigFile', 'allowTTL', 'denyTTL', 'retryBackoff', 'defaultAllow']);
const TOP_FIELDS = new Set(['apiVersion', 'kind', 'imagePolicy']);
export const IMAGE_POLICY_CONFIG_KIND = 'ImagePolicyWebhookConfiguration';

type Read = (path: string) => string;
const readText: Read = (p) => readFileSync(p, 'utf8');

/** The settings of a configuration; `read` reads the kubeconfig and the files it names. */
export function parseImagePolicyConfiguration(raw: unknown, read: Read = readText): ImagePolicySettings {
  if (raw === undefined) throw new PluginConfigurationError('no configuration given: ImagePolicyWebhook needs an imagePolicy section in the AdmissionConfiguration');
  if (!isObject(raw)) throw new PluginConfigurationError('the configuration must be an object with an imagePolicy section');
  const errs: string[] = [];
  for (const k of Object.keys(raw)) if (!TOP_FIELDS.has(k)) errs.push(`${k}: unknown field`);
  if (raw.kind !== undefined && raw.kind !== IMAGE_POLICY_CONFIG_KIND) errs.push(`kind: Unsupported value ${JSON.stringify(raw.kind)}: supported values: "${IMAGE_POLICY_CONFIG_KIND}"`);
  if (raw.apiVersion !== undefined && typeof raw.apiVersion !== 'string') errs.push('apiVersion: must be a string');
  const section = raw.imagePolicy;
  if (!isObject(section)) {
    errs.push('imagePolicy: Required value: an object with kubeConfigFile');
    throw new PluginConfigurationError(errs.join(', '));
  }
  for (const k of Object.keys(section)) if (!SECTION_FIELDS.has(k)) errs.push(`imagePolicy.${k}: unknown field`);
  const ms: number[] = [];
  for (const [field, scale, dflt, min, max, unit] of DURATIONS) {
    const v = section[field];
    if (v === undefined || v === null || v === 0) ms.push(dflt);
    else if (v === -1) ms.push(0);
    else if (typeof v !== 'number' || !Number.isInteger(v) || v * scale < min || v * scale > max) {
      errs.push(`imagePolicy.${field}: Invalid value: ${JSON.stringify(v)}: must be ${min / scale} to ${max / scale} ${unit} (0 for the default ${dflt / scale}, -1 to turn it off)`);
      ms.push(0);
    } else ms.push(v * scale);
  }
  const defaultAllow = section.defaultAllow ?? false;
  if (typeof defaultAllow !== 'boolean') errs.push(`imagePolicy.defaultAllow: Invalid value: ${JSON.stringify(defaultAllow)}: must be true or false`);
  const file = section.kubeConfigFile;
  if (typeof file !== 'string' || file === '') errs.push('imagePolicy.kubeConfigFile: Required value');
  if (errs.length > 0) throw new PluginConfigurationError(errs.join(', '));
  const backend = loadBackendKubeconfig(resolve(file as string), read);
  return { backend, allowTtlMs: ms[0]!, denyTtlMs: ms[1]!, retryBackoffMs: ms[2]!, defaultAllow: defaultAllow as boolean };
}

/** The backend connection the kubeconfig file gives, with problems named under `imagePolicy.kubeConfigFile`. */
export function loadBackendKubeconfig(file: string, read: Read = readText): BackendConnection {
  try {
    return loadWebhookKubeconfig(file, { read, at: `imagePolicy.kubeConfigFile (${file})` });
  } catch (e) {
    throw new PluginConfigurationError((e as Error).message);
  }
}
