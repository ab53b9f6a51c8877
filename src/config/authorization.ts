/**
 * The `--authorization-config` document (spec 5.7 item 6, 2.12): an `AuthorizationConfiguration` whose
 * `authorizers[]` list the authorization modules in order. YAML or JSON, read strictly (an unknown field is
 * an error, as the reference's strict decoder makes it). Every problem is collected with its field path;
 * the file is refused as a whole. Webhook kubeconfig files are read here too, so a reload with a broken
 * kubeconfig keeps the previous configuration. Match conditions are CEL, compiled by a hook the authorizer
 * passes in (this layer knows no CEL), so a condition that does not compile is still a field error here.
 */
import { readFileSync, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { AUTHORIZATION_CONFIG_GROUP } from '../api/naming.js';
import { isObject } from '../api/types.js';
import { formatGoDuration, parseGoDuration } from '../util/duration.js';
import { loadWebhookKubeconfig, type WebhookConnection } from '../util/webhook-kubeconfig.js';
import { readableVersions, toCurrentVersion, type VersionTable } from './versions.js';

export const AUTHORIZATION_CONFIG_KIND = 'AuthorizationConfiguration';
/** Release 1.31 reads v1beta1 and v1alpha1, with the same fields. */
export const AUTHORIZATION_VERSION_TABLE: VersionTable = {
  current: `${AUTHORIZATION_CONFIG_GROUP}/v1beta1`,
  older: { [`${AUTHORIZATION_CONFIG_GROUP}/v1alpha1`]: null },
};
/** In the order the reference lists them in its message. */
export const AUTHORIZATION_CONFIG_VERSIONS: readonly string[] = [...readableVersions(AUTHORIZATION_VERSION_TABLE)].reverse();
export const SUBJECT_ACCESS_REVIEW_VERSIONS = ['v1', 'v1beta1'] as const;
export type SubjectAccessReviewVersion = (typeof SUBJECT_ACCESS_REVIEW_VERSIONS)[number];
export const MAX_AUTHORIZATION_MATCH_CONDITIONS = 64;
export type WebhookFailurePolicy = 'NoOpinion' | 'Deny';

/** The module types the reference accepts in the file; only Webhook may appear more than once. */
export const CONFIG_AUTHORIZER_TYPES = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Webhook', 'RBAC', 'Node'] as const;
export type ConfigAuthorizerType = (typeof CONFIG_AUTHORIZER_TYPES)[number];

export const DEFAULT_AUTHORIZED_TTL_MS = 5 * 60_000;
export const DEFAULT_UNAUTHORIZED_TTL_MS = 30_000;
export const MAX_WEBHOOK_TIMEOUT_MS = 30_000;
const FAILURE_POLICIES: readonly WebhookFailurePolicy[] = ['NoOpinion', 'Deny'];
const CONNECTION_TYPES = ['InClusterConfig', 'KubeConfigFile'];

/** One webhook authorizer as the document gives it; `C` is a compiled match condition. */
export interface AuthorizationWebhook<C> {
  name: string;
  connection: WebhookConnection;
  subjectAccessReviewVersion: SubjectAccessReviewVersion;
  authorizedTTLMs: number;
  unauthorizedTTLMs: number;
  timeoutMs: number;
  failurePolicy: WebhookFailurePolicy;
  matchConditions: readonly C[];
}

export type AuthorizerEntryOf<C> =
  | { type: 'Webhook'; name: string; webhook: AuthorizationWebhook<C> }
  | { type: Exclude<ConfigAuthorizerType, 'Webhook'>; name: string };

export interface AuthorizationConfigurationOf<C> {
  authorizers: AuthorizerEntryOf<C>[];
}

/** The file cannot be used; the message lists every problem with its field path. */
export class AuthorizationConfigError extends Error {}

const TOP_FIELDS = new Set(['apiVersion', 'kind', 'authorizers']);
const AUTHORIZER_FIELDS = new Set(['type', 'name', 'webhook']);
const WEBHOOK_FIELDS = new Set([
  'authorizedTTL',
  'unauthorizedTTL',
  'timeout',
  'subjectAccessReviewVersion',
  'matchConditionSubjectAccessReviewVersion',
  'failurePolicy',
  'connectionInfo',
  'matchConditions',
]);
const CONNECTION_FIELDS = new Set(['type', 'kubeConfigFile']);
const CONDITION_FIELDS = new Set(['expression']);
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

const q = (v: unknown) => JSON.stringify(v ?? '');
const supported = (list: readonly string[]) => `supported values: ${list.map((v) => `"${v}"`).join(', ')}`;

/** Reads the file and checks it; throws an AuthorizationConfigError whose message starts with the file name. */
export function loadAuthorizationDocument<C>(file: string, opts: AuthorizationParseOptions<C>): AuthorizationConfigurationOf<C> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new AuthorizationConfigError(`${file}: cannot be read: ${(e as Error).message}`);
  }
  try {
    return parseAuthorizationDocument(text, opts);
  } catch (e) {
    if (e instanceof AuthorizationConfigError) throw new AuthorizationConfigError(`${file}: ${e.message}`);
    throw e;
  }
}

