/**
 * ValidatingAdmissionPolicy and binding objects in the form admission uses: rules split, selectors and
 * CEL compiled. Compiled once per object version; a policy that does not compile keeps the reason, which
 * is reported (through its failurePolicy) only for requests it matches.
 */
import type { ApiObject } from '../../api/types.js';
import { isObject } from '../../api/types.js';
import { compileRule, type Rule } from '../webhook/rules.js';
import { compileLabelSelector, type LabelSelector } from '../webhook/selector.js';
import { compileExpression, type CompiledExpression } from './cel.js';

export type ValidationAction = 'Deny' | 'Warn' | 'Audit';

/** A resource rule with the names it is limited to (empty: every name). */
export interface NamedRule {
  readonly rule: Rule;
  readonly resourceNames: readonly string[];
}

export interface CompiledMatch {
  readonly namespaceSelector: LabelSelector;
  readonly objectSelector: LabelSelector;
  /** Undefined: rules do not constrain (a binding without resourceRules). */
  readonly resourceRules: readonly NamedRule[] | undefined;
  readonly excludeResourceRules: readonly NamedRule[];
  readonly equivalentMatch: boolean;
}

export interface CompiledValidation {
  readonly check: CompiledExpression;
  readonly message: string;
  readonly messageExpression?: CompiledExpression;
  readonly reason: string;
  readonly fieldPath: string;
}

export interface CompiledPolicy {
  readonly name: string;
  readonly failOpen: boolean;
  readonly paramKind?: { readonly group: string; readonly version: string; readonly kind: string };
  readonly match: CompiledMatch;
  readonly conditions: readonly { readonly name: string; readonly expr: CompiledExpression }[];
  readonly variables: readonly { readonly name: string; readonly expr: CompiledExpression }[];
  readonly validations: readonly CompiledValidation[];
  readonly auditAnnotations: readonly { readonly key: string; readonly value: CompiledExpression }[];
  /** Whether any expression names `authorizer`: its evaluation then waits for authorization answers. */
  readonly usesAuthorizer: boolean;
  /** The request inputs any of its expressions names: only these are converted to CEL values per request. */
  readonly inputs: ReadonlySet<string>;
  /** Set when the stored policy could not be compiled: applying it is an error. */
  readonly brokenReason?: string;
}

export interface CompiledBinding {
  readonly name: string;
  readonly policyName: string;
  readonly actions: readonly ValidationAction[];
  readonly match?: CompiledMatch;
  readonly paramRef?: {
    readonly name: string;
    readonly namespace: string;
    readonly selector?: LabelSelector;
    readonly denyWhenMissing: boolean;
  };
  readonly brokenReason?: string;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const items = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.filter(isObject) : []);

function namedRules(v: unknown): NamedRule[] {
  return items(v).map((r) => ({ rule: compileRule(r), resourceNames: Array.isArray(r.resourceNames) ? r.resourceNames.filter((n): n is string => typeof n === 'string') : [] }));
}

export function compileMatch(m: unknown, path: string, rulesRequired: boolean): CompiledMatch {
  const match = isObject(m) ? m : {};
  const rules = namedRules(match.resourceRules);
  return {
    namespaceSelector: compileLabelSelector(match.namespaceSelector, `${path}.namespaceSelector`),
    objectSelector: compileLabelSelector(match.objectSelector, `${path}.objectSelector`),
    resourceRules: rules.length === 0 && !rulesRequired ? undefined : rules,
    excludeResourceRules: namedRules(match.excludeResourceRules),
    equivalentMatch: match.matchPolicy !== 'Exact',
  };
}

/** `group/version` or `version` (the core group). */
function paramKindOf(v: unknown): CompiledPolicy['paramKind'] {
  if (!isObject(v)) return undefined;
  const apiVersion = str(v.apiVersion);
  const slash = apiVersion.indexOf('/');
  return { group: slash < 0 ? '' : apiVersion.slice(0, slash), version: slash < 0 ? apiVersion : apiVersion.slice(slash + 1), kind: str(v.kind) };
}

