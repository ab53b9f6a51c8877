/** Pod validation with the reference's rules, field paths and wording (spec 7: invalid bodies fail). */
import { isObject, type ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import {
  inclusiveRangeError,
  isDNS1123Label,
  isDNS1123Subdomain,
  isIP,
  isLabelValue,
  isQualifiedName,
  isValidPortNum,
  regexError,
  validateLabels,
} from '../../validation/index.js';
import { isValidPortName, PROTOCOLS } from './ports.js';
import { parseQuantity, QUANTITY_FORMAT_ERROR } from './quantity.js';

type Obj = Record<string, unknown>;

export const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
export const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
export const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];
const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];
const TERMINATION_MESSAGE_POLICIES = ['File', 'FallbackToLogsOnError'];
const PREEMPTION_POLICIES = ['PreemptLowerPriority', 'Never'];
const MAX_INT32 = 2147483647;

const ENV_NAME_FMT = '[-._a-zA-Z][-._a-zA-Z0-9]*';
const ENV_NAME_RE = new RegExp(`^${ENV_NAME_FMT}$`);
const ENV_NAME_MSG = "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit";

const isAbsent = (v: unknown): v is undefined | null | '' => v === undefined || v === null || v === '';
export const notFound = (field: string, value: unknown): FieldError => ({
  type: 'FieldValueNotFound',
  field,
  message: `Not found: ${JSON.stringify(value)}`,
});

/** Calls `fn` for each object entry of a list field, reporting a non-list or non-object entries. */
export function eachObject(v: unknown, path: string, errs: FieldError[], fn: (o: Obj, p: string, i: number) => void): void {
  if (v === undefined || v === null) return;
  if (!Array.isArray(v)) {
    errs.push(fieldError.typeInvalid(path, v, 'must be an array of objects'));
    return;
  }
  v.forEach((item: unknown, i) => {
    const p = `${path}[${i}]`;
    if (isObject(item)) fn(item, p, i);
    else errs.push(fieldError.typeInvalid(p, item, 'must be an object'));
  });
}

/** An enumerated field: absent is `Required` when `required`, anything outside `allowed` is `NotSupported`. */
export function oneOf(errs: FieldError[], path: string, v: unknown, allowed: readonly string[], required = false): void {
  if (isAbsent(v)) {
    if (required) errs.push(fieldError.required(path));
  } else if (typeof v !== 'string' || !allowed.includes(v)) {
    errs.push(fieldError.notSupported(path, v, allowed));
  }
}

/** A string field checked by one of the name validators. */
function named(errs: FieldError[], path: string, v: unknown, check: (s: string) => string[]): void {
  if (isAbsent(v)) return;
  if (typeof v !== 'string') errs.push(fieldError.typeInvalid(path, v, 'must be of type string'));
  else for (const msg of check(v)) errs.push(fieldError.invalid(path, v, msg));
}

function validateVolumes(v: unknown, errs: FieldError[]): Set<string> {
  const names = new Set<string>();
  eachObject(v, 'spec.volumes', errs, (vol, p) => {
    const name = vol.name;
    if (isAbsent(name)) errs.push(fieldError.required(`${p}.name`));
    else if (typeof name === 'string') {
      const problems = isDNS1123Label(name);
      for (const msg of problems) errs.push(fieldError.invalid(`${p}.name`, name, msg));
      if (names.has(name)) errs.push(fieldError.duplicate(`${p}.name`, name));
      names.add(name);
    } else errs.push(fieldError.typeInvalid(`${p}.name`, name, 'must be of type string'));
    const sources = Object.keys(vol).filter((k) => k !== 'name' && vol[k] !== null && vol[k] !== undefined);
    if (sources.length === 0) errs.push(fieldError.required(p, 'must specify a volume type'));
    for (const extra of sources.slice(1)) errs.push(fieldError.forbidden(`${p}.${extra}`, 'may not specify more than 1 volume type'));
    const need = (src: string, key: string) => {
      const s = vol[src];
      if (isObject(s) && isAbsent(s[key])) errs.push(fieldError.required(`${p}.${src}.${key}`));
    };
    need('hostPath', 'path');
    need('secret', 'secretName');
    need('configMap', 'name');
    need('persistentVolumeClaim', 'claimName');
    need('nfs', 'server');
    need('nfs', 'path');
  });
  return names;
}

