/**
 * The audit `Policy` document (`--audit-policy-file`, spec 2.11): parsed and validated once at start-up.
 * Unknown fields are warnings, as in the reference's lenient reading of this file; the audit folder compiles
 * the result into the per-request lookup. Only `v1` is read: the older versions were removed in 1.24.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { AUDIT_GROUP } from '../api/naming.js';

export type AuditLevel = 'None' | 'Metadata' | 'Request' | 'RequestResponse';
export type AuditStage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic';

export const AUDIT_LEVELS: readonly AuditLevel[] = ['None', 'Metadata', 'Request', 'RequestResponse'];
export const AUDIT_STAGES: readonly AuditStage[] = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'];

export const AUDIT_POLICY_VERSION = `${AUDIT_GROUP}/v1`;

export interface GroupResources {
  group: string;
  resources: string[];
  resourceNames: string[];
}

export interface PolicyRule {
  level: AuditLevel;
  users: string[];
  userGroups: string[];
  verbs: string[];
  resources: GroupResources[];
  namespaces: string[];
  nonResourceURLs: string[];
  omitStages: AuditStage[];
  /** Unset: the policy's value applies. */
  omitManagedFields?: boolean;
}

export interface AuditPolicy {
  rules: PolicyRule[];
  omitStages: AuditStage[];
  omitManagedFields: boolean;
  /** Unknown fields: the reference reads such a file leniently and warns, and so does this. */
  warnings: string[];
}

/** Versions the reference once read and removed in release 1.24; naming the removal tells the user what to change. */
export const REMOVED_AUDIT_POLICY_VERSIONS: readonly string[] = [`${AUDIT_GROUP}/v1alpha1`, `${AUDIT_GROUP}/v1beta1`];

/** Reads `--audit-policy-file`; every problem is an Error naming the file and the field path. */
export function loadPolicyFile(file: string): AuditPolicy {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`--audit-policy-file: cannot read ${file}: ${(e as Error).message}`);
  }
  return parsePolicy(text, file);
}

/** Parses a Policy document (YAML or JSON). */
export function parsePolicy(text: string, file: string): AuditPolicy {
  const fail = (msg: string) => new Error(`--audit-policy-file ${file}: ${msg}`);
  let doc: unknown;
  try {
    doc = parseYaml(text, { uniqueKeys: false });
  } catch (e) {
    throw fail(`not valid YAML or JSON: ${(e as Error).message.split('\n')[0]}`);
  }
  if (!isRecord(doc)) throw fail('the file must hold a Policy object');
  if (doc.apiVersion !== AUDIT_POLICY_VERSION) {
    const removed = REMOVED_AUDIT_POLICY_VERSIONS.includes(String(doc.apiVersion))
      ? ` (this version was removed in release 1.24: write ${AUDIT_POLICY_VERSION}, whose fields are the same)`
      : '';
    throw fail(`apiVersion: Unsupported value: ${JSON.stringify(doc.apiVersion ?? '')}: supported values: "${AUDIT_POLICY_VERSION}"${removed}`);
  }
  if (doc.kind !== 'Policy') throw fail(`kind: Unsupported value: ${JSON.stringify(doc.kind ?? '')}: supported values: "Policy"`);
  const errors: string[] = [];
  const warnings: string[] = [];
  unknownFields(doc, POLICY_FIELDS, '', warnings);
  const policy: AuditPolicy = {
    warnings,
    omitStages: stages(doc.omitStages, 'omitStages', errors),
    omitManagedFields: bool(doc.omitManagedFields, 'omitManagedFields', errors) ?? false,
    rules: [],
  };
  if (doc.rules !== undefined && doc.rules !== null && !Array.isArray(doc.rules)) errors.push('rules: Invalid value: must be a list');
  const rules = Array.isArray(doc.rules) ? doc.rules : [];
  rules.forEach((r, i) => {
    const rule = parseRule(r, `rules[${i}]`, errors, warnings);
    if (rule) policy.rules.push(rule);
  });
  if (errors.length > 0) throw fail(errors.join('; '));
  // The reference refuses a policy that could never record anything.
  if (policy.rules.length === 0) throw fail('rules: Required value: a policy needs at least one rule');
  return policy;
}

