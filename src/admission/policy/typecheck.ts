/**
 * Type checking of a ValidatingAdmissionPolicy's expressions against the schemas of the kinds its
 * `matchConstraints.resourceRules` name (and `paramKind`'s schema for `params`), reported as the reference
 * reports it in `status.typeChecking.expressionWarnings`: one warning per expression with problems, one
 * line group per kind (`apps/v1, Kind=Deployment: ERROR: ...`).
 *
 * Like the reference: rules with `*` in their groups, versions or resources are not checked, nor are
 * subresources; at most the first 10 group/version/resource combinations (sorted by group, version,
 * resource) are; kinds without a built-in schema (custom resources) are skipped. Checking never changes
 * how the policy is applied.
 */
import { Environment } from '@marcbachmann/cel-js';
import type { Schema } from '../../api/schema.js';
import type { ApiObject } from '../../api/types.js';
import { isObject } from '../../api/types.js';
import { registerAuthorizerLibrary } from '../../cel/index.js';
import type { GroupVersionKind } from '../types.js';
import { referenceIssue } from './cel-issues.js';
import { registerIdentityConversions, SchemaTypeDeclarer, type CelTypeName } from './schema-types.js';

export interface KindSchema {
  readonly kind: GroupVersionKind;
  readonly schema: Schema;
}

/** Where the checker finds schemas; built-in kinds only. */
export interface TypeCheckSchemas {
  /** The kind a served group/version/resource holds, with its schema. */
  resource(group: string, version: string, resource: string): KindSchema | undefined;
  /** A kind's schema by group, version and kind (for `paramKind`). */
  kind(group: string, version: string, kind: string): Schema | undefined;
  /** What `namespaceObject` holds (core/v1 Namespace). */
  readonly namespace?: Schema;
}

export interface ExpressionWarning {
  fieldRef: string;
  warning: string;
}

/** The reference's cap on checked combinations, so that a policy naming many types costs little. */
export const MAX_CHECKED_TYPES = 10;
/** Environments kept per object kind and params kind (the checker outlives many policies). */
const MAX_CACHED_ENVIRONMENTS = 64;

/** The declared type of `variables` (named as the reference names it). */
const VARIABLES_TYPE = 'kubernetes.variables';

const str: Schema = { type: 'string' };
const obj = (properties: Record<string, Schema>): Schema => ({ type: 'object', properties });
const groupVersionKind = obj({ group: str, version: str, kind: str });
const groupVersionResource = obj({ group: str, version: str, resource: str });
/** `request`: the admission request's attributes a policy reads (the reference's request type). */
const REQUEST_SCHEMA: Schema = obj({
  kind: groupVersionKind,
  resource: groupVersionResource,
  subResource: str,
  requestKind: groupVersionKind,
  requestResource: groupVersionResource,
  requestSubResource: str,
  name: str,
  namespace: str,
  operation: str,
  userInfo: obj({
    username: str,
    uid: str,
    groups: { type: 'array', items: str },
    extra: { type: 'object', additionalProperties: { type: 'array', items: str } },
  }),
  dryRun: { type: 'boolean' },
  options: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
});

/** The reference's spelling of a kind: `apps/v1, Kind=Deployment` (`/v1, Kind=Pod` for the core group). */
export const kindLabel = (k: GroupVersionKind): string => `${k.group}/${k.version}, Kind=${k.kind}`;

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const strings = (v: unknown): string[] => list(v).filter((x): x is string => typeof x === 'string');

/** The group/version/resource combinations a policy's rules name, as the reference picks them for checking. */
export function checkedResources(policy: ApiObject): { group: string; version: string; resource: string }[] {
  const spec = isObject(policy.spec) ? policy.spec : {};
  const match = isObject(spec.matchConstraints) ? spec.matchConstraints : {};
  const seen = new Map<string, { group: string; version: string; resource: string }>();
  for (const rule of list(match.resourceRules).filter(isObject)) {
    const groups = strings(rule.apiGroups);
    const versions = strings(rule.apiVersions);
    const resources = strings(rule.resources);
    if ([groups, versions].some((xs) => xs.includes('*')) || resources.some((r) => r === '*' || r.startsWith('*/'))) continue;
    for (const group of groups) {
      for (const version of versions) {
        for (const resource of resources) {
          if (resource.includes('/')) continue;
          seen.set(`${group}/${version}/${resource}`, { group, version, resource });
        }
      }
    }
  }
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...seen.values()]
    .sort((a, b) => cmp(a.group, b.group) || cmp(a.version, b.version) || cmp(a.resource, b.resource))
    .slice(0, MAX_CHECKED_TYPES);
}

interface Expression {
  readonly fieldRef: string;
  readonly text: string;
}

/** Every expression of a policy with the field path the reference reports it under, in spec order. */
function policyExpressions(spec: Record<string, unknown>): { variables: (Expression & { name: string })[]; others: Expression[] } {
  const variables = list(spec.variables)
    .map((v, i) => (isObject(v) && typeof v.expression === 'string' ? { name: String(v.name ?? ''), text: v.expression, fieldRef: `spec.variables[${i}].expression` } : undefined))
    .filter((x): x is Expression & { name: string } => x !== undefined && x.text !== '');
  const others: Expression[] = [];
  const add = (field: string, items: unknown, key: string) =>
    list(items).forEach((item, i) => {
      if (isObject(item) && typeof item[key] === 'string' && item[key] !== '') others.push({ fieldRef: `spec.${field}[${i}].${key}`, text: item[key] as string });
    });
  add('matchConditions', spec.matchConditions, 'expression');
  list(spec.validations).forEach((v, i) => {
    if (!isObject(v)) return;
    if (typeof v.expression === 'string' && v.expression !== '') others.push({ fieldRef: `spec.validations[${i}].expression`, text: v.expression });
    if (typeof v.messageExpression === 'string' && v.messageExpression !== '') others.push({ fieldRef: `spec.validations[${i}].messageExpression`, text: v.messageExpression });
  });
  add('auditAnnotations', spec.auditAnnotations, 'valueExpression');
  return { variables, others };
}

