/**
 * `x-kubernetes-validations`: compiling each rule against the node it sits on (with `self`, and `oldSelf`
 * for transition rules), the compile-time checks the reference makes (message, reason, fieldPath,
 * estimated cost), and evaluating them over an object (and its old version on update).
 */
import { Optional } from '@marcbachmann/cel-js';
import type { Environment } from '@marcbachmann/cel-js';
import { compileCel, isIdentifier, walkAst, type CelEnvironment } from '../../../cel/compile.js';
import { BUDGET_EXCEEDED, EvaluationBudget, firstLine } from '../../../cel/index.js';
import { quote, type FieldError } from '../../../errors/index.js';
import { estimateRuleCost, nodeCardinality, costExceeded, PER_RULE_COST_LIMIT, TOTAL_COST_LIMIT } from './cel-cost.js';
import { RuleTypes, ruleEnvironment, toCel } from './cel-values.js';
import type { CompiledRule, Node, SchemaReader } from './node.js';
import { child, index } from './validate.js';

const REASONS = ['FieldValueInvalid', 'FieldValueForbidden', 'FieldValueRequired', 'FieldValueDuplicate'];

/** The environment rules are evaluated in: every value dynamic (checking happened in a typed one). */
const evalEnvironment: CelEnvironment = (() => {
  const env = ruleEnvironment();
  env.registerVariable('self', 'dyn');
  env.registerVariable('oldSelf', 'dyn');
  return { variables: ['self', 'oldSelf'], env };
})();

interface RuleSite {
  node: Node;
  path: string;
  /** How many values this node can have in one object (lists and maps above multiply). */
  cardinality: number;
  /** Whether old values can be matched to this node (not inside atomic or set lists). */
  correlatable: boolean;
}

function findSites(node: Node, path: string, cardinality: number, correlatable: boolean, out: RuleSite[]): boolean {
  let below = false;
  for (const [k, s] of node.properties ?? []) below = findSites(s, `${path}.properties[${k}]`, cardinality, correlatable, out) || below;
  if (node.items) below = findSites(node.items, `${path}.items`, cardinality * nodeCardinality(node), correlatable && node.listType === 'map', out) || below;
  const ap = node.additionalProperties;
  if (ap && ap !== true) below = findSites(ap, `${path}.additionalProperties`, cardinality * nodeCardinality(node), correlatable, out) || below;
  if (node.rawRules) out.push({ node, path, cardinality, correlatable });
  node.hasRulesBelow = below || !!node.rawRules;
  return node.hasRulesBelow;
}

const usesVariable = (ast: unknown, name: string): boolean => {
  let found = false;
  walkAst(ast, (n) => {
    if (isIdentifier(n, name)) found = true;
  });
  return found;
};

/** Resolves a rule's `fieldPath` (`.a.b`, `['x.y']`) against the node's schema; the output form or an error. */
function resolveFieldPath(node: Node, text: string): string | undefined {
  const step = /^(?:\.([A-Za-z_][A-Za-z0-9_-]*)|\['((?:[^'\\]|\\.)*)'\])/;
  let rest = text;
  let cur: Node | undefined = node;
  let out = '';
  while (rest.length > 0) {
    const m = step.exec(rest);
    if (!m || !cur) return undefined;
    const name = m[1] ?? m[2]!.replace(/\\(.)/g, '$1');
    rest = rest.slice(m[0].length);
    const prop: Node | undefined = cur.properties?.get(name);
    if (prop) {
      out += `.${name}`;
      cur = prop;
    } else if (cur.additionalProperties && cur.additionalProperties !== true) {
      out += `[${name}]`;
      cur = cur.additionalProperties;
    } else return undefined;
  }
  return out === '' ? undefined : out;
}

/** Compiles every rule in the tree; problems go to `r` at `...x-kubernetes-validations[i].<field>`. */
export function compileRules(r: SchemaReader, root: Node, path: string): void {
  const sites: RuleSite[] = [];
  findSites(root, path, 1, true, sites);
  if (sites.length === 0) return;
  const typedEnv = ruleEnvironment();
  const types = new RuleTypes(typedEnv);
  const selfTypes = sites.map((s, i) => types.typeOf(s.node, `rule${i}`));
  let total = 0;
  sites.forEach((site, i) => {
    const selfType = selfTypes[i]!;
    const rules: CompiledRule[] = [];
    (site.node.rawRules ?? []).forEach((raw, j) => {
      const at = `${site.path}.x-kubernetes-validations[${j}]`;
      const cost = compileOne(r, typedEnv, selfType, site, raw, j, at, rules);
      total += cost;
    });
    site.node.rules = rules;
  });
  if (total > TOTAL_COST_LIMIT) r.forbidden(path, costExceeded('x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema', total, TOTAL_COST_LIMIT));
}

