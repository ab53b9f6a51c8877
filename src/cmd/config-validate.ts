/**
 * Validates any configuration document the project reads (spec 2.12), by its `apiVersion` and `kind`, with
 * the same parser the component uses at start-up. It lives in cmd/ because it reaches into the admission,
 * authn, authz, audit, encryption, egress and tracing modules, which config/ must not import.
 * A YAML file may hold several documents (`---`); each is checked on its own.
 */
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { isObject } from '../api/types.js';
import { ORDERED_PLUGINS } from '../admission/plugins.js';
import { AUTHENTICATION_CONFIG_VERSIONS, AUTHENTICATION_CONFIGURATION_KIND, parseAuthenticationConfiguration } from '../authn/jwt/config.js';
import { AUTHORIZATION_CONFIG_KIND, AUTHORIZATION_CONFIG_VERSIONS, parseAuthorizationConfiguration } from '../authz/config.js';
import {
  ADMISSION_CONFIG_VERSIONS,
  ADMISSION_CONFIGURATION_KIND,
  AUDIT_POLICY_VERSION,
  EGRESS_API_VERSIONS,
  EGRESS_KIND,
  ENCRYPTION_CONFIG_ALIAS,
  ENCRYPTION_CONFIG_KIND,
  ENCRYPTION_CONFIG_VERSION,
  EVENT_RATE_LIMIT_CONFIG_API_VERSION,
  EVENT_RATE_LIMIT_CONFIG_KIND,
  REMOVED_AUDIT_POLICY_VERSIONS,
  TRACING_API_VERSIONS,
  TRACING_KIND,
  parseAdmissionConfiguration,
  parseEgressSelectorConfiguration,
  parseEncryptionConfiguration,
  parseEventRateLimitConfiguration,
  parsePolicy,
  parseTracingConfiguration,
  CONTROLLER_MANAGER_CONFIG_API_VERSION,
  CONTROLLER_MANAGER_CONFIG_KIND,
  PROXY_CONFIG_API_VERSION,
  PROXY_CONFIG_KIND,
  SCHEDULER_CONFIG_API_VERSION,
  SCHEDULER_CONFIG_KIND,
  decodeControllerManagerConfiguration,
  decodeProxyConfiguration,
  decodeSchedulerConfiguration,
} from '../config/index.js';

/** What one document's check found. */
export interface DocumentResult {
  /** 0-based position of the document in its file. */
  index: number;
  kind: string;
  errors: string[];
  warnings: string[];
}

interface Validator {
  kind: string;
  versions: readonly string[];
  /** Versions no longer read: the parser's own message says so, rather than a bare "unsupported". */
  removed?: readonly string[];
  /** Another spelling of apiVersion and kind together that the parser converts. */
  alias?: { readonly apiVersion: string; readonly kind: string };
  /** Checks the document (as parsed `value` and as JSON `text`); returns warnings, throws on errors. */
  check(value: Record<string, unknown>, text: string, source: string): string[];
}

const AUDIT_POLICY_KIND = 'Policy';

/** Every document kind the project reads, with the versions its parser accepts. */
export const VALIDATORS: readonly Validator[] = [
  {
    kind: ADMISSION_CONFIGURATION_KIND,
    versions: ADMISSION_CONFIG_VERSIONS,
    check(_value, text, source) {
      const dir = source === '' ? process.cwd() : dirname(resolve(source));
      const plugins = parseAdmissionConfiguration(text, dir, (n) => ORDERED_PLUGINS.includes(n));
      // The one plugin whose document can be checked without a running server behind it.
      if (plugins.has('EventRateLimit')) parseEventRateLimitConfiguration(plugins.get('EventRateLimit'));
      return [];
    },
  },
  { kind: EVENT_RATE_LIMIT_CONFIG_KIND, versions: [EVENT_RATE_LIMIT_CONFIG_API_VERSION], check: (value) => (parseEventRateLimitConfiguration(value), []) },
  {
    kind: ENCRYPTION_CONFIG_KIND,
    versions: [ENCRYPTION_CONFIG_VERSION],
    alias: ENCRYPTION_CONFIG_ALIAS,
    check: (_v, text) => (parseEncryptionConfiguration(text), []),
  },
  {
    kind: AUTHENTICATION_CONFIGURATION_KIND,
    versions: AUTHENTICATION_CONFIG_VERSIONS,
    check: (_v, text) => (parseAuthenticationConfiguration(text, { disallowedIssuers: [] }), []),
  },
  { kind: AUTHORIZATION_CONFIG_KIND, versions: AUTHORIZATION_CONFIG_VERSIONS, check: (_v, text) => (parseAuthorizationConfiguration(text), []) },
  { kind: AUDIT_POLICY_KIND, versions: [AUDIT_POLICY_VERSION], removed: REMOVED_AUDIT_POLICY_VERSIONS, check: (_v, text, source) => parsePolicy(text, source).warnings },
  { kind: EGRESS_KIND, versions: EGRESS_API_VERSIONS, check: (_v, text) => (parseEgressSelectorConfiguration(text, '', existsSync), []) },
  { kind: TRACING_KIND, versions: TRACING_API_VERSIONS, check: (_v, text) => (parseTracingConfiguration(text, ''), []) },
  { kind: SCHEDULER_CONFIG_KIND, versions: [SCHEDULER_CONFIG_API_VERSION], check: (value) => problemsOf((p) => decodeSchedulerConfiguration(value, {}, p)) },
  { kind: PROXY_CONFIG_KIND, versions: [PROXY_CONFIG_API_VERSION], check: (value) => problemsOf((p) => decodeProxyConfiguration(value, {}, p)) },
  {
    kind: CONTROLLER_MANAGER_CONFIG_KIND,
    versions: [CONTROLLER_MANAGER_CONFIG_API_VERSION],
    check: (value) => problemsOf((p) => decodeControllerManagerConfiguration(value, p)),
  },
];

