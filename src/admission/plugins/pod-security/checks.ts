/**
 * The Pod Security Standards checks of the reference 1.31 (baseline and restricted), as pure functions of a
 * pod's metadata and spec. Each check has versions (the newest one not newer than the policy's version
 * applies) and answers a reason and a detail in the reference's wording, which users and tools match on.
 */
import { APPARMOR_CONTAINER_ANNOTATION_PREFIX, SECCOMP_CONTAINER_ANNOTATION_PREFIX, SECCOMP_POD_ANNOTATION } from '../../../api/naming.js';

export type Level = 'privileged' | 'baseline' | 'restricted';
type Rec = Record<string, unknown>;
export interface Violation {
  reason: string;
  detail: string;
}
type CheckFn = (meta: Rec, spec: Rec) => Violation | undefined;

interface VersionedCheck {
  /** The minor version of 1.x from which this implementation applies. */
  minimum: number;
  fn: CheckFn;
  /** Baseline checks this restricted check replaces. */
  overrides?: string[];
}
interface Check {
  id: string;
  level: 'baseline' | 'restricted';
  versions: VersionedCheck[];
}

const rec = (v: unknown): Rec | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Rec) : undefined);
const list = (v: unknown): Rec[] => (Array.isArray(v) ? v.map((x) => rec(x) ?? {}) : []);
const sc = (o: Rec | undefined): Rec | undefined => rec(o?.securityContext);
const nameOf = (c: Rec) => String(c.name ?? '');
/** Init containers, then containers, then ephemeral containers: the reference's visiting order. */
const containersOf = (spec: Rec): Rec[] => [...list(spec.initContainers), ...list(spec.containers), ...list(spec.ephemeralContainers)];
const isWindows = (spec: Rec) => rec(spec.os)?.name === 'windows';
const plural = (one: string, many: string, n: number) => (n === 1 ? one : many);
const joinQuote = (items: readonly string[]) => items.map((s) => JSON.stringify(s)).join(', ');
const uniqSorted = (items: readonly string[]) => [...new Set(items)].sort();
const containersPhrase = (names: readonly string[]) => `${plural('container', 'containers', names.length)} ${joinQuote(names)}`;
/** "pod and containers "a", "b"" followed by what they must not do. */
function setters(pod: boolean, names: readonly string[], suffix: string): string {
  const who = [...(pod ? ['pod'] : []), ...(names.length > 0 ? [containersPhrase(names)] : [])];
  return `${who.join(' and ')}${suffix}`;
}
const fail = (reason: string, detail: string): Violation => ({ reason, detail });

function hostNamespaces(_m: Rec, spec: Rec): Violation | undefined {
  const found = (['hostNetwork', 'hostPID', 'hostIPC'] as const).filter((k) => spec[k] === true).map((k) => `${k}=true`);
  return found.length ? fail('host namespaces', found.join(', ')) : undefined;
}

function privileged(_m: Rec, spec: Rec): Violation | undefined {
  const bad = containersOf(spec).filter((c) => sc(c)?.privileged === true).map(nameOf);
  return bad.length ? fail('privileged', `${containersPhrase(bad)} must not set securityContext.privileged=true`) : undefined;
}

export const BASELINE_CAPABILITIES = new Set(['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT']);
const addedCaps = (c: Rec): string[] => (Array.isArray(rec(sc(c)?.capabilities)?.add) ? (rec(sc(c)?.capabilities)!.add as unknown[]).map(String) : []);

function capabilitiesBaseline(_m: Rec, spec: Rec): Violation | undefined {
  const bad: string[] = [];
  const caps: string[] = [];
  for (const c of containersOf(spec)) {
    const extra = addedCaps(c).filter((x) => !BASELINE_CAPABILITIES.has(x));
    if (extra.length) (bad.push(nameOf(c)), caps.push(...extra));
  }
  return bad.length ? fail('non-default capabilities', `${containersPhrase(bad)} must not include ${joinQuote(uniqSorted(caps))} in securityContext.capabilities.add`) : undefined;
}