interface ContainerContext {
  init: boolean;
  volumes: Set<string>;
  /** Container names are unique across init, regular and ephemeral containers. */
  names: Set<string>;
  hostNetwork: boolean;
}

function validatePorts(c: Obj, path: string, ctx: ContainerContext, errs: FieldError[]): void {
  const names = new Set<string>();
  eachObject(c.ports, `${path}.ports`, errs, (port, p) => {
    if (!isAbsent(port.name)) {
      named(errs, `${p}.name`, port.name, isValidPortName);
      if (names.has(String(port.name))) errs.push(fieldError.duplicate(`${p}.name`, port.name));
      names.add(String(port.name));
    }
    if (isAbsent(port.containerPort) || port.containerPort === 0) errs.push(fieldError.required(`${p}.containerPort`));
    else for (const msg of isValidPortNum(port.containerPort as number)) errs.push(fieldError.invalid(`${p}.containerPort`, port.containerPort, msg));
    if (!isAbsent(port.hostPort) && port.hostPort !== 0) {
      for (const msg of isValidPortNum(port.hostPort as number)) errs.push(fieldError.invalid(`${p}.hostPort`, port.hostPort, msg));
      if (ctx.hostNetwork && port.hostPort !== port.containerPort) {
        errs.push(fieldError.invalid(`${p}.containerPort`, port.containerPort, 'must match `hostPort` when `hostNetwork` is true'));
      }
    }
    oneOf(errs, `${p}.protocol`, port.protocol, PROTOCOLS, true);
  });
}

function validateEnv(c: Obj, path: string, errs: FieldError[]): void {
  eachObject(c.env, `${path}.env`, errs, (env, p) => {
    if (isAbsent(env.name)) errs.push(fieldError.required(`${p}.name`));
    else if (typeof env.name !== 'string' || !ENV_NAME_RE.test(env.name)) {
      errs.push(fieldError.invalid(`${p}.name`, env.name, regexError(ENV_NAME_MSG, ENV_NAME_FMT, 'my.env-name', 'MY_ENV.NAME', 'MyEnvName1')));
    }
    if (env.valueFrom === undefined || env.valueFrom === null) return;
    const from = isObject(env.valueFrom) ? env.valueFrom : {};
    const set = ['fieldRef', 'resourceFieldRef', 'configMapKeyRef', 'secretKeyRef'].filter((k) => isObject(from[k]));
    if (set.length === 0) {
      errs.push(fieldError.invalid(`${p}.valueFrom`, '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`'));
    } else if (set.length > 1) {
      errs.push(fieldError.invalid(`${p}.valueFrom`, '', 'may not have more than one field specified at a time'));
    }
    if (!isAbsent(env.value)) errs.push(fieldError.invalid(`${p}.valueFrom`, '', 'may not be specified when `value` is not empty'));
  });
}

function validateMounts(c: Obj, path: string, ctx: ContainerContext, errs: FieldError[]): void {
  const paths = new Set<string>();
  eachObject(c.volumeMounts, `${path}.volumeMounts`, errs, (m, p) => {
    if (isAbsent(m.name)) errs.push(fieldError.required(`${p}.name`));
    else if (!ctx.volumes.has(String(m.name))) errs.push(notFound(`${p}.name`, m.name));
    if (isAbsent(m.mountPath)) errs.push(fieldError.required(`${p}.mountPath`));
    else {
      const mp = String(m.mountPath);
      if (paths.has(mp)) errs.push(fieldError.invalid(`${p}.mountPath`, mp, 'must be unique'));
      paths.add(mp);
    }
    if (typeof m.subPath === 'string' && m.subPath !== '') {
      if (m.subPath.startsWith('/')) errs.push(fieldError.invalid(`${p}.subPath`, m.subPath, 'must be a relative path'));
      if (m.subPath.split(/[\\/]/).includes('..')) errs.push(fieldError.invalid(`${p}.subPath`, m.subPath, "must not contain '..'"));
    }
  });
}

