/**
 * The `--encryption-provider-config` document (spec 2.12): an `EncryptionConfiguration` listing, per group of
 * resources, the providers that seal values at rest. YAML or JSON, read strictly (an unknown field, and so an
 * unknown provider, is an error with its path). Every problem is collected with its field path and the file
 * is refused as a whole; the rules and messages follow the reference's validation.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { ENCRYPTION_CONFIG_GROUP, EVENTS_GROUP } from '../api/naming.js';
import { isObject } from '../api/types.js';
import { parseGoDuration } from '../util/duration.js';

export const ENCRYPTION_CONFIG_KIND = 'EncryptionConfiguration';
export const ENCRYPTION_CONFIG_VERSION = `${ENCRYPTION_CONFIG_GROUP}/v1`;
/** The reference also reads the kind `EncryptionConfig` in the core `v1` (once printed in its docs by mistake). */
export const ENCRYPTION_CONFIG_ALIAS = { apiVersion: 'v1', kind: 'EncryptionConfig' } as const;
export const DEFAULT_KMS_TIMEOUT_MS = 3000;
export const DEFAULT_KMS_V1_CACHE_SIZE = 1000;

export type KeyedProviderType = 'aesgcm' | 'aescbc' | 'secretbox';
export const KEY_SIZES: Readonly<Record<KeyedProviderType, readonly number[]>> = {
  aesgcm: [16, 24, 32],
  aescbc: [32],
  secretbox: [32],
};

/** One kms provider entry, defaulted. */
export interface KmsProviderConfig {
  readonly apiVersion: 'v1' | 'v2';
  readonly name: string;
  /** Unix socket path taken from `unix:///path`. */
  readonly endpoint: string;
  readonly timeoutMs: number;
  /** v1 only: DEK cache size; 0 or less disables the cache. */
  readonly cachesize?: number;
}

export interface ProviderKey {
  readonly name: string;
  readonly secret: Uint8Array;
}

export type ProviderSpec =
  | { readonly type: KeyedProviderType; readonly keys: readonly ProviderKey[] }
  | { readonly type: 'identity' }
  | { readonly type: 'kms'; readonly kms: KmsProviderConfig };

/** One `resources[]` entry: resource names as written (`secrets`, `deployments.apps`, `*.`, `*.*`). */
export interface ResourceRule {
  readonly resources: readonly string[];
  readonly providers: readonly ProviderSpec[];
}

export interface EncryptionConfiguration {
  readonly resources: readonly ResourceRule[];
}

/** The file cannot be used; the message lists every problem with its field path. */
export class EncryptionConfigError extends Error {}

/** A resource name split as the reference splits it: at the first dot, the rest is the group. */
export interface GroupResource {
  readonly group: string;
  readonly resource: string;
}

export function parseGroupResource(name: string): GroupResource {
  const dot = name.indexOf('.');
  return dot < 0 ? { group: '', resource: name } : { group: name.slice(dot + 1), resource: name.slice(0, dot) };
}

/** The written form of a group-resource, as messages and the lookup use it (`*.` for all of the core group). */
export function groupResourceText(gr: GroupResource): string {
  if (gr.group === '') return gr.resource === '*' ? '*.' : gr.resource;
  return `${gr.resource}.${gr.group}`;
}

const TOP_FIELDS = new Set(['apiVersion', 'kind', 'resources']);
const RULE_FIELDS = new Set(['resources', 'providers']);
const PROVIDER_TYPES = ['aesgcm', 'aescbc', 'secretbox', 'identity', 'kms'] as const;
const KEYED_FIELDS = new Set(['keys']);
const KEY_FIELDS = new Set(['name', 'secret']);
const KMS_FIELDS = new Set(['apiVersion', 'name', 'endpoint', 'cachesize', 'timeout']);
/** Resources kept in storage without a REST API of their own: nothing could rewrite them. */
const NON_REST_RESOURCES = new Set(['apiserveripinfo', 'serviceipallocations', 'servicenodeportallocations']);
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const q = (v: unknown) => JSON.stringify(v ?? '');
const supported = (list: readonly string[]) => `supported values: ${list.map((v) => `"${v}"`).join(', ')}`;