function capabilitiesRestricted(_m: Rec, spec: Rec): Violation | undefined {
  if (isWindows(spec)) return undefined;
  const noDrop: string[] = [];
  const adding: string[] = [];
  const caps: string[] = [];
  for (const c of containersOf(spec)) {
    const capabilities = rec(sc(c)?.capabilities);
    const drop = Array.isArray(capabilities?.drop) ? (capabilities.drop as unknown[]) : [];
    if (!drop.includes('ALL')) noDrop.push(nameOf(c));
    const extra = addedCaps(c).filter((x) => x !== 'NET_BIND_SERVICE');
    if (extra.length) (adding.push(nameOf(c)), caps.push(...extra));
  }
  const details: string[] = [];
  if (noDrop.length) details.push(`${containersPhrase(noDrop)} must set securityContext.capabilities.drop=["ALL"]`);
  if (adding.length) details.push(`${containersPhrase(adding)} must not include ${joinQuote(uniqSorted(caps))} in securityContext.capabilities.add`);
  return details.length ? fail('unrestricted capabilities', details.join('; ')) : undefined;
}

function hostPathVolumes(_m: Rec, spec: Rec): Violation | undefined {
  const bad = list(spec.volumes).filter((v) => v.hostPath !== undefined && v.hostPath !== null).map(nameOf);
  return bad.length ? fail('hostPath volumes', `${plural('volume', 'volumes', bad.length)} ${joinQuote(bad)}`) : undefined;
}

function hostPorts(_m: Rec, spec: Rec): Violation | undefined {
  const bad: string[] = [];
  const ports: number[] = [];
  for (const c of containersOf(spec)) {
    const used = list(c.ports).map((p) => Number(p.hostPort ?? 0)).filter((p) => p !== 0);
    if (used.length) (bad.push(nameOf(c)), ports.push(...used));
  }
  if (!bad.length) return undefined;
  const unique = [...new Set(ports)].sort((a, b) => a - b);
  return fail('hostPort', `${containersPhrase(bad)} ${plural('uses', 'use', bad.length)} ${plural('hostPort', 'hostPorts', unique.length)} ${unique.join(', ')}`);
}

const APPARMOR_ALLOWED_TYPES = new Set(['RuntimeDefault', 'Localhost']);

function appArmorProfile(meta: Rec, spec: Rec): Violation | undefined {
  const who: string[] = [];
  const values: string[] = [];
  const podProfile = rec(sc(spec)?.appArmorProfile);
  if (podProfile && !APPARMOR_ALLOWED_TYPES.has(String(podProfile.type))) (who.push('pod'), values.push(String(podProfile.type ?? '')));
  const bad: string[] = [];
  for (const c of containersOf(spec)) {
    const p = rec(sc(c)?.appArmorProfile);
    if (p && !APPARMOR_ALLOWED_TYPES.has(String(p.type))) (bad.push(nameOf(c)), values.push(String(p.type ?? '')));
  }
  if (bad.length) who.push(containersPhrase(bad));
  const forbidden: string[] = [];
  for (const [k, v] of Object.entries(rec(meta.annotations) ?? {})) {
    if (!k.startsWith(APPARMOR_CONTAINER_ANNOTATION_PREFIX)) continue;
    const text = String(v);
    if (text === '' || text === 'runtime/default' || text.startsWith('localhost/')) continue;
    forbidden.push(`${k}=${JSON.stringify(text)}`);
  }
  const all = uniqSorted(values);
  if (forbidden.length) (all.push(...forbidden.sort()), who.push(plural('annotation', 'annotations', forbidden.length)));
  if (!who.length) return undefined;
  return fail(plural('forbidden AppArmor profile', 'forbidden AppArmor profiles', all.length), `${who.join(' and ')} must not set AppArmor profile type to ${joinQuote(all)}`);
}

const SELINUX_TYPES_1_0 = ['', 'container_t', 'container_init_t', 'container_kvm_t'];
const SELINUX_TYPES_1_31 = [...SELINUX_TYPES_1_0, 'container_engine_t'];