function validateResources(c: Obj, path: string, errs: FieldError[]): void {
  if (c.resources === undefined || c.resources === null) return;
  const res = isObject(c.resources) ? c.resources : {};
  // The defaulted `resources: {}` of most containers: nothing to parse or compare.
  if ((res.limits === undefined || res.limits === null) && (res.requests === undefined || res.requests === null)) return;
  const parsed: Record<'limits' | 'requests', Map<string, number>> = { limits: new Map(), requests: new Map() };
  for (const kind of ['limits', 'requests'] as const) {
    const m = res[kind];
    if (m === undefined || m === null) continue;
    if (!isObject(m)) {
      errs.push(fieldError.typeInvalid(`${path}.resources.${kind}`, m, 'must be an object'));
      continue;
    }
    for (const [name, q] of Object.entries(m)) {
      const p = `${path}.resources.${kind}[${name}]`;
      const v = parseQuantity(q);
      if (v === undefined) errs.push(fieldError.invalid(p, q, QUANTITY_FORMAT_ERROR));
      else if (v < 0) errs.push(fieldError.invalid(p, q, 'must be greater than or equal to 0'));
      else parsed[kind].set(name, v);
    }
  }
  for (const [name, req] of parsed.requests) {
    const lim = parsed.limits.get(name);
    if (lim !== undefined && req > lim) {
      const limits = res.limits as Obj;
      errs.push(
        fieldError.invalid(`${path}.resources.requests[${name}]`, (res.requests as Obj)[name], `must be less than or equal to ${name} limit of ${String(limits[name])}`),
      );
    }
  }
}

function validateContainer(c: Obj, path: string, ctx: ContainerContext, errs: FieldError[]): void {
  if (isAbsent(c.name)) errs.push(fieldError.required(`${path}.name`));
  else if (typeof c.name !== 'string') errs.push(fieldError.typeInvalid(`${path}.name`, c.name, 'must be of type string'));
  else {
    for (const msg of isDNS1123Label(c.name)) errs.push(fieldError.invalid(`${path}.name`, c.name, msg));
    if (ctx.names.has(c.name)) errs.push(fieldError.duplicate(`${path}.name`, c.name));
    ctx.names.add(c.name);
  }
  if (isAbsent(c.image)) errs.push(fieldError.required(`${path}.image`));
  else if (typeof c.image !== 'string') errs.push(fieldError.typeInvalid(`${path}.image`, c.image, 'must be of type string'));
  else if (c.image.trim() !== c.image) errs.push(fieldError.invalid(`${path}.image`, c.image, 'must not have leading or trailing whitespace'));
  oneOf(errs, `${path}.imagePullPolicy`, c.imagePullPolicy, PULL_POLICIES);
  oneOf(errs, `${path}.terminationMessagePolicy`, c.terminationMessagePolicy, TERMINATION_MESSAGE_POLICIES);
  if (ctx.init) {
    oneOf(errs, `${path}.restartPolicy`, c.restartPolicy, ['Always']);
    // Only sidecars (restartPolicy Always) run alongside the app, so only they may have probes and hooks.
    if (c.restartPolicy !== 'Always') {
      for (const k of ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe']) {
        if (!isAbsent(c[k])) errs.push(fieldError.forbidden(`${path}.${k}`, 'may not be set for init containers without restartPolicy=Always'));
      }
    }
  } else if (!isAbsent(c.restartPolicy)) {
    errs.push(fieldError.forbidden(`${path}.restartPolicy`, 'may not be set for non-init containers'));
  }
  validatePorts(c, path, ctx, errs);
  validateEnv(c, path, errs);
  validateMounts(c, path, ctx, errs);
  validateResources(c, path, errs);
}