/** Reads and checks the file; throws an EncryptionConfigError whose message starts with the file name. */
export function loadEncryptionConfiguration(file: string, opts: ParseOptions = {}): { config: EncryptionConfiguration; text: string } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new EncryptionConfigError(`${file}: cannot be read: ${(e as Error).message}`);
  }
  try {
    return { config: parseEncryptionConfiguration(text, opts), text };
  } catch (e) {
    if (e instanceof EncryptionConfigError) throw new EncryptionConfigError(`${file}: ${e.message}`);
    throw e;
  }
}

export interface ParseOptions {
  /** Automatic reload is on: KMS v1 names must then be unique too (the reference's rule). */
  reload?: boolean;
  /** The deprecated KMS v1 is allowed (`--feature-gates=KMSv1=true`); off by default since 1.29. */
  kmsV1?: boolean;
}

/** Parses and checks the document's text. */
export function parseEncryptionConfiguration(text: string, opts: ParseOptions = {}): EncryptionConfiguration {
  if (text.trim() === '') throw new EncryptionConfigError('the encryption provider configuration is empty');
  let doc: unknown;
  try {
    doc = parseYaml(text, { version: '1.1', uniqueKeys: true, maxAliasCount: 100 });
  } catch (e) {
    throw new EncryptionConfigError(`not valid YAML or JSON: ${(e as Error).message.split('\n')[0]}`);
  }
  if (!isObject(doc)) throw new EncryptionConfigError(`must hold an ${ENCRYPTION_CONFIG_KIND} object`);
  return checkDocument(toCurrentEncryptionDocument(doc), opts);
}

function checkDocument(doc: Record<string, unknown>, opts: ParseOptions): EncryptionConfiguration {
  const errors: string[] = [];
  unknownFields(doc, TOP_FIELDS, '', errors);
  if (doc.kind !== ENCRYPTION_CONFIG_KIND) errors.push(`kind: Unsupported value ${q(doc.kind)}: ${supported([ENCRYPTION_CONFIG_KIND])}`);
  if (doc.apiVersion !== ENCRYPTION_CONFIG_VERSION) errors.push(`apiVersion: Unsupported value ${q(doc.apiVersion)}: ${supported([ENCRYPTION_CONFIG_VERSION])}`);
  const list = doc.resources;
  const rules: ResourceRule[] = [];
  if (list === undefined || list === null || (Array.isArray(list) && list.length === 0)) {
    errors.push('resources: Required value: at least one resources is required');
  } else if (!Array.isArray(list)) {
    errors.push('resources: Invalid value: must be a list');
  } else {
    const kmsNames = new Set<string>();
    list.forEach((entry: unknown, i: number) => {
      const rule = resourceRule(entry, `resources[${i}]`, kmsNames, opts, errors);
      if (rule) rules.push(rule);
    });
    if (errors.length === 0) checkMasking(rules, errors);
  }
  if (errors.length > 0) throw new EncryptionConfigError(errors.join('; '));
  return { resources: rules };
}

function unknownFields(o: Record<string, unknown>, known: Set<string>, at: string, errors: string[]): void {
  for (const k of Object.keys(o)) if (!known.has(k)) errors.push(`${at}${k}: unknown field`);
}

function resourceRule(entry: unknown, at: string, kmsNames: Set<string>, opts: ParseOptions, errors: string[]): ResourceRule | undefined {
  if (!isObject(entry)) return void errors.push(`${at}: Invalid value: must be an object with resources and providers`);
  const before = errors.length;
  unknownFields(entry, RULE_FIELDS, `${at}.`, errors);
  const names = stringList(entry.resources, `${at}.resources`, errors);
  if (names) {
    checkResourceOverlap(names, `${at}.resources`, errors);
    names.forEach((name, j) => checkResourceName(name, `${at}.resources[${j}]`, errors));
  }
  const providers: ProviderSpec[] = [];
  const list = entry.providers;
  if (list === undefined || list === null || (Array.isArray(list) && list.length === 0)) {
    errors.push(`${at}.providers: Required value: at least one ${at}.providers is required`);
  } else if (!Array.isArray(list)) {
    errors.push(`${at}.providers: Invalid value: must be a list`);
  } else {
    list.forEach((p: unknown, j: number) => {
      const spec = providerSpec(p, `${at}.providers[${j}]`, kmsNames, opts, errors);
      if (spec) providers.push(spec);
    });
  }
  return errors.length > before || !names ? undefined : { resources: names, providers };
}

