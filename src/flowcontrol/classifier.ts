/**
 * Classification (API priority and fairness): which FlowSchema a request matches and so which priority
 * level it waits in, and the flow it belongs to there. FlowSchemas are compiled once per configuration
 * change into plain sets; the subject part of matching depends only on the user, so the schemas whose
 * subjects a user matches are cached per user name (and groups) and a request checks only their rules.
 */
import type { ApiObject } from '../api/types.js';

/** What classification reads of the user (the server's UserInfo fits). */
export interface FlowUser {
  username: string;
  groups: readonly string[];
}

/** What classification reads of a request (the server's RequestInfo fits). */
export interface FlowRequest {
  verb: string;
  isResourceRequest: boolean;
  path: string;
  apiGroup: string;
  namespace: string;
  resource: string;
  subresource: string;
}

export type Distinguisher = '' | 'ByUser' | 'ByNamespace';

/** One FlowSchema, compiled. */
export interface CompiledSchema {
  name: string;
  uid: string;
  matchingPrecedence: number;
  priorityLevel: string;
  distinguisher: Distinguisher;
  rules: CompiledRule[];
}

interface CompiledRule {
  subjects: (user: FlowUser) => boolean;
  resourceRules: ResourceRule[];
  nonResourceRules: NonResourceRule[];
}

/** `undefined` stands for `*` (everything) in these sets. */
interface ResourceRule {
  verbs: Set<string> | undefined;
  apiGroups: Set<string> | undefined;
  resources: Set<string> | undefined;
  clusterScope: boolean;
  namespaces: Set<string> | undefined;
  /** True when `namespaces` is empty: only cluster-scoped requests can match. */
  noNamespaces: boolean;
}

interface NonResourceRule {
  verbs: Set<string> | undefined;
  exact: Set<string>;
  prefixes: string[];
  all: boolean;
}

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const starSet = (v: unknown): Set<string> | undefined => {
  const list = strings(v);
  return list.includes('*') ? undefined : new Set(list);
};

const SA_PREFIX = 'system:serviceaccount:';

function compileSubject(s: Rec): (user: FlowUser) => boolean {
  switch (s.kind) {
    case 'User': {
      const name = String(rec(s.user).name ?? '');
      return name === '*' ? () => true : (u) => u.username === name;
    }
    case 'Group': {
      const name = String(rec(s.group).name ?? '');
      return name === '*' ? () => true : (u) => u.groups.includes(name);
    }
    case 'ServiceAccount': {
      const sa = rec(s.serviceAccount);
      const namespace = String(sa.namespace ?? '');
      const name = String(sa.name ?? '');
      const prefix = `${SA_PREFIX}${namespace}:`;
      return (u) => u.username.startsWith(prefix) && (name === '*' ? u.username.length > prefix.length : u.username.slice(prefix.length) === name);
    }
    default:
      return () => false;
  }
}

function compileNonResourceRule(r: Rec): NonResourceRule {
  const urls = strings(r.nonResourceURLs);
  // As the reference: a URL matches itself and everything below it (`/healthz` covers `/healthz/etcd`),
  // and a trailing `*` only marks that (`/apis/*` covers `/apis/x`, not `/apis`).
  const prefixes = urls.map((u) => {
    const p = u.endsWith('*') ? u.slice(0, -1) : u;
    return p.endsWith('/') ? p : `${p}/`;
  });
  return { verbs: starSet(r.verbs), exact: new Set(urls), prefixes, all: urls.includes('*') };
}

function compileResourceRule(r: Rec): ResourceRule {
  const namespaces = strings(r.namespaces);
  return {
    verbs: starSet(r.verbs),
    apiGroups: starSet(r.apiGroups),
    resources: starSet(r.resources),
    clusterScope: r.clusterScope === true,
    namespaces: starSet(namespaces),
    noNamespaces: namespaces.length === 0,
  };
}

