/**
 * The audit `Policy` (spec 2.11): parsed and validated once at start-up, then compiled into plain lookups so
 * that deciding a request's level costs a few set probes. Rules are tried in order; the first rule whose
 * every field matches decides; no match means level None.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { AUDIT_GROUP } from '../api/naming.js';
import { AUDIT_LEVELS, AUDIT_STAGES, type AuditLevel, type AuditStage } from './types.js';

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

/** What a request is matched on: the authenticated user and the request info. */
export interface PolicyAttributes {
  user: { username: string; groups?: readonly string[] } | undefined;
  verb: string;
  isResourceRequest: boolean;
  path: string;
  apiGroup: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
}

/** The audit settings of one request. */
export interface RequestAuditConfig {
  level: Exclude<AuditLevel, 'None'>;
  omitStages: ReadonlySet<AuditStage>;
  omitManagedFields: boolean;
}

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
    throw fail(`apiVersion: Unsupported value: ${JSON.stringify(doc.apiVersion ?? '')}: supported values: "${AUDIT_POLICY_VERSION}"`);
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

// ---- evaluation ----

interface CompiledRule {
  config: RequestAuditConfig | undefined;
  users: ReadonlySet<string> | undefined;
  groups: ReadonlySet<string> | undefined;
  verbs: ReadonlySet<string> | undefined;
  namespaces: ReadonlySet<string> | undefined;
  resources: readonly GroupResources[] | undefined;
  /** Exact URLs, and prefixes of the `/path/*` forms; `any` for a lone `*`. */
  urls: { exact: ReadonlySet<string>; prefixes: readonly string[]; any: boolean } | undefined;
}

const setOf = (list: readonly string[]) => (list.length > 0 ? new Set(list) : undefined);

/** Compiles a policy into `evaluate(attrs)`: the request's audit settings, or undefined for level None. */
export function compilePolicy(policy: AuditPolicy): (a: PolicyAttributes) => RequestAuditConfig | undefined {
  const rules: CompiledRule[] = policy.rules.map((r) => {
    // A rule's stages add to the policy's; its omitManagedFields, when set, overrides the policy's.
    const omit = new Set<AuditStage>([...policy.omitStages, ...r.omitStages]);
    const config = r.level === 'None' ? undefined : Object.freeze({ level: r.level, omitStages: omit, omitManagedFields: r.omitManagedFields ?? policy.omitManagedFields });
    const exact = new Set(r.nonResourceURLs.filter((u) => !u.endsWith('*')));
    const prefixes = r.nonResourceURLs.filter((u) => u.endsWith('*') && u !== '*').map((u) => u.replace(/\*+$/, ''));
    return {
      config,
      users: setOf(r.users),
      groups: setOf(r.userGroups),
      verbs: setOf(r.verbs),
      namespaces: setOf(r.namespaces),
      resources: r.resources.length > 0 ? r.resources : undefined,
      urls: r.nonResourceURLs.length > 0 ? { exact, prefixes, any: r.nonResourceURLs.includes('*') } : undefined,
    };
  });
  return (a) => {
    for (const r of rules) if (matches(r, a)) return r.config;
    return undefined;
  };
}

function matches(r: CompiledRule, a: PolicyAttributes): boolean {
  if (r.users && !(a.user && r.users.has(a.user.username))) return false;
  if (r.groups && !(a.user?.groups && a.user.groups.some((g) => r.groups!.has(g)))) return false;
  if (r.verbs && !r.verbs.has(a.verb)) return false;
  if (r.namespaces || r.resources) {
    if (!a.isResourceRequest) return false;
    // Cluster-scoped requests have the namespace "", which a rule names as "".
    if (r.namespaces && !r.namespaces.has(a.namespace)) return false;
    return !r.resources || r.resources.some((gr) => resourceMatches(gr, a));
  }
  if (r.urls) {
    if (a.isResourceRequest) return false;
    return r.urls.any || r.urls.exact.has(a.path) || r.urls.prefixes.some((p) => a.path.startsWith(p));
  }
  return true;
}

/** `res`, `res/sub`, `*` (anything, subresources included), `*\/sub` and `res/*` (the resource and its subresources). */
function resourceMatches(gr: GroupResources, a: PolicyAttributes): boolean {
  if (gr.group !== a.apiGroup) return false;
  if (gr.resources.length === 0) return true;
  if (gr.resourceNames.length > 0 && !gr.resourceNames.includes(a.name)) return false;
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  for (const res of gr.resources) {
    if (res === '*' || res === combined) return true;
    if (a.subresource && res.startsWith('*/') && res.slice(2) === a.subresource) return true;
    if (res.endsWith('/*') && res.slice(0, -2) === a.resource) return true;
  }
  return false;
}