const seLinuxOptions = (allowed: readonly string[]): CheckFn => (_m, spec) => {
  const badTypes: string[] = [];
  let setUser = false;
  let setRole = false;
  const valid = (o: Rec): boolean => {
    let ok = true;
    const type = String(o.type ?? '');
    if (!allowed.includes(type)) (ok = false), badTypes.push(type);
    if (String(o.user ?? '') !== '') (ok = false), (setUser = true);
    if (String(o.role ?? '') !== '') (ok = false), (setRole = true);
    return ok;
  };
  const podOpts = rec(sc(spec)?.seLinuxOptions);
  const pod = podOpts !== undefined && !valid(podOpts);
  const bad = containersOf(spec).filter((c) => {
    const o = rec(sc(c)?.seLinuxOptions);
    return o !== undefined && !valid(o);
  }).map(nameOf);
  if (!pod && !bad.length) return undefined;
  const types = uniqSorted(badTypes);
  const data = [...(types.length ? [`${plural('type', 'types', types.length)} ${joinQuote(types)}`] : []), ...(setUser ? ['user may not be set'] : []), ...(setRole ? ['role may not be set'] : [])];
  return fail('seLinuxOptions', setters(pod, bad, ` set forbidden securityContext.seLinuxOptions: ${data.join('; ')}`));
};

function procMount(_m: Rec, spec: Rec): Violation | undefined {
  const bad: string[] = [];
  const types: string[] = [];
  for (const c of containersOf(spec)) {
    const m = sc(c)?.procMount;
    if (m === undefined || m === null || m === 'Default') continue;
    bad.push(nameOf(c));
    types.push(String(m));
  }
  return bad.length ? fail('procMount', `${containersPhrase(bad)} must not set securityContext.procMount to ${joinQuote(uniqSorted(types))}`) : undefined;
}

const SECCOMP_ALLOWED = new Set(['RuntimeDefault', 'Localhost']);

/** Who sets a forbidden seccomp type, and (restricted) which containers leave it unset with no pod default. */
function seccompSetters(spec: Rec, wantSet: boolean) {
  let pod = false;
  let podSet = false;
  const values: string[] = [];
  const p = rec(sc(spec)?.seccompProfile);
  if (p) {
    if (SECCOMP_ALLOWED.has(String(p.type))) podSet = true;
    else (pod = true), values.push(String(p.type ?? ''));
  }
  const explicit: string[] = [];
  const implicit: string[] = [];
  for (const c of containersOf(spec)) {
    const cp = rec(sc(c)?.seccompProfile);
    if (cp) {
      if (!SECCOMP_ALLOWED.has(String(cp.type))) (explicit.push(nameOf(c)), values.push(String(cp.type ?? '')));
    } else if (wantSet && !podSet) implicit.push(nameOf(c));
  }
  return { pod, explicit, implicit, values: uniqSorted(values) };
}

const validSeccompAnnotation = (t: string) => t === 'runtime/default' || t === 'docker/default' || t.startsWith('localhost/');

/** Before 1.19 seccomp was set by annotations, for the pod and per container. */
function seccompAnnotations(meta: Rec, spec: Rec): Violation | undefined {
  const annotations = rec(meta.annotations) ?? {};
  const keys = [SECCOMP_POD_ANNOTATION, ...containersOf(spec).map((c) => SECCOMP_CONTAINER_ANNOTATION_PREFIX + nameOf(c))];
  const bad = keys.filter((k) => k in annotations && !validSeccompAnnotation(String(annotations[k]))).map((k) => `${k}=${JSON.stringify(String(annotations[k]))}`);
  const unique = uniqSorted(bad);
  return unique.length ? fail('seccompProfile', `forbidden ${plural('annotation', 'annotations', unique.length)} ${unique.join(', ')}`) : undefined;
}

function seccompBaseline(_m: Rec, spec: Rec): Violation | undefined {
  const s = seccompSetters(spec, false);
  if (!s.pod && !s.explicit.length) return undefined;
  return fail('seccompProfile', setters(s.pod, s.explicit, ` must not set securityContext.seccompProfile.type to ${joinQuote(s.values)}`));
}

function seccompRestricted(_m: Rec, spec: Rec): Violation | undefined {
  if (isWindows(spec)) return undefined;
  const s = seccompSetters(spec, true);
  if (s.pod || s.explicit.length) return fail('seccompProfile', setters(s.pod, s.explicit, ` must not set securityContext.seccompProfile.type to ${joinQuote(s.values)}`));
  if (!s.implicit.length) return undefined;
  return fail('seccompProfile', `pod or ${containersPhrase(s.implicit)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`);
}