function stringList(v: unknown, at: string, errors: string[]): string[] | undefined {
  if (v === undefined || v === null || (Array.isArray(v) && v.length === 0)) {
    return void errors.push(`${at}: Required value: at least one ${at} is required`);
  }
  if (!Array.isArray(v)) return void errors.push(`${at}: Invalid value: must be a list of resource names`);
  const bad = v.findIndex((x) => typeof x !== 'string');
  if (bad >= 0) return void errors.push(`${at}[${bad}]: Invalid value ${q(v[bad])}: must be a string`);
  return v as string[];
}

/** The per-name rules of the reference (each name is checked on its own). */
function checkResourceName(name: string, at: string, errors: string[]): void {
  const invalid = (why: string) => errors.push(`${at}: Invalid value ${q(name)}: ${why}`);
  if (name === '') return void invalid('resource name must not be empty');
  if (name !== name.toLowerCase()) return void invalid('resource name should not contain capital letters');
  if (name === '*') return void invalid("use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources");
  if (NON_REST_RESOURCES.has(name)) return void invalid('resources which do not have REST API/s cannot be encrypted');
  const gr = parseGroupResource(name);
  if (gr.group === EVENTS_GROUP) {
    return void invalid(`'*.${EVENTS_GROUP}' objects are stored using the 'events' API group in storage. Use 'events' instead in the config file`);
  }
  if (gr.group === 'extensions') return void invalid("'extensions' group has been removed and cannot be used for encryption");
  if (gr.group === '*' && gr.resource !== '*') return void invalid('encrypting the same resource across groups is not supported');
}

/** Within one entry: a name twice, or a wildcard that covers another name of the same list. */
function checkResourceOverlap(names: readonly string[], at: string, errors: string[]): void {
  if (names.length < 2) return;
  const grs = names.map(parseGroupResource);
  let duplicate = false;
  let overlap = false;
  grs.forEach((a, i) =>
    grs.forEach((b, j) => {
      if (i === j) return;
      if (a.group === b.group && a.resource === b.resource) duplicate = true;
      else if ((a.group === '*' && a.resource === '*') || (a.group === b.group && (a.resource === '*' || b.resource === '*'))) overlap = true;
    }),
  );
  const list = q(names);
  if (duplicate) errors.push(`${at}: Invalid value ${list}: the same resource cannot be specified multiple times`);
  if (overlap) {
    errors.push(`${at}: Invalid value ${list}: using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked`);
  }
}

/** Across entries: a name after `*.<group>` of its group, or after `*.*`, could never take effect. */
function checkMasking(rules: readonly ResourceRule[], errors: string[]): void {
  const seen = new Set<string>();
  rules.forEach((rule, i) => {
    rule.resources.forEach((name, j) => {
      const gr = parseGroupResource(name);
      const groupWide = groupResourceText({ group: gr.group, resource: '*' });
      const masker = seen.has(groupWide) ? groupWide : seen.has('*.*') ? '*.*' : undefined;
      if (masker) errors.push(`resources[${i}].resources[${j}]: Invalid value ${q(name)}: resource ${q(groupResourceText(gr))} is masked by earlier rule ${q(masker)}`);
    });
    // Added after the entry's own names are checked: an entry never masks itself.
    for (const name of rule.resources) seen.add(groupResourceText(parseGroupResource(name)));
  });
}