function typeCheck(env: Environment, selfType: string, oldSelfType: string, expression: string): { error?: string; type?: string } {
  const scoped = env.clone();
  scoped.registerVariable('self', selfType);
  scoped.registerVariable('oldSelf', oldSelfType);
  try {
    const checked = scoped.check(expression);
    if (!checked.valid) return { error: firstLine(checked.error?.message ?? 'type check failed') };
    return { type: checked.type };
  } catch (e) {
    return { error: firstLine((e as Error).message) };
  }
}

function compileOne(r: SchemaReader, env: Environment, selfType: string, site: RuleSite, raw: unknown, j: number, at: string, out: CompiledRule[]): number {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    r.invalid(at, raw, 'must be a rule object');
    return 0;
  }
  const v = raw as Record<string, unknown>;
  const rule = v.rule;
  if (typeof rule !== 'string' || rule.trim() === '') {
    r.required(`${at}.rule`, 'rule is not specified');
    return 0;
  }
  let ok = true;
  const message = v.message;
  if (message !== undefined && message !== null) {
    if (typeof message !== 'string' || message.trim() === '') (ok = false), r.invalid(`${at}.message`, message, 'message must be non-empty if specified');
    else if (/[\r\n]/.test(message)) (ok = false), r.invalid(`${at}.message`, message, 'message must not contain line breaks');
    else if (message.length > 2048) (ok = false), r.tooLongField(`${at}.message`, 2048);
  }
  const reason = v.reason ?? 'FieldValueInvalid';
  if (typeof reason !== 'string' || !REASONS.includes(reason)) (ok = false), r.notSupported(`${at}.reason`, reason, REASONS);
  let fieldPath: string | undefined;
  if (v.fieldPath !== undefined && v.fieldPath !== null && v.fieldPath !== '') {
    fieldPath = typeof v.fieldPath === 'string' ? resolveFieldPath(site.node, v.fieldPath) : undefined;
    if (!fieldPath) (ok = false), r.invalid(`${at}.fieldPath`, v.fieldPath, 'fieldPath must be a path (.field or [\'key\'] steps) to a field of this schema');
  }
  const optionalOldSelf = v.optionalOldSelf === true;
  const oldSelfType = optionalOldSelf ? `optional<${selfType}>` : selfType;
  const checked = typeCheck(env, selfType, oldSelfType, rule);
  if (checked.error) {
    r.invalid(`${at}.rule`, rule, `compilation failed: ${checked.error}`);
    return 0;
  }
  if (checked.type !== 'bool' && checked.type !== 'dyn') {
    r.invalid(`${at}.rule`, rule, `must evaluate to bool, not ${checked.type}`);
    return 0;
  }
  let usesOldSelf = false;
  let cost = 0;
  let compiled;
  try {
    compiled = compileCel(evalEnvironment, rule, 'any', (ast) => {
      usesOldSelf = usesVariable(ast, 'oldSelf');
      cost = estimateRuleCost(ast, site.node) * site.cardinality;
      return undefined;
    });
  } catch (e) {
    r.invalid(`${at}.rule`, rule, firstLine((e as Error).message));
    return 0;
  }
  if (usesOldSelf && !site.correlatable) (ok = false), r.invalid(`${at}.rule`, rule, 'oldSelf cannot be used inside a list that is not x-kubernetes-list-type=map: old values there cannot be matched');
  if (optionalOldSelf && !usesOldSelf) (ok = false), r.invalid(`${at}.optionalOldSelf`, true, 'may not be set when the rule does not use oldSelf');
  if (cost > PER_RULE_COST_LIMIT) (ok = false), r.forbidden(`${at}.rule`, costExceeded('estimated rule cost', cost, PER_RULE_COST_LIMIT));
  let evaluateMessage: CompiledRule['evaluateMessage'];
  const me = v.messageExpression;
  if (me !== undefined && me !== null && me !== '') {
    const mChecked = typeof me === 'string' ? typeCheck(env, selfType, oldSelfType, me) : { error: 'must be a string' };
    if (mChecked.error) (ok = false), r.invalid(`${at}.messageExpression`, me, `messageExpression compilation failed: ${mChecked.error}`);
    else if (mChecked.type !== 'string' && mChecked.type !== 'dyn') (ok = false), r.invalid(`${at}.messageExpression`, me, `must evaluate to string, not ${mChecked.type}`);
    else evaluateMessage = compileCel(evalEnvironment, me as string, 'any').evaluate;
  }
  if (!ok) return cost;
  out.push({
    rule,
    index: j,
    usesOldSelf,
    optionalOldSelf,
    ...(typeof message === 'string' ? { message } : {}),
    reason: reason as string,
    ...(fieldPath ? { fieldPath } : {}),
    evaluate: compiled.evaluate,
    ...(evaluateMessage ? { evaluateMessage } : {}),
  });
  return cost;
}