export interface AuthorizationParseOptions<C> {
  /** Reads a webhook's kubeconfig (tests may replace it); `at` names the field for error messages. */
  loadKubeconfig?: (file: string, at: string) => WebhookConnection;
  /** Compiles one match condition; a thrown Error's message becomes the field's problem. */
  compileCondition: (expression: string) => C;
}

/** Parses and checks the document's text. */
export function parseAuthorizationDocument<C>(text: string, opts: AuthorizationParseOptions<C>): AuthorizationConfigurationOf<C> {
  let doc: unknown;
  try {
    doc = toCurrentVersion(parseYaml(text, { version: '1.1', uniqueKeys: true, maxAliasCount: 100 }), AUTHORIZATION_VERSION_TABLE);
  } catch (e) {
    throw new AuthorizationConfigError(`not valid YAML or JSON: ${(e as Error).message.split('\n')[0]}`);
  }
  if (!isObject(doc)) throw new AuthorizationConfigError(`must hold an ${AUTHORIZATION_CONFIG_KIND} object`);
  const errors: string[] = [];
  const unknown = (o: Record<string, unknown>, known: Set<string>, at: string) => {
    for (const k of Object.keys(o)) if (!known.has(k)) errors.push(`${at}${k}: unknown field`);
  };
  unknown(doc, TOP_FIELDS, '');
  if (doc.kind !== AUTHORIZATION_CONFIG_KIND) errors.push(`kind: Unsupported value ${q(doc.kind)}: ${supported([AUTHORIZATION_CONFIG_KIND])}`);
  if (typeof doc.apiVersion !== 'string' || !AUTHORIZATION_CONFIG_VERSIONS.includes(doc.apiVersion)) {
    errors.push(`apiVersion: Unsupported value ${q(doc.apiVersion)}: ${supported(AUTHORIZATION_CONFIG_VERSIONS)}`);
  }
  const list = doc.authorizers;
  const authorizers: AuthorizerEntryOf<C>[] = [];
  if (list === undefined || list === null || (Array.isArray(list) && list.length === 0)) {
    errors.push('authorizers: Required value: at least one authorizer must be defined');
  } else if (!Array.isArray(list)) {
    errors.push('authorizers: must be a list');
  } else {
    const types = new Set<string>();
    const names = new Set<string>();
    list.forEach((entry: unknown, i: number) => {
      const at = `authorizers[${i}]`;
      if (!isObject(entry)) return void errors.push(`${at}: must be an object with type and name`);
      unknown(entry, AUTHORIZER_FIELDS, `${at}.`);
      const type = entry.type;
      if (type === undefined || type === '') return void errors.push(`${at}.type: Required value`);
      if (!(CONFIG_AUTHORIZER_TYPES as readonly unknown[]).includes(type)) {
        return void errors.push(`${at}.type: Unsupported value ${q(type)}: ${supported(CONFIG_AUTHORIZER_TYPES)}`);
      }
      if (types.has(type as string) && type !== 'Webhook') return void errors.push(`${at}.type: Duplicate value: ${q(type)}`);
      types.add(type as string);
      const name = entry.name;
      if (name === undefined || name === '') errors.push(`${at}.name: Required value`);
      else if (typeof name !== 'string') errors.push(`${at}.name: Invalid value ${q(name)}: must be a string`);
      else if (names.has(name)) errors.push(`${at}.name: Duplicate value: ${q(name)}`);
      else if (name.length > 63 || !DNS_LABEL.test(name)) {
        errors.push(`${at}.name: Invalid value ${q(name)}: must be a DNS label (at most 63 lowercase letters, digits or '-', starting and ending with a letter or digit)`);
      }
      if (typeof name === 'string') names.add(name);
      if (type !== 'Webhook') {
        if (entry.webhook !== undefined && entry.webhook !== null) errors.push(`${at}.webhook: Invalid value: may only be set when type is Webhook`);
        authorizers.push({ type: type as Exclude<ConfigAuthorizerType, 'Webhook'>, name: String(name ?? '') });
        return;
      }
      if (!isObject(entry.webhook)) return void errors.push(`${at}.webhook: Required value: required when type is Webhook`);
      const webhook = webhookSettings(String(name ?? ''), entry.webhook, `${at}.webhook`, errors, opts);
      if (webhook) authorizers.push({ type: 'Webhook', name: String(name), webhook });
    });
  }
  if (errors.length > 0) throw new AuthorizationConfigError(errors.join('; '));
  return { authorizers };
}

