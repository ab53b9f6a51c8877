/**
 * Job validation with the reference's rules, field paths and wording (pkg/apis/batch/validation).
 * `validateJobSpecFields` is also the rule set of a CronJob's job template.
 */
import { isObject, type ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { isDNS1123Label, isQualifiedName } from '../../validation/index.js';
import { validatePodTemplate } from '../pods/template.js';
import { absent, checkInt, immutable, objects, rec, sameValue, type Obj } from './fields.js';
import { CONTROLLER_UID_LABEL, JOB_NAME_LABEL, LEGACY_CONTROLLER_UID_LABEL, LEGACY_JOB_NAME_LABEL } from './job-defaults.js';
import { validateLabelSelector } from '../../validation/index.js';
import { selectorMatches } from './selector.js';

const COMPLETION_MODES = ['NonIndexed', 'Indexed'];
const REPLACEMENT_POLICIES = ['Failed', 'TerminatingOrFailed'];
const FAILURE_ACTIONS = ['Count', 'FailIndex', 'FailJob', 'Ignore'];
const EXIT_CODE_OPERATORS = ['In', 'NotIn'];
const CONDITION_STATUSES = ['False', 'True', 'Unknown'];
const MAX_INDEXED_PARALLELISM = 100000;
const MAX_FAILED_INDEXES = 100000;
const MAX_POLICY_RULES = 20;

/** Go's `%q` of a string list: `["a" "b"]`. */
const quotedList = (list: readonly string[]) => `[${list.map((v) => JSON.stringify(v)).join(' ')}]`;

const tooMany = (field: string, actual: number, max: number): FieldError => ({
  type: 'FieldValueTooMany',
  field,
  message: `Too many: ${actual}: must have at most ${max} items`,
});

/**
 * Checks an index list like `1,3-5` against `completions`; the number of indexes it names, or the
 * reference's error text.
 */
export function parseIndexes(s: string, completions: number): number | string {
  if (s === '') return 0;
  let last: number | undefined;
  let total = 0;
  const toInt = (p: string) => (/^[+-]?\d+$/.test(p) ? Number(p) : undefined);
  for (const interval of s.split(',')) {
    const parts = interval.split('-');
    if (parts.length > 2) return `the fragment ${JSON.stringify(interval)} violates the requirement that an index interval can have at most two parts separated by '-'`;
    for (const [i, part] of parts.entries()) {
      const x = toInt(part);
      if (x === undefined) return `cannot convert string to integer for index: ${JSON.stringify(part)}`;
      if (x >= completions) return `too large index: ${JSON.stringify(part)}`;
      if (last !== undefined && last >= x) return `non-increasing order, previous: ${last}, current: ${x}`;
      total += i === 0 ? 1 : x - (last as number);
      last = x;
    }
  }
  return total;
}

function validatePodFailurePolicy(spec: Obj, path: string, errs: FieldError[]): void {
  const rules = Array.isArray(rec(spec.podFailurePolicy).rules) ? (rec(spec.podFailurePolicy).rules as unknown[]) : [];
  if (rules.length > MAX_POLICY_RULES) errs.push(tooMany(`${path}.rules`, rules.length, MAX_POLICY_RULES));
  const podSpec = rec(rec(spec.template).spec);
  const names = new Set([...objects(podSpec.containers), ...objects(podSpec.initContainers)].map((c) => c.name));
  rules.forEach((raw, i) => {
    const rule = rec(raw);
    const at = `${path}.rules[${i}]`;
    if (absent(rule.action) || rule.action === '') errs.push(fieldError.required(`${at}.action`, `Required value: valid values: ${quotedList(FAILURE_ACTIONS)}`));
    else if (rule.action === 'FailIndex') {
      if (absent(spec.backoffLimitPerIndex)) errs.push(fieldError.invalid(`${at}.action`, rule.action, 'requires the backoffLimitPerIndex to be set'));
    } else if (!FAILURE_ACTIONS.includes(String(rule.action))) errs.push(fieldError.notSupported(`${at}.action`, rule.action, FAILURE_ACTIONS));
    const onExit = rule.onExitCodes;
    const onConditions = objects(rule.onPodConditions);
    if (isObject(onExit)) {
      const op = onExit.operator;
      if (absent(op) || op === '') errs.push(fieldError.required(`${at}.onExitCodes.operator`, `Required value: valid values: ${quotedList(EXIT_CODE_OPERATORS)}`));
      else if (!EXIT_CODE_OPERATORS.includes(String(op))) errs.push(fieldError.notSupported(`${at}.onExitCodes.operator`, op, EXIT_CODE_OPERATORS));
      if (!absent(onExit.containerName) && !names.has(onExit.containerName)) {
        errs.push(fieldError.invalid(`${at}.onExitCodes.containerName`, onExit.containerName, 'must be one of the container or initContainer names in the pod template'));
      }
      const values = Array.isArray(onExit.values) ? (onExit.values as unknown[]) : [];
      if (values.length === 0) errs.push(fieldError.invalid(`${at}.onExitCodes.values`, values, 'at least one value is required'));
      const seen = new Set<unknown>();
      values.forEach((v, j) => {
        if (op === 'In' && v === 0) errs.push(fieldError.invalid(`${at}.onExitCodes.values[${j}]`, v, 'must not be 0 for the In operator'));
        if (seen.has(v)) errs.push(fieldError.duplicate(`${at}.onExitCodes.values[${j}]`, v));
        seen.add(v);
      });
      if (values.some((v, j) => j > 0 && Number(values[j - 1]) > Number(v))) errs.push(fieldError.invalid(`${at}.onExitCodes.values`, values, 'must be ordered'));
    }
    onConditions.forEach((p, j) => {
      const pat = `${at}.onPodConditions[${j}]`;
      for (const msg of isQualifiedName(String(p.type ?? ''))) errs.push(fieldError.invalid(`${pat}.type`, p.type ?? '', msg));
      if (absent(p.status) || p.status === '') errs.push(fieldError.required(`${pat}.status`, `Required value: valid values: ${quotedList(CONDITION_STATUSES)}`));
      else if (!CONDITION_STATUSES.includes(String(p.status))) errs.push(fieldError.notSupported(`${pat}.status`, p.status, CONDITION_STATUSES));
    });
    if (isObject(onExit) && onConditions.length > 0) errs.push({ type: 'FieldValueInvalid', field: at, message: 'Invalid value: specifying both OnExitCodes and OnPodConditions is not supported' });
    if (!isObject(onExit) && onConditions.length === 0) errs.push({ type: 'FieldValueInvalid', field: at, message: 'Invalid value: specifying one of OnExitCodes and OnPodConditions is required' });
  });
}

function validateSuccessPolicy(spec: Obj, path: string, errs: FieldError[]): void {
  if (spec.completionMode !== 'Indexed') {
    errs.push(fieldError.invalid(path, spec.successPolicy, 'requires indexed completion mode'));
    return;
  }
  const rules = objects(rec(spec.successPolicy).rules);
  if (rules.length === 0) errs.push(fieldError.required(`${path}.rules`, 'Required value: at least one rules must be specified when the successPolicy is specified'));
  if (rules.length > MAX_POLICY_RULES) errs.push(tooMany(`${path}.rules`, rules.length, MAX_POLICY_RULES));
  const completions = typeof spec.completions === 'number' ? spec.completions : 0;
  rules.forEach((rule, i) => {
    const at = `${path}.rules[${i}]`;
    if (absent(rule.succeededCount) && absent(rule.succeededIndexes)) {
      errs.push(fieldError.required(at, 'Required value: at least one of succeededCount or succeededIndexes must be specified'));
    }
    let total = 0;
    if (typeof rule.succeededIndexes === 'string') {
      const parsed = parseIndexes(rule.succeededIndexes, completions);
      if (typeof parsed === 'string') errs.push(fieldError.invalid(`${at}.succeededIndexes`, rule.succeededIndexes, `error parsing succeededIndexes: ${parsed}`));
      else total = parsed;
    }
    if (checkInt(errs, `${at}.succeededCount`, rule.succeededCount, 0)) {
      const count = rule.succeededCount as number;
      if (count > completions) errs.push(fieldError.invalid(`${at}.succeededCount`, count, `must be less than or equal to ${completions} (the number of specified completions)`));
      if (!absent(rule.succeededIndexes) && count > total) {
        errs.push(fieldError.invalid(`${at}.succeededCount`, count, `must be less than or equal to ${total} (the number of indexes in the specified succeededIndexes field)`));
      }
    }
  });
}

/** The job spec rules that do not involve the selector (`validateJobSpec`); `path` is e.g. `spec`. */
export function validateJobSpecFields(spec: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of ['parallelism', 'completions', 'activeDeadlineSeconds', 'backoffLimit', 'ttlSecondsAfterFinished', 'backoffLimitPerIndex', 'maxFailedIndexes']) {
    checkInt(errs, `${path}.${f}`, spec[f], 0);
  }
  if (!absent(spec.maxFailedIndexes) && absent(spec.backoffLimitPerIndex)) {
    errs.push(fieldError.required(`${path}.backoffLimitPerIndex`, 'Required value: when maxFailedIndexes is specified'));
  }
  const mode = spec.completionMode;
  if (!absent(mode) && !COMPLETION_MODES.includes(String(mode))) errs.push(fieldError.notSupported(`${path}.completionMode`, mode, COMPLETION_MODES));
  if (mode === 'Indexed') {
    if (absent(spec.completions)) errs.push(fieldError.required(`${path}.completions`, 'Required value: when completion mode is Indexed'));
    if (typeof spec.parallelism === 'number' && spec.parallelism > MAX_INDEXED_PARALLELISM) {
      errs.push(fieldError.invalid(`${path}.parallelism`, spec.parallelism, `must be less than or equal to ${MAX_INDEXED_PARALLELISM} when completion mode is Indexed`));
    }
    const maxFailed = spec.maxFailedIndexes;
    if (typeof maxFailed === 'number') {
      if (typeof spec.completions === 'number' && maxFailed > spec.completions) errs.push(fieldError.invalid(`${path}.maxFailedIndexes`, maxFailed, 'must be less than or equal to completions'));
      if (maxFailed > MAX_FAILED_INDEXES) errs.push(fieldError.invalid(`${path}.maxFailedIndexes`, maxFailed, `must be less than or equal to ${MAX_FAILED_INDEXES}`));
    }
  } else {
    if (!absent(spec.backoffLimitPerIndex)) errs.push(fieldError.invalid(`${path}.backoffLimitPerIndex`, spec.backoffLimitPerIndex, 'requires indexed completion mode'));
    if (!absent(spec.maxFailedIndexes)) errs.push(fieldError.invalid(`${path}.maxFailedIndexes`, spec.maxFailedIndexes, 'requires indexed completion mode'));
  }
  if (isObject(spec.podFailurePolicy)) validatePodFailurePolicy(spec, `${path}.podFailurePolicy`, errs);
  if (isObject(spec.successPolicy)) validateSuccessPolicy(spec, `${path}.successPolicy`, errs);
  const replacement = spec.podReplacementPolicy;
  if (!absent(replacement)) {
    if (isObject(spec.podFailurePolicy)) {
      if (replacement !== 'Failed') errs.push(fieldError.notSupported(`${path}.podReplacementPolicy`, replacement, ['Failed']));
    } else if (!REPLACEMENT_POLICIES.includes(String(replacement))) {
      errs.push(fieldError.notSupported(`${path}.podReplacementPolicy`, replacement, REPLACEMENT_POLICIES));
    }
  }
  errs.push(...validatePodTemplate(spec.template, `${path}.template`));
  // The pod defaults turn an unset policy into Always, so both mean "not chosen".
  const restart = rec(rec(spec.template).spec).restartPolicy;
  const restartPath = `${path}.template.spec.restartPolicy`;
  if (absent(restart) || restart === '' || restart === 'Always') errs.push(fieldError.required(restartPath, 'Required value: valid values: "OnFailure", "Never"'));
  else if (restart !== 'OnFailure' && restart !== 'Never') errs.push(fieldError.notSupported(restartPath, restart, ['OnFailure', 'Never']));
  else if (isObject(spec.podFailurePolicy) && restart !== 'Never') errs.push(fieldError.invalid(restartPath, restart, 'only "Never" is supported when podFailurePolicy is specified'));
  return errs;
}