/** The first type problem of `expression` in `env` (cel-js stops at the first), in the reference's words. */
function checkOne(env: Environment, expression: string): { issue?: string; type: CelTypeName } {
  let parsed;
  try {
    parsed = env.parse(expression);
  } catch {
    // A syntax error is refused when the policy is written; nothing to type-check here.
    return { type: 'dyn' };
  }
  const checked = parsed.check();
  if (checked.valid) return { type: checked.type ?? 'dyn' };
  return { issue: referenceIssue(expression, checked.error ?? { message: 'type check failed' }), type: 'dyn' };
}

/** Type-checks policies; environments for each (object kind, params kind) pair are built once and kept. */
export class PolicyTypeChecker {
  private readonly environments = new Map<string, Environment>();

  constructor(private readonly schemas: TypeCheckSchemas) {}

  /** The warnings for `policy`: empty when every expression checks against every matched kind. */
  check(policy: ApiObject): ExpressionWarning[] {
    const spec = isObject(policy.spec) ? policy.spec : {};
    const kinds = checkedResources(policy)
      .map((r) => this.schemas.resource(r.group, r.version, r.resource))
      .filter((k): k is KindSchema => k !== undefined);
    const params = this.paramsOf(spec.paramKind);
    const { variables, others } = policyExpressions(spec);
    const issues = new Map<string, string[]>();
    const note = (fieldRef: string, kind: GroupVersionKind, issue: string) => {
      const lines = issues.get(fieldRef) ?? [];
      lines.push(`${kindLabel(kind)}: ${issue}`);
      issues.set(fieldRef, lines);
    };
    for (const k of kinds) {
      // Each variable is typed by its expression and seen, with that type, by those after it.
      const variableTypes: Record<string, CelTypeName> = {};
      for (const v of variables) {
        const r = checkOne(this.withVariables(k, params, variableTypes), v.text);
        if (r.issue) note(v.fieldRef, k.kind, r.issue);
        variableTypes[v.name] = r.type;
      }
      const env = this.withVariables(k, params, variableTypes);
      for (const e of others) {
        const r = checkOne(env, e.text);
        if (r.issue) note(e.fieldRef, k.kind, r.issue);
      }
    }
    // In the order of the spec's fields, as the reference lists them.
    const order = [...variables, ...others].map((e) => e.fieldRef);
    return order.filter((ref) => issues.has(ref)).map((fieldRef) => ({ fieldRef, warning: issues.get(fieldRef)!.join('\n') }));
  }

  private paramsOf(paramKind: unknown): KindSchema | undefined {
    if (!isObject(paramKind) || typeof paramKind.apiVersion !== 'string' || typeof paramKind.kind !== 'string') return undefined;
    const slash = paramKind.apiVersion.indexOf('/');
    const group = slash < 0 ? '' : paramKind.apiVersion.slice(0, slash);
    const version = paramKind.apiVersion.slice(slash + 1);
    const schema = this.schemas.kind(group, version, paramKind.kind);
    return schema ? { kind: { group, version, kind: paramKind.kind }, schema } : undefined;
  }

  /** The kind's environment plus `variables` typed as given (a fresh child each time: cheap, and not kept). */
  private withVariables(k: KindSchema, params: KindSchema | undefined, variableTypes: Record<string, CelTypeName>): Environment {
    const child = this.environment(k, params).clone();
    const names = Object.keys(variableTypes);
    if (names.length === 0) return child.registerVariable('variables', 'map<string, dyn>');
    // The reference declares `variables` as an object whose fields are the variables before this one.
    try {
      child.registerType(VARIABLES_TYPE, { ctor: class Variables {}, fields: variableTypes } as never);
    } catch {
      // A variable's inferred type the library cannot declare as a field: the variables stay untyped.
      return child.registerVariable('variables', 'map<string, dyn>');
    }
    return child.registerVariable('variables', VARIABLES_TYPE);
  }

  private environment(k: KindSchema, params: KindSchema | undefined): Environment {
    const key = `${kindLabel(k.kind)}|${params ? kindLabel(params.kind) : ''}`;
    const known = this.environments.get(key);
    if (known) return known;
    const env = new Environment({ homogeneousAggregateLiterals: false });
    registerAuthorizerLibrary(env);
    registerIdentityConversions(env);
    const types = new SchemaTypeDeclarer(env);
    const objectType = types.typeOf(k.schema, k.kind.kind);
    env.registerVariable('object', objectType);
    env.registerVariable('oldObject', objectType);
    env.registerVariable('params', params ? types.typeOf(params.schema, params.kind.kind) : 'dyn');
    env.registerVariable('request', types.typeOf(REQUEST_SCHEMA, 'kubernetes.AdmissionRequest'));
    env.registerVariable('namespaceObject', this.schemas.namespace ? types.typeOf(this.schemas.namespace, 'Namespace') : 'dyn');
    if (this.environments.size >= MAX_CACHED_ENVIRONMENTS) this.environments.clear();
    this.environments.set(key, env);
    return env;
  }
}