function webhookSettings<C>(name: string, w: Record<string, unknown>, at: string, errors: string[], opts: AuthorizationParseOptions<C>): AuthorizationWebhook<C> | undefined {
  const before = errors.length;
  for (const k of Object.keys(w)) if (!WEBHOOK_FIELDS.has(k)) errors.push(`${at}.${k}: unknown field`);
  const duration = (field: string): number | undefined => {
    const v = w[field];
    if (v === undefined || v === null) return 0;
    const ms = typeof v === 'string' ? parseGoDuration(v) : undefined;
    if (ms === undefined) errors.push(`${at}.${field}: Invalid value ${q(v)}: must be a duration such as 30s or 5m0s`);
    return ms;
  };
  const timeoutMs = duration('timeout');
  if (timeoutMs === 0) errors.push(`${at}.timeout: Required value`);
  else if (timeoutMs !== undefined && (timeoutMs < 0 || timeoutMs > MAX_WEBHOOK_TIMEOUT_MS)) {
    errors.push(`${at}.timeout: Invalid value ${q(formatGoDuration(timeoutMs))}: must be > 0s and <= 30s`);
  }
  // Zero (or absent) takes the default, as the reference's defaulting does.
  const ttl = (field: string, fallback: number): number | undefined => {
    const ms = duration(field);
    if (ms !== undefined && ms < 0) errors.push(`${at}.${field}: Invalid value ${q(formatGoDuration(ms))}: must be > 0s`);
    return ms === 0 ? fallback : ms;
  };
  const authorizedTTLMs = ttl('authorizedTTL', DEFAULT_AUTHORIZED_TTL_MS);
  const unauthorizedTTLMs = ttl('unauthorizedTTL', DEFAULT_UNAUTHORIZED_TTL_MS);
  const version = w.subjectAccessReviewVersion;
  if (version === undefined || version === '') errors.push(`${at}.subjectAccessReviewVersion: Required value`);
  else if (!(SUBJECT_ACCESS_REVIEW_VERSIONS as readonly unknown[]).includes(version)) {
    errors.push(`${at}.subjectAccessReviewVersion: Unsupported value ${q(version)}: ${supported(SUBJECT_ACCESS_REVIEW_VERSIONS)}`);
  }
  const mcVersion = w.matchConditionSubjectAccessReviewVersion;
  if (mcVersion === undefined || mcVersion === '') errors.push(`${at}.matchConditionSubjectAccessReviewVersion: Required value`);
  else if (mcVersion !== 'v1') errors.push(`${at}.matchConditionSubjectAccessReviewVersion: Unsupported value ${q(mcVersion)}: ${supported(['v1'])}`);
  const policy = w.failurePolicy;
  if (policy === undefined || policy === '') errors.push(`${at}.failurePolicy: Required value`);
  else if (!FAILURE_POLICIES.includes(policy as WebhookFailurePolicy)) errors.push(`${at}.failurePolicy: Unsupported value ${q(policy)}: ${supported(FAILURE_POLICIES)}`);
  const connection = connectionOf(w.connectionInfo, `${at}.connectionInfo`, errors, opts);
  const matchConditions = conditionsOf(w.matchConditions, `${at}.matchConditions`, errors, opts.compileCondition);
  if (errors.length > before) return undefined;
  return {
    name,
    connection: connection!,
    subjectAccessReviewVersion: version as SubjectAccessReviewVersion,
    authorizedTTLMs: authorizedTTLMs!,
    unauthorizedTTLMs: unauthorizedTTLMs!,
    timeoutMs: timeoutMs!,
    failurePolicy: policy as WebhookFailurePolicy,
    matchConditions,
  };
}