function providerSpec(p: unknown, at: string, kmsNames: Set<string>, opts: ParseOptions, errors: string[]): ProviderSpec | undefined {
  if (!isObject(p)) return void errors.push(`${at}: Invalid value: must be an object naming one provider`);
  const known = Object.keys(p).filter((k) => (PROVIDER_TYPES as readonly string[]).includes(k) && p[k] !== null && p[k] !== undefined);
  for (const k of Object.keys(p)) {
    if (!(PROVIDER_TYPES as readonly string[]).includes(k)) errors.push(`${at}.${k}: unknown field: not a provider (${supported(PROVIDER_TYPES)})`);
  }
  if (known.length === 0) {
    return void errors.push(`${at}: Invalid value: provider does not contain any of the expected providers: ${PROVIDER_TYPES.join(', ')}`);
  }
  if (known.length > 1) {
    return void errors.push(`${at}: Invalid value: more than one provider specified in a single element, should split into different list elements`);
  }
  const type = known[0] as (typeof PROVIDER_TYPES)[number];
  const body = p[type];
  if (!isObject(body)) return void errors.push(`${at}.${type}: Invalid value: must be an object`);
  if (type === 'identity') {
    unknownFields(body, new Set(), `${at}.identity.`, errors);
    return { type };
  }
  if (type === 'kms') {
    const kms = kmsConfig(body, `${at}.kms`, kmsNames, opts, errors);
    return kms ? { type, kms } : undefined;
  }
  const keys = providerKeys(body, `${at}.${type}`, KEY_SIZES[type], errors);
  return keys ? { type, keys } : undefined;
}

function providerKeys(body: Record<string, unknown>, at: string, sizes: readonly number[], errors: string[]): ProviderKey[] | undefined {
  const before = errors.length;
  unknownFields(body, KEYED_FIELDS, `${at}.`, errors);
  const list = body.keys;
  if (list === undefined || list === null || (Array.isArray(list) && list.length === 0)) {
    return void errors.push(`${at}.keys: Required value: at least one ${at}.keys is required`);
  }
  if (!Array.isArray(list)) return void errors.push(`${at}.keys: Invalid value: must be a list`);
  const keys: ProviderKey[] = [];
  list.forEach((k: unknown, i: number) => {
    const kat = `${at}.keys[${i}]`;
    if (!isObject(k)) return void errors.push(`${kat}: Invalid value: must be an object with name and secret`);
    unknownFields(k, KEY_FIELDS, `${kat}.`, errors);
    if (k.name === undefined || k.name === null || k.name === '') errors.push(`${kat}.name: Required value: name is a mandatory field for a key`);
    else if (typeof k.name !== 'string') errors.push(`${kat}.name: Invalid value ${q(k.name)}: must be a string`);
    if (k.secret === undefined || k.secret === null || k.secret === '') {
      return void errors.push(`${kat}.secret: Required value: secret is a mandatory field for a key`);
    }
    // The secret never appears in a message, as in the reference.
    if (typeof k.secret !== 'string' || !BASE64.test(k.secret)) return void errors.push(`${kat}.secret: Invalid value "REDACTED": secrets must be base64 encoded`);
    const secret = new Uint8Array(Buffer.from(k.secret, 'base64'));
    if (!sizes.includes(secret.length)) {
      return void errors.push(`${kat}.secret: Invalid value "REDACTED": secret is not of the expected length, got ${secret.length}, expected one of [${sizes.join(' ')}]`);
    }
    if (typeof k.name === 'string' && k.name !== '') keys.push({ name: k.name, secret });
  });
  return errors.length > before ? undefined : keys;
}