const SYSCTLS_1_0 = ['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range', 'net.ipv4.ip_unprivileged_port_start'];
const SYSCTLS_1_27 = [...SYSCTLS_1_0, 'net.ipv4.ip_local_reserved_ports'];
const SYSCTLS_1_29 = [...SYSCTLS_1_27, 'net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes'];

const sysctls = (allowed: readonly string[]): CheckFn => (_m, spec) => {
  const bad = list(sc(spec)?.sysctls).map(nameOf).filter((n) => !allowed.includes(n));
  return bad.length ? fail('forbidden sysctls', bad.join(', ')) : undefined;
};

function windowsHostProcess(_m: Rec, spec: Rec): Violation | undefined {
  const bad = containersOf(spec).filter((c) => rec(sc(c)?.windowsOptions)?.hostProcess === true).map(nameOf);
  const pod = rec(sc(spec)?.windowsOptions)?.hostProcess === true;
  return pod || bad.length ? fail('hostProcess', setters(pod, bad, ' must not set securityContext.windowsOptions.hostProcess=true')) : undefined;
}

function allowPrivilegeEscalation(_m: Rec, spec: Rec): Violation | undefined {
  const bad = containersOf(spec).filter((c) => sc(c)?.allowPrivilegeEscalation !== false).map(nameOf);
  return bad.length ? fail('allowPrivilegeEscalation != false', `${containersPhrase(bad)} must set securityContext.allowPrivilegeEscalation=false`) : undefined;
}