function connectionOf<C>(c: unknown, at: string, errors: string[], opts: AuthorizationParseOptions<C>): WebhookConnection | undefined {
  if (c === undefined || c === null) return void errors.push(`${at}.type: Required value`);
  if (!isObject(c)) return void errors.push(`${at}: must be an object with type and kubeConfigFile`);
  for (const k of Object.keys(c)) if (!CONNECTION_FIELDS.has(k)) errors.push(`${at}.${k}: unknown field`);
  const file = c.kubeConfigFile;
  if (c.type === undefined || c.type === '') return void errors.push(`${at}.type: Required value`);
  if (c.type === 'InClusterConfig') {
    if (file !== undefined && file !== null) errors.push(`${at}.kubeConfigFile: Invalid value ${q(file)}: can only be set when type is KubeConfigFile`);
    // The in-cluster connection would reach this very server, which hosts the review API itself.
    return void errors.push(`${at}.type: Invalid value "InClusterConfig": not supported by the API server itself (it would call its own review API); use KubeConfigFile`);
  }
  if (c.type !== 'KubeConfigFile') return void errors.push(`${at}.type: Unsupported value ${q(c.type)}: ${supported(CONNECTION_TYPES)}`);
  if (file === undefined || file === null || file === '') return void errors.push(`${at}.kubeConfigFile: Required value: required when type is KubeConfigFile`);
  if (typeof file !== 'string' || !isAbsolute(file)) return void errors.push(`${at}.kubeConfigFile: Invalid value ${q(file)}: must be an absolute path`);
  try {
    if (!statSync(file).isFile()) return void errors.push(`${at}.kubeConfigFile: Invalid value ${q(file)}: must be a regular file`);
  } catch (e) {
    return void errors.push(`${at}.kubeConfigFile: Invalid value ${q(file)}: cannot be read: ${(e as Error).message}`);
  }
  const where = `${at}.kubeConfigFile (${file})`;
  try {
    return (opts.loadKubeconfig ?? ((f, w) => loadWebhookKubeconfig(f, { at: w })))(file, where);
  } catch (e) {
    return void errors.push((e as Error).message);
  }
}

function conditionsOf<C>(list: unknown, at: string, errors: string[], compile: (expression: string) => C): C[] {
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) return void errors.push(`${at}: must be a list`), [];
  if (list.length > MAX_AUTHORIZATION_MATCH_CONDITIONS) {
    return void errors.push(`${at}: Too many: ${list.length}: must have at most ${MAX_AUTHORIZATION_MATCH_CONDITIONS} items`), [];
  }
  const seen = new Set<string>();
  const out: C[] = [];
  list.forEach((c: unknown, i: number) => {
    const path = `${at}[${i}].expression`;
    if (!isObject(c)) return void errors.push(`${at}[${i}]: must be an object with an expression`);
    for (const k of Object.keys(c)) if (!CONDITION_FIELDS.has(k)) errors.push(`${at}[${i}].${k}: unknown field`);
    const expr = c.expression;
    if (typeof expr !== 'string' || expr.trim() === '') return void errors.push(`${path}: Required value`);
    if (seen.has(expr)) return void errors.push(`${path}: Duplicate value: ${q(expr)}`);
    seen.add(expr);
    try {
      out.push(compile(expr));
    } catch (e) {
      errors.push(`${path}: Invalid value ${q(expr)}: ${(e as Error).message}`);
    }
  });
  return out;
}