function parseRule(r: unknown, at: string, errors: string[], warnings: string[]): PolicyRule | undefined {
  if (!isRecord(r)) {
    errors.push(`${at}: Invalid value: must be an object`);
    return undefined;
  }
  unknownFields(r, RULE_FIELDS, `${at}.`, warnings);
  let level: AuditLevel = 'None';
  if (r.level === undefined || r.level === null || r.level === '') errors.push(`${at}.level: Required value`);
  else if (!AUDIT_LEVELS.includes(r.level as AuditLevel)) {
    errors.push(`${at}.level: Unsupported value: ${JSON.stringify(r.level)}: supported values: ${AUDIT_LEVELS.map((l) => `"${l}"`).join(', ')}`);
  } else level = r.level as AuditLevel;
  const rule: PolicyRule = {
    level,
    users: strings(r.users, `${at}.users`, errors),
    userGroups: strings(r.userGroups, `${at}.userGroups`, errors),
    verbs: strings(r.verbs, `${at}.verbs`, errors),
    resources: [],
    namespaces: strings(r.namespaces, `${at}.namespaces`, errors),
    nonResourceURLs: strings(r.nonResourceURLs, `${at}.nonResourceURLs`, errors),
    omitStages: stages(r.omitStages, `${at}.omitStages`, errors),
  };
  const omit = bool(r.omitManagedFields, `${at}.omitManagedFields`, errors);
  if (omit !== undefined) rule.omitManagedFields = omit;
  if (r.resources !== undefined && r.resources !== null && !Array.isArray(r.resources)) errors.push(`${at}.resources: Invalid value: must be a list`);
  (Array.isArray(r.resources) ? r.resources : []).forEach((g, j) => {
    const path = `${at}.resources[${j}]`;
    if (!isRecord(g)) return void errors.push(`${path}: Invalid value: must be an object`);
    unknownFields(g, GROUP_RESOURCES_FIELDS, `${path}.`, warnings);
    const group = g.group === undefined || g.group === null ? '' : g.group;
    if (typeof group !== 'string') return void errors.push(`${path}.group: Invalid value: must be a string`);
    // The core group is ""; others are DNS subdomains (so `apps/v1`, a version, is refused).
    if (group !== '' && !DNS_SUBDOMAIN.test(group)) errors.push(`${path}.group: Invalid value: ${JSON.stringify(group)}: must be a lower case DNS subdomain (an API group, without a version)`);
    const gr = { group, resources: strings(g.resources, `${path}.resources`, errors), resourceNames: strings(g.resourceNames, `${path}.resourceNames`, errors) };
    if (gr.resourceNames.length > 0 && gr.resources.length === 0) errors.push(`${path}.resourceNames: Invalid value: using resource names requires at least one resource`);
    rule.resources.push(gr);
  });
  rule.nonResourceURLs.forEach((url, j) => {
    if (url === '*') return;
    if (!url.startsWith('/')) errors.push(`${at}.nonResourceURLs[${j}]: Invalid value: ${JSON.stringify(url)}: non-resource URL rules must begin with a '/' character`);
    if (url.slice(0, -1).includes('*')) errors.push(`${at}.nonResourceURLs[${j}]: Invalid value: ${JSON.stringify(url)}: non-resource URL wildcards '*' must be the final character of the rule`);
  });
  if (rule.nonResourceURLs.length > 0 && (rule.resources.length > 0 || rule.namespaces.length > 0)) {
    errors.push(`${at}.nonResourceURLs: Invalid value: rules cannot apply to both regular resources and non-resource URLs`);
  }
  return rule;
}

const POLICY_FIELDS = new Set(['apiVersion', 'kind', 'metadata', 'rules', 'omitStages', 'omitManagedFields']);
const RULE_FIELDS = new Set(['level', 'users', 'userGroups', 'verbs', 'resources', 'namespaces', 'nonResourceURLs', 'omitStages', 'omitManagedFields']);
const GROUP_RESOURCES_FIELDS = new Set(['group', 'resources', 'resourceNames']);

function unknownFields(o: Record<string, unknown>, known: ReadonlySet<string>, at: string, warnings: string[]): void {
  for (const k of Object.keys(o)) if (!known.has(k)) warnings.push(`${at}${k}: unknown field, ignored`);
}

const DNS_SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function strings(v: unknown, at: string, errors: string[]): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) {
    errors.push(`${at}: Invalid value: must be a list of strings`);
    return [];
  }
  return v as string[];
}

function stages(v: unknown, at: string, errors: string[]): AuditStage[] {
  const list = strings(v, at, errors);
  list.forEach((s, i) => {
    if (!AUDIT_STAGES.includes(s as AuditStage)) {
      errors.push(`${at}[${i}]: Unsupported value: ${JSON.stringify(s)}: supported values: ${AUDIT_STAGES.map((x) => `"${x}"`).join(', ')}`);
    }
  });
  return list as AuditStage[];
}

function bool(v: unknown, at: string, errors: string[]): boolean | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') {
    errors.push(`${at}: Invalid value: ${JSON.stringify(v)}: must be true or false`);
    return undefined;
  }
  return v;
}