function expr(source: unknown, at: string, type: 'bool' | 'string' | 'any', names: ReadonlySet<string>): CompiledExpression {
  try {
    return compileExpression(str(source), type, names);
  } catch (e) {
    throw new Error(`${at}: ${(e as Error).message}`);
  }
}

export function compilePolicy(o: ApiObject): CompiledPolicy {
  const spec = isObject(o.spec) ? o.spec : {};
  const name = o.metadata?.name ?? '';
  const base = {
    name,
    failOpen: spec.failurePolicy === 'Ignore',
    paramKind: paramKindOf(spec.paramKind),
    conditions: [],
    variables: [],
    validations: [],
    auditAnnotations: [],
    usesAuthorizer: false,
    inputs: new Set<string>(),
  };
  try {
    const declared = new Set<string>();
    const variables = items(spec.variables).map((v, i) => {
      const compiled = { name: str(v.name), expr: expr(v.expression, `spec.variables[${i}].expression`, 'any', declared) };
      declared.add(compiled.name);
      return compiled;
    });
    const compiled = {
      ...base,
      match: compileMatch(spec.matchConstraints, 'spec.matchConstraints', true),
      variables,
      conditions: items(spec.matchConditions).map((c, i) => ({ name: str(c.name), expr: expr(c.expression, `spec.matchConditions[${i}].expression`, 'bool', declared) })),
      validations: items(spec.validations).map((v, i) => ({
        check: expr(v.expression, `spec.validations[${i}].expression`, 'bool', declared),
        message: str(v.message),
        ...(str(v.messageExpression).trim() !== '' ? { messageExpression: expr(v.messageExpression, `spec.validations[${i}].messageExpression`, 'string', declared) } : {}),
        reason: str(v.reason) || 'Invalid',
        fieldPath: str(v.fieldPath),
      })),
      auditAnnotations: items(spec.auditAnnotations).map((a, i) => ({ key: str(a.key), value: expr(a.valueExpression, `spec.auditAnnotations[${i}].valueExpression`, 'any', declared) })),
    };
    const expressions = [
      ...compiled.variables.map((v) => v.expr),
      ...compiled.conditions.map((c) => c.expr),
      ...compiled.validations.flatMap((v) => (v.messageExpression ? [v.check, v.messageExpression] : [v.check])),
      ...compiled.auditAnnotations.map((a) => a.value),
    ];
    return { ...compiled, usesAuthorizer: expressions.some((e) => e.usesAuthorizer), inputs: new Set(expressions.flatMap((e) => [...e.inputs])) };
  } catch (e) {
    return { ...base, match: compileMatch(undefined, '', true), brokenReason: (e as Error).message };
  }
}

export function compileBinding(o: ApiObject): CompiledBinding {
  const spec = isObject(o.spec) ? o.spec : {};
  const actions = (Array.isArray(spec.validationActions) ? spec.validationActions : []).filter(
    (a): a is ValidationAction => a === 'Deny' || a === 'Warn' || a === 'Audit',
  );
  const base = { name: o.metadata?.name ?? '', policyName: str(spec.policyName), actions };
  try {
    const ref = isObject(spec.paramRef) ? spec.paramRef : undefined;
    return {
      ...base,
      ...(spec.matchResources !== undefined && spec.matchResources !== null ? { match: compileMatch(spec.matchResources, 'spec.matchResources', false) } : {}),
      ...(ref
        ? {
            paramRef: {
              name: str(ref.name),
              namespace: str(ref.namespace),
              ...(isObject(ref.selector) ? { selector: compileLabelSelector(ref.selector, 'spec.paramRef.selector') } : {}),
              denyWhenMissing: ref.parameterNotFoundAction === 'Deny',
            },
          }
        : {}),
    };
  } catch (e) {
    return { ...base, brokenReason: (e as Error).message };
  }
}