function kmsConfig(body: Record<string, unknown>, at: string, kmsNames: Set<string>, opts: ParseOptions, errors: string[]): KmsProviderConfig | undefined {
  const before = errors.length;
  unknownFields(body, KMS_FIELDS, `${at}.`, errors);
  const apiVersion = body.apiVersion === undefined || body.apiVersion === null || body.apiVersion === '' ? 'v1' : body.apiVersion;
  if (apiVersion !== 'v1' && apiVersion !== 'v2') {
    errors.push(`${at}.apiVersion: Invalid value ${q(apiVersion)}: unsupported apiVersion ${String(apiVersion)} for KMS provider, only v1 and v2 are supported`);
  }
  if (apiVersion === 'v1' && !opts.kmsV1) {
    errors.push(`${at}.apiVersion: Invalid value "v1": KMS v1 is deprecated and only kept for existing data; use v2, or set --feature-gates=KMSv1=true to use v1`);
  }
  const name = body.name;
  if (name === undefined || name === null || name === '') errors.push(`${at}.name: Required value: name is a mandatory field for a provider`);
  else if (typeof name !== 'string') errors.push(`${at}.name: Invalid value ${q(name)}: must be a string`);
  else {
    if (apiVersion !== 'v1' && name.includes(':')) errors.push(`${at}.name: Invalid value ${q(name)}: invalid KMS provider name ${name}, must not contain ':'`);
    if ((opts.reload || apiVersion !== 'v1') && kmsNames.has(name)) {
      errors.push(`${at}.name: Invalid value ${q(name)}: duplicate KMS provider name ${name}, names must be unique`);
    }
    kmsNames.add(name);
  }
  let timeoutMs = DEFAULT_KMS_TIMEOUT_MS;
  if (body.timeout !== undefined && body.timeout !== null) {
    const ms = typeof body.timeout === 'string' ? parseGoDuration(body.timeout) : undefined;
    if (ms === undefined) errors.push(`${at}.timeout: Invalid value ${q(body.timeout)}: must be a duration such as 3s or 500ms`);
    else if (ms <= 0) errors.push(`${at}.timeout: Invalid value ${q(body.timeout)}: timeout should be a positive value`);
    else timeoutMs = ms;
  }
  const endpoint = socketPath(body.endpoint, `${at}.endpoint`, errors);
  let cachesize: number | undefined;
  if (body.cachesize !== undefined && body.cachesize !== null) {
    if (apiVersion !== 'v1') errors.push(`${at}.cachesize: Invalid value ${q(body.cachesize)}: cachesize is not supported in v2`);
    else if (typeof body.cachesize !== 'number' || !Number.isInteger(body.cachesize)) errors.push(`${at}.cachesize: Invalid value ${q(body.cachesize)}: must be an integer`);
    else if (body.cachesize === 0) errors.push(`${at}.cachesize: Invalid value 0: cachesize should be a positive value, or negative to disable`);
    else cachesize = body.cachesize;
  } else if (apiVersion === 'v1') cachesize = DEFAULT_KMS_V1_CACHE_SIZE;
  if (errors.length > before) return undefined;
  return { apiVersion: apiVersion as 'v1' | 'v2', name: name as string, endpoint: endpoint!, timeoutMs, ...(cachesize !== undefined ? { cachesize } : {}) };
}

/** `unix:///path/to/socket` → the path: KMS plugins are reached over a Unix socket only. */
function socketPath(v: unknown, at: string, errors: string[]): string | undefined {
  if (v === undefined || v === null || v === '') return void errors.push(`${at}: Invalid value "": endpoint is a mandatory field for a kms`);
  if (typeof v !== 'string') return void errors.push(`${at}: Invalid value ${q(v)}: must be a string`);
  let url: URL;
  try {
    url = new URL(v);
  } catch (e) {
    return void errors.push(`${at}: Invalid value ${q(v)}: invalid endpoint for kms provider, error: ${(e as Error).message}`);
  }
  const scheme = url.protocol.replace(/:$/, '');
  if (scheme !== 'unix') return void errors.push(`${at}: Invalid value ${q(v)}: unsupported scheme ${q(scheme)} for KMS provider, only unix is supported`);
  const path = decodeURIComponent(url.host + url.pathname);
  if (path === '') return void errors.push(`${at}: Invalid value ${q(v)}: must name a socket path, as in unix:///var/run/kms.sock`);
  return path;
}

/** The alias spelling converted to the current apiVersion and kind; any other document unchanged. */
export function toCurrentEncryptionDocument(doc: Record<string, unknown>): Record<string, unknown> {
  if (doc.apiVersion !== ENCRYPTION_CONFIG_ALIAS.apiVersion || doc.kind !== ENCRYPTION_CONFIG_ALIAS.kind) return doc;
  return { ...doc, apiVersion: ENCRYPTION_CONFIG_VERSION, kind: ENCRYPTION_CONFIG_KIND };
}