export function validateTolerations(v: unknown, path: string, errs: FieldError[]): void {
  eachObject(v, path, errs, (t, p) => {
    const key = typeof t.key === 'string' ? t.key : '';
    named(errs, `${p}.key`, t.key, isQualifiedName);
    const operator = isAbsent(t.operator) ? 'Equal' : t.operator;
    if (key === '' && operator !== 'Exists') {
      errs.push(fieldError.invalid(`${p}.operator`, t.operator ?? '', 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    }
    if (!isAbsent(t.tolerationSeconds) && t.effect !== 'NoExecute') {
      errs.push(fieldError.invalid(`${p}.effect`, t.effect ?? '', "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    if (operator === 'Equal') named(errs, `${p}.value`, t.value, isLabelValue);
    else if (operator === 'Exists') {
      if (!isAbsent(t.value)) errs.push(fieldError.invalid(`${p}.operator`, t, "value must be empty when `operator` is 'Exists'"));
    } else errs.push(fieldError.notSupported(`${p}.operator`, operator, ['Equal', 'Exists']));
    oneOf(errs, `${p}.effect`, t.effect, TAINT_EFFECTS);
  });
}

function validateDNS(spec: Obj, errs: FieldError[]): void {
  oneOf(errs, 'spec.dnsPolicy', spec.dnsPolicy, DNS_POLICIES, true);
  const cfg = spec.dnsConfig;
  if (spec.dnsPolicy === 'None') {
    if (!isObject(cfg)) {
      errs.push(fieldError.required('spec.dnsConfig', 'Required value: must provide `dnsConfig` when `dnsPolicy` is None'));
      return;
    }
    if (!Array.isArray(cfg.nameservers) || cfg.nameservers.length === 0) {
      errs.push(fieldError.required('spec.dnsConfig.nameservers', 'Required value: must provide at least one DNS nameserver when `dnsPolicy` is None'));
    }
  }
  if (isObject(cfg) && Array.isArray(cfg.nameservers)) {
    cfg.nameservers.forEach((ns: unknown, i) => named(errs, `spec.dnsConfig.nameservers[${i}]`, ns, isIP));
  }
}

export function validatePod(o: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  if (!isObject(o.spec)) return [o.spec === undefined ? fieldError.required('spec') : fieldError.typeInvalid('spec', o.spec, 'must be an object')];
  const spec = o.spec;
  const volumes = validateVolumes(spec.volumes, errs);
  const ctx = { volumes, names: new Set<string>(), hostNetwork: spec.hostNetwork === true };
  eachObject(spec.initContainers, 'spec.initContainers', errs, (c, p) => validateContainer(c, p, { ...ctx, init: true }, errs));
  if (!Array.isArray(spec.containers) || spec.containers.length === 0) {
    if (spec.containers === undefined || spec.containers === null || Array.isArray(spec.containers)) errs.push(fieldError.required('spec.containers'));
    else errs.push(fieldError.typeInvalid('spec.containers', spec.containers, 'must be an array of objects'));
  } else {
    eachObject(spec.containers, 'spec.containers', errs, (c, p) => validateContainer(c, p, { ...ctx, init: false }, errs));
  }
  eachObject(spec.ephemeralContainers, 'spec.ephemeralContainers', errs, (c, p) => {
    if (isAbsent(c.name)) errs.push(fieldError.required(`${p}.name`));
    else if (ctx.names.has(String(c.name))) errs.push(fieldError.duplicate(`${p}.name`, c.name));
    else ctx.names.add(String(c.name));
    if (isAbsent(c.image)) errs.push(fieldError.required(`${p}.image`));
  });
  oneOf(errs, 'spec.restartPolicy', spec.restartPolicy, RESTART_POLICIES, true);
  validateDNS(spec, errs);
  const ads = spec.activeDeadlineSeconds;
  if (!isAbsent(ads) && (typeof ads !== 'number' || !Number.isInteger(ads) || ads < 1 || ads > MAX_INT32)) {
    errs.push(fieldError.invalid('spec.activeDeadlineSeconds', ads, inclusiveRangeError(1, MAX_INT32)));
  }
  validateTolerations(spec.tolerations, 'spec.tolerations', errs);
  errs.push(...validateLabels(spec.nodeSelector, 'spec.nodeSelector'));
  named(errs, 'spec.serviceAccountName', spec.serviceAccountName, isDNS1123Subdomain);
  named(errs, 'spec.nodeName', spec.nodeName, isDNS1123Subdomain);
  named(errs, 'spec.runtimeClassName', spec.runtimeClassName, isDNS1123Subdomain);
  named(errs, 'spec.hostname', spec.hostname, isDNS1123Label);
  named(errs, 'spec.subdomain', spec.subdomain, isDNS1123Label);
  oneOf(errs, 'spec.preemptionPolicy', spec.preemptionPolicy, PREEMPTION_POLICIES);
  return errs;
}