/** Thrown out of the walk when the object's budget is spent: no further rule runs. */
class OutOfBudget extends Error {}

function ruleError(rule: CompiledRule, field: string, typeName: string, detail: string): FieldError {
  switch (rule.reason) {
    case 'FieldValueForbidden':
      return { type: rule.reason, field, message: `Forbidden: ${detail}` };
    case 'FieldValueRequired':
      return { type: rule.reason, field, message: `Required value: ${detail}` };
    case 'FieldValueDuplicate':
      return { type: rule.reason, field, message: `Duplicate value: ${quote(typeName)}` };
    default:
      return { type: 'FieldValueInvalid', field, message: `Invalid value: ${quote(typeName)}: ${detail}` };
  }
}

function runRules(v: unknown, old: unknown, hasOld: boolean, node: Node, path: string, out: FieldError[], budget: EvaluationBudget): void {
  const rules = node.rules;
  if (!rules || rules.length === 0) return;
  const self = toCel(v, node);
  const oldCel = hasOld ? toCel(old, node) : undefined;
  const typeName = node.type ?? (node.intOrString ? 'int-or-string' : 'object');
  for (const rule of rules) {
    if (rule.usesOldSelf && !hasOld && !rule.optionalOldSelf) continue;
    const vars = { self, oldSelf: rule.optionalOldSelf ? (hasOld ? Optional.of(oldCel) : Optional.none()) : oldCel };
    const field = rule.fieldPath ? `${path}${path === '' ? rule.fieldPath.replace(/^\./, '') : rule.fieldPath}` : path;
    let result: unknown;
    try {
      result = rule.evaluate(vars, budget);
    } catch (e) {
      const msg = (e as Error).message;
      if (msg === BUDGET_EXCEEDED) {
        out.push({ type: 'FieldValueInvalid', field, message: `Invalid value: ${quote(typeName)}: validation ran out of its cost budget; the remaining rules were not evaluated` });
        throw new OutOfBudget();
      }
      out.push({ type: 'FieldValueInvalid', field, message: `Invalid value: ${quote(typeName)}: rule could not be evaluated: ${firstLine(msg)}` });
      continue;
    }
    if (result === true) continue;
    out.push(ruleError(rule, field, typeName, messageOf(rule, vars, budget)));
  }
}

function messageOf(rule: CompiledRule, vars: Record<string, unknown>, budget: EvaluationBudget): string {
  if (rule.evaluateMessage) {
    try {
      const m = rule.evaluateMessage(vars, budget);
      if (typeof m === 'string' && m.trim() !== '' && !/[\r\n]/.test(m)) return m;
    } catch (e) {
      if ((e as Error).message === BUDGET_EXCEEDED) throw e;
    }
  }
  return rule.message ?? `failed rule: ${rule.rule}`;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function walk(v: unknown, old: unknown, hasOld: boolean, node: Node, path: string, out: FieldError[], budget: EvaluationBudget): void {
  if (!node.hasRulesBelow || v === null || v === undefined) return;
  runRules(v, old, hasOld, node, path, out, budget);
  if (Array.isArray(v)) {
    const items = node.items;
    if (!items?.hasRulesBelow) return;
    const keys = node.listType === 'map' ? node.listMapKeys : undefined;
    const olds = keys && hasOld && Array.isArray(old) ? old : undefined;
    for (let i = 0; i < v.length; i++) {
      const match = olds && isObj(v[i]) ? olds.find((o) => isObj(o) && keys!.every((k) => o[k] === (v[i] as Record<string, unknown>)[k])) : undefined;
      walk(v[i], match, match !== undefined, items, index(path, i), out, budget);
    }
    return;
  }
  if (!isObj(v)) return;
  const oldObj = hasOld && isObj(old) ? old : undefined;
  if (node.properties) {
    for (const [k, s] of node.properties) {
      if (s.hasRulesBelow && Object.hasOwn(v, k)) walk(v[k], oldObj?.[k], !!oldObj && Object.hasOwn(oldObj, k), s, child(path, k), out, budget);
    }
    return;
  }
  const ap = node.additionalProperties;
  if (ap && ap !== true && ap.hasRulesBelow) {
    for (const k of Object.keys(v)) walk(v[k], oldObj?.[k], !!oldObj && Object.hasOwn(oldObj, k), ap, child(path, k), out, budget);
  }
}

/** Evaluates every rule over `v` (and `old` on update), within one budget for the whole object. */
export function evaluateRules(v: unknown, old: unknown, root: Node, out: FieldError[], path = ''): void {
  if (!root.hasRulesBelow) return;
  try {
    walk(v, old, old !== undefined, root, path, out, new EvaluationBudget());
  } catch (e) {
    if (!(e instanceof OutOfBudget)) throw e;
  }
}