/** The generated selector must still be what the server generated (`validateGeneratedSelector`). */
function validateGeneratedSelector(job: ApiObject, spec: Obj): FieldError[] {
  if (spec.manualSelector === true || !isObject(spec.selector)) return [];
  const errs: FieldError[] = [];
  const uid = String(job.metadata?.uid ?? '');
  const name = String(job.metadata?.name ?? '');
  if (uid === '') errs.push(fieldError.required('metadata.uid'));
  const labels = rec(rec(rec(spec.template).metadata).labels);
  const expected: Record<string, string> = {
    [LEGACY_CONTROLLER_UID_LABEL]: uid,
    [LEGACY_JOB_NAME_LABEL]: name,
    [CONTROLLER_UID_LABEL]: uid,
    [JOB_NAME_LABEL]: name,
  };
  for (const [key, want] of Object.entries(expected)) {
    const path = `spec.template.metadata.labels[${key}]`;
    if (!(key in labels)) errs.push(fieldError.required(path, `Required value: must be '${want}'`));
    else if (labels[key] !== want) errs.push(fieldError.invalid(path, labels[key], `must be '${want}'`));
  }
  if (!selectorMatches(spec.selector, expected)) errs.push(fieldError.invalid('spec.selector', spec.selector, '`selector` not auto-generated'));
  return errs;
}