function restrictedVolumes(_m: Rec, spec: Rec): Violation | undefined {
  const bad: string[] = [];
  const types: string[] = [];
  for (const v of list(spec.volumes)) {
    if (ALLOWED_VOLUME_SOURCES.some((s) => v[s] !== undefined && v[s] !== null)) continue;
    bad.push(nameOf(v));
    types.push(RESTRICTED_VOLUME_TYPES.find((t) => v[t] !== undefined && v[t] !== null) ?? 'unknown');
  }
  if (!bad.length) return undefined;
  const unique = uniqSorted(types);
  return fail('restricted volume types', `${plural('volume', 'volumes', bad.length)} ${joinQuote(bad)} ${plural('uses', 'use', bad.length)} ${plural('restricted volume type', 'restricted volume types', unique.length)} ${joinQuote(unique)}`);
}
const ALLOWED_VOLUME_SOURCES = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret'];
const RESTRICTED_VOLUME_TYPES = ['hostPath', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'nfs', 'iscsi', 'glusterfs', 'rbd', 'flexVolume', 'cinder', 'cephfs', 'flocker', 'fc', 'azureFile', 'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'portworxVolume', 'scaleIO', 'storageos'];

function runAsNonRoot(_m: Rec, spec: Rec): Violation | undefined {
  const podValue = sc(spec)?.runAsNonRoot;
  const pod = podValue === false;
  const podNonRoot = podValue === true;
  const explicit: string[] = [];
  const implicit: string[] = [];
  for (const c of containersOf(spec)) {
    const own = sc(c)?.runAsNonRoot;
    if (own !== undefined && own !== null) {
      if (own === false) explicit.push(nameOf(c));
    } else if (!podNonRoot) implicit.push(nameOf(c));
  }
  if (pod || explicit.length) return fail('runAsNonRoot != true', setters(pod, explicit, ' must not set securityContext.runAsNonRoot=false'));
  if (!implicit.length) return undefined;
  return fail('runAsNonRoot != true', `pod or ${containersPhrase(implicit)} must set securityContext.runAsNonRoot=true`);
}

function runAsUser(_m: Rec, spec: Rec): Violation | undefined {
  const pod = sc(spec)?.runAsUser === 0;
  const bad = containersOf(spec).filter((c) => sc(c)?.runAsUser === 0).map(nameOf);
  return pod || bad.length ? fail('runAsUser=0', setters(pod, bad, ' must not set runAsUser=0')) : undefined;
}

const CHECKS: Check[] = [
  { id: 'allowPrivilegeEscalation', level: 'restricted', versions: [{ minimum: 8, fn: allowPrivilegeEscalation }, { minimum: 25, fn: (m, s) => (isWindows(s) ? undefined : allowPrivilegeEscalation(m, s)) }] },
  { id: 'appArmorProfile', level: 'baseline', versions: [{ minimum: 0, fn: appArmorProfile }] },
  { id: 'capabilities_baseline', level: 'baseline', versions: [{ minimum: 0, fn: capabilitiesBaseline }] },
  { id: 'capabilities_restricted', level: 'restricted', versions: [{ minimum: 22, fn: capabilitiesRestricted, overrides: ['capabilities_baseline'] }] },
  { id: 'hostNamespaces', level: 'baseline', versions: [{ minimum: 0, fn: hostNamespaces }] },
  { id: 'hostPathVolumes', level: 'baseline', versions: [{ minimum: 0, fn: hostPathVolumes }] },
  { id: 'hostPorts', level: 'baseline', versions: [{ minimum: 0, fn: hostPorts }] },
  { id: 'privileged', level: 'baseline', versions: [{ minimum: 0, fn: privileged }] },
  { id: 'procMount', level: 'baseline', versions: [{ minimum: 0, fn: procMount }] },
  { id: 'restrictedVolumes', level: 'restricted', versions: [{ minimum: 0, fn: restrictedVolumes, overrides: ['hostPathVolumes'] }] },
  { id: 'runAsNonRoot', level: 'restricted', versions: [{ minimum: 0, fn: runAsNonRoot }] },
  { id: 'runAsUser', level: 'restricted', versions: [{ minimum: 23, fn: runAsUser }] },
  { id: 'seLinuxOptions', level: 'baseline', versions: [{ minimum: 0, fn: seLinuxOptions(SELINUX_TYPES_1_0) }, { minimum: 31, fn: seLinuxOptions(SELINUX_TYPES_1_31) }] },
  { id: 'seccompProfile_baseline', level: 'baseline', versions: [{ minimum: 0, fn: seccompAnnotations }, { minimum: 19, fn: seccompBaseline }] },
  { id: 'seccompProfile_restricted', level: 'restricted', versions: [{ minimum: 19, fn: seccompRestricted, overrides: ['seccompProfile_baseline'] }] },
  { id: 'sysctls', level: 'baseline', versions: [{ minimum: 0, fn: sysctls(SYSCTLS_1_0) }, { minimum: 27, fn: sysctls(SYSCTLS_1_27) }, { minimum: 29, fn: sysctls(SYSCTLS_1_29) }] },
  { id: 'windowsHostProcess', level: 'baseline', versions: [{ minimum: 0, fn: windowsHostProcess }] },
];

/** The newest minor version these checks know: `latest` evaluates as this one, as do newer versions. */
export const LATEST_MINOR = 31;

/** The checks of a level at version 1.<minor>, in the reference's order (baseline IDs, then restricted IDs). */
function checksFor(level: 'baseline' | 'restricted', minor: number): CheckFn[] {
  const at = (c: Check) => [...c.versions].reverse().find((v) => v.minimum <= minor);
  const byLevel = (l: Check['level']) => CHECKS.filter((c) => c.level === l && at(c)).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const restricted = level === 'restricted' ? byLevel('restricted') : [];
  const replaced = new Set(restricted.flatMap((c) => at(c)!.overrides ?? []));
  return [...byLevel('baseline').filter((c) => !replaced.has(c.id)), ...restricted].map((c) => at(c)!.fn);
}

const cache = new Map<string, CheckFn[]>();

/** Every violation of the pod at `level` and version 1.<minor> (undefined: latest), in check order. */
export function evaluatePod(level: Level, minor: number | undefined, meta: Rec, spec: Rec): Violation[] {
  if (level === 'privileged') return [];
  const v = Math.min(minor ?? LATEST_MINOR, LATEST_MINOR);
  const key = `${level}:${v}`;
  let fns = cache.get(key);
  if (!fns) cache.set(key, (fns = checksFor(level, v)));
  const out: Violation[] = [];
  for (const fn of fns) {
    const r = fn(meta, spec);
    if (r) out.push(r);
  }
  return out;
}

/** `reason (detail), reason (detail)`: the text after `violates PodSecurity "<level>:<version>": `. */
export const forbiddenDetail = (vs: readonly Violation[]): string => vs.map((v) => (v.detail ? `${v.reason} (${v.detail})` : v.reason)).join(', ');
/** The reasons alone (the namespace-label warning about existing pods). */
export const forbiddenReason = (vs: readonly Violation[]): string => vs.map((v) => v.reason).join(', ');