export function compileFlowSchema(o: ApiObject): CompiledSchema {
  const spec = rec(o.spec);
  const type = rec(spec.distinguisherMethod).type;
  return {
    name: String(o.metadata?.name ?? ''),
    uid: String(o.metadata?.uid ?? ''),
    matchingPrecedence: typeof spec.matchingPrecedence === 'number' ? spec.matchingPrecedence : 1000,
    priorityLevel: String(rec(spec.priorityLevelConfiguration).name ?? ''),
    distinguisher: type === 'ByUser' || type === 'ByNamespace' ? type : '',
    rules: (Array.isArray(spec.rules) ? spec.rules : []).map((raw) => {
      const r = rec(raw);
      const subjects = (Array.isArray(r.subjects) ? r.subjects : []).map((s) => compileSubject(rec(s)));
      return {
        subjects: (u) => subjects.some((m) => m(u)),
        resourceRules: (Array.isArray(r.resourceRules) ? r.resourceRules : []).map((x) => compileResourceRule(rec(x))),
        nonResourceRules: (Array.isArray(r.nonResourceRules) ? r.nonResourceRules : []).map((x) => compileNonResourceRule(rec(x))),
      };
    }),
  };
}

const has = (set: Set<string> | undefined, v: string) => set === undefined || set.has(v);

function resourceRuleMatches(r: ResourceRule, req: FlowRequest, resource: string): boolean {
  if (!has(r.verbs, req.verb) || !has(r.apiGroups, req.apiGroup) || !has(r.resources, resource)) return false;
  if (req.namespace === '') return r.clusterScope;
  return !r.noNamespaces && has(r.namespaces, req.namespace);
}

function nonResourceRuleMatches(r: NonResourceRule, req: FlowRequest): boolean {
  if (!has(r.verbs, req.verb)) return false;
  if (r.all || r.exact.has(req.path)) return true;
  for (const p of r.prefixes) if (req.path.startsWith(p)) return true;
  return false;
}

/** Whether one rule matches, given that its subjects match the user. */
function rulesMatch(rule: CompiledRule, req: FlowRequest): boolean {
  if (req.isResourceRequest) {
    const resource = req.subresource ? `${req.resource}/${req.subresource}` : req.resource;
    for (const r of rule.resourceRules) if (resourceRuleMatches(r, req, resource)) return true;
    return false;
  }
  for (const r of rule.nonResourceRules) if (nonResourceRuleMatches(r, req)) return true;
  return false;
}

interface UserEntry {
  groups: readonly string[];
  /** The schemas (in matching order) with a rule whose subjects match this user, and those rules. */
  candidates: { schema: CompiledSchema; rules: CompiledRule[] }[];
}

const USER_CACHE_LIMIT = 4096;

/**
 * Matches requests against FlowSchemas in the reference's order (matchingPrecedence ascending, then name).
 * Schemas whose priority level does not exist are skipped (they are "dangling"); a request no schema
 * matches gets `fallback` (the built-in catch-all).
 */
export class Classifier {
  private readonly schemas: CompiledSchema[];
  private readonly users = new Map<string, UserEntry>();

  constructor(schemas: readonly ApiObject[], levelExists: (name: string) => boolean, private readonly fallback: CompiledSchema) {
    this.schemas = schemas
      .map(compileFlowSchema)
      .filter((s) => levelExists(s.priorityLevel))
      .sort((a, b) => a.matchingPrecedence - b.matchingPrecedence || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** The FlowSchema a request matches (allocates nothing once the user is cached). */
  classify(user: FlowUser, req: FlowRequest): CompiledSchema {
    const entry = this.userEntry(user);
    for (const c of entry.candidates) {
      for (const rule of c.rules) if (rulesMatch(rule, req)) return c.schema;
    }
    return this.fallback;
  }

  private userEntry(user: FlowUser): UserEntry {
    const cached = this.users.get(user.username);
    if (cached && sameGroups(cached.groups, user.groups)) return cached;
    const candidates: UserEntry['candidates'] = [];
    for (const schema of this.schemas) {
      const rules = schema.rules.filter((r) => r.subjects(user));
      if (rules.length > 0) candidates.push({ schema, rules });
    }
    if (this.users.size >= USER_CACHE_LIMIT) this.users.clear();
    const entry = { groups: [...user.groups], candidates };
    this.users.set(user.username, entry);
    return entry;
  }
}

function sameGroups(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The flow within the schema's priority level (what shuffle sharding hashes). */
export function flowOf(schema: CompiledSchema, user: FlowUser, req: FlowRequest): string {
  if (schema.distinguisher === 'ByUser') return user.username;
  if (schema.distinguisher === 'ByNamespace') return req.namespace;
  return '';
}