/** Counters the job controller writes must not be negative. */
function validateJobStatus(status: Obj): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of ['active', 'succeeded', 'failed', 'ready', 'terminating']) checkInt(errs, `status.${f}`, status[f], 0);
  return errs;
}

/** Every rule of a Job (create and update). */
export function validateJob(job: ApiObject): FieldError[] {
  const spec = rec(job.spec);
  const errs = [...validateGeneratedSelector(job, spec), ...validateJobSpecFields(spec, 'spec')];
  if (absent(spec.selector)) errs.push(fieldError.required('spec.selector'));
  else {
    errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
    const labels = rec(rec(spec.template).metadata).labels;
    if (!selectorMatches(spec.selector, labels)) errs.push(fieldError.invalid('spec.template.metadata.labels', labels ?? null, '`selector` does not match template `labels`'));
  }
  // Indexed pods are named `<job>-<index>`, which must stay a DNS label.
  if (spec.completionMode === 'Indexed' && typeof spec.completions === 'number' && spec.completions > 0) {
    const host = `${String(job.metadata?.name ?? '')}-${spec.completions - 1}`;
    if (isDNS1123Label(host).length > 0) errs.push(fieldError.invalid('metadata.name', job.metadata?.name, `will not able to create pod with invalid DNS label: ${host}`));
  }
  return [...errs, ...validateJobStatus(rec(job.status))];
}