/** Runs a collecting decoder; its problems become a thrown list, so every validator reports the same way. */
function problemsOf(decode: (problems: string[]) => unknown): string[] {
  const problems: string[] = [];
  decode(problems);
  if (problems.length > 0) throw new ProblemList(problems);
  return [];
}

class ProblemList extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
  }
}

/** The validator for a document's type, or a message saying why there is none. */
export function validatorFor(apiVersion: unknown, kind: unknown): Validator | string {
  if (typeof kind !== 'string' || kind === '') return 'kind: Required value: every configuration document names its kind';
  if (typeof apiVersion !== 'string' || apiVersion === '') return 'apiVersion: Required value: every configuration document names its apiVersion';
  const aliased = VALIDATORS.find((v) => v.alias?.kind === kind && v.alias.apiVersion === apiVersion);
  if (aliased) return aliased;
  const sameKind = VALIDATORS.filter((v) => v.kind === kind);
  if (sameKind.length === 0) {
    return `kind: Unsupported value: ${JSON.stringify(kind)}: supported values: ${[...new Set(VALIDATORS.map((v) => v.kind))].map((k) => JSON.stringify(k)).join(', ')}`;
  }
  const found = sameKind.find((v) => v.versions.includes(apiVersion) || v.removed?.includes(apiVersion));
  if (found) return found;
  const versions = sameKind.flatMap((v) => v.versions);
  return `apiVersion: Unsupported value: ${JSON.stringify(apiVersion)}: supported values for ${kind}: ${versions.map((v) => JSON.stringify(v)).join(', ')}`;
}

/**
 * Checks every document of `text` (YAML or JSON; `---` separates documents). `source` is the file name,
 * used to resolve relative paths inside the documents.
 */
export function validateDocument(text: string, source: string): DocumentResult[] {
  const parsed = parseAllDocuments(text, { version: '1.1', uniqueKeys: true });
  const list = Array.isArray(parsed) ? parsed : [parsed];
  const docs = list.map((doc) => ({ errors: doc.errors.map((e) => e.message.split('\n')[0]!), value: doc.errors.length > 0 ? undefined : (doc.toJS() as unknown) }));
  // A file ending in `---` has an empty last document: it holds nothing to check. An empty file holds one.
  if (docs.length > 1 && docs[docs.length - 1]!.errors.length === 0 && docs[docs.length - 1]!.value == null) docs.pop();
  if (docs.length === 0) docs.push({ errors: [], value: null });
  const results: DocumentResult[] = [];
  docs.forEach(({ errors, value }, index) => {
    const result: DocumentResult = { index, kind: '', errors: [], warnings: [] };
    results.push(result);
    if (errors.length > 0) {
      result.errors.push(...errors.map((e) => `not valid YAML or JSON: ${e}`));
      return;
    }
    if (value === null || value === undefined) {
      result.errors.push('the document is empty');
      return;
    }
    if (!isObject(value)) {
      result.errors.push('the document must be an object with apiVersion and kind');
      return;
    }
    const validator = validatorFor(value.apiVersion, value.kind);
    if (typeof validator === 'string') {
      result.kind = typeof value.kind === 'string' ? value.kind : '';
      result.errors.push(validator);
      return;
    }
    result.kind = validator.kind;
    try {
      result.warnings.push(...validator.check(value, JSON.stringify(value), source));
    } catch (e) {
      result.errors.push(...errorLines(e, source));
    }
  });
  return results;
}

/** The problems of a parser's error, one per line, without the flag-and-file prefix some parsers add. */
function errorLines(e: unknown, source: string): string[] {
  if (!(e instanceof Error)) return [String(e)];
  const problems = (e as { problems?: unknown }).problems;
  if (Array.isArray(problems) && problems.every((p) => typeof p === 'string')) return problems;
  let message = e.message;
  for (const prefix of [`--audit-policy-file ${source}: `, ': ']) {
    if (message.startsWith(prefix)) message = message.slice(prefix.length);
  }
  // The parsers without a problem list join their problems with "; ".
  return message.split('; ');
}