/** Scheduling directives of a suspended job that never started may change; everything else is fixed. */
function comparableTemplate(template: unknown, next: unknown, mutableScheduling: boolean): unknown {
  if (!mutableScheduling || !isObject(template)) return template;
  const out = structuredClone(template);
  const nextTemplate = rec(next);
  const nextSpec = rec(nextTemplate.spec);
  const spec = isObject(out.spec) ? out.spec : (out.spec = {});
  const meta = isObject(out.metadata) ? out.metadata : (out.metadata = {});
  for (const k of ['nodeSelector', 'tolerations', 'schedulingGates']) spec[k] = nextSpec[k];
  meta.labels = rec(nextTemplate.metadata).labels;
  meta.annotations = rec(nextTemplate.metadata).annotations;
  const affinity = isObject(spec.affinity) ? spec.affinity : undefined;
  const nextAffinity = isObject(nextSpec.affinity) ? nextSpec.affinity : undefined;
  if (affinity) affinity.nodeAffinity = nextAffinity?.nodeAffinity;
  else if (nextAffinity) spec.affinity = { nodeAffinity: nextAffinity.nodeAffinity };
  // Dropping the whole affinity is allowed when node affinity was all it held.
  if (!nextAffinity && affinity && sameValue(affinity, {})) delete spec.affinity;
  return out;
}

/** The fields a Job may not change after creation (`ValidateJobSpecUpdate`). */
export function validateJobUpdate(job: ApiObject, old: ApiObject): FieldError[] {
  const spec = rec(job.spec);
  const prev = rec(old.spec);
  const errs: FieldError[] = [];
  if (spec.completionMode === 'Indexed') {
    // Elastic indexed jobs: completions may change together with parallelism.
    if (!sameValue(spec.completions, prev.completions) && !absent(spec.completions) && spec.completions !== spec.parallelism) {
      errs.push(fieldError.invalid('spec.completions', spec.completions, 'can only be modified in tandem with spec.parallelism'));
    }
  } else {
    immutable(errs, 'spec.completions', spec.completions, prev.completions);
  }
  immutable(errs, 'spec.selector', spec.selector, prev.selector);
  const mutableScheduling = prev.suspend === true && absent(rec(old.status).startTime);
  immutable(errs, 'spec.template', spec.template, comparableTemplate(prev.template, spec.template, mutableScheduling));
  for (const f of ['completionMode', 'podFailurePolicy', 'backoffLimitPerIndex', 'managedBy', 'successPolicy']) immutable(errs, `spec.${f}`, spec[f], prev[f]);
  return errs;
}
