/**
 * The reference's pod defaults (its v1 defaulting; the service account and priority are admission's),
 * applied on create and on update: the reference defaults every decoded object, so a PUT of a manifest without
 * defaults compares equal to the stored pod.
 */
import { isObject, type ApiObject } from '../../../api/types.js';
import { podQOSClass } from './quantity.js';

type Obj = Record<string, unknown>;

const setDefault = (o: Obj, key: string, value: unknown) => {
  if (o[key] === undefined || o[key] === null || o[key] === '') o[key] = value;
};
const objects = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObject) : []);

/** `latest`, or no tag and no digest (which means `latest`), pulls always; a pinned tag or digest only if absent. */
export function defaultPullPolicy(image: string): 'Always' | 'IfNotPresent' {
  const at = image.indexOf('@');
  const name = at >= 0 ? image.slice(0, at) : image;
  const colon = name.lastIndexOf(':');
  const tag = colon > name.lastIndexOf('/') ? name.slice(colon + 1) : '';
  return tag === 'latest' || (tag === '' && at < 0) ? 'Always' : 'IfNotPresent';
}

function probeDefaults(p: unknown): void {
  if (!isObject(p)) return;
  setDefault(p, 'timeoutSeconds', 1);
  setDefault(p, 'periodSeconds', 10);
  setDefault(p, 'successThreshold', 1);
  setDefault(p, 'failureThreshold', 3);
  if (isObject(p.httpGet)) {
    setDefault(p.httpGet, 'path', '/');
    setDefault(p.httpGet, 'scheme', 'HTTP');
  }
}

function containerDefaults(c: Obj, hostNetwork: boolean): void {
  if (typeof c.image === 'string') setDefault(c, 'imagePullPolicy', defaultPullPolicy(c.image));
  setDefault(c, 'terminationMessagePath', '/dev/termination-log');
  setDefault(c, 'terminationMessagePolicy', 'File');
  if (!isObject(c.resources)) c.resources = {};
  const res = c.resources as Obj;
  // Limits without requests mean the container asks for exactly its limits.
  if (isObject(res.limits)) {
    const requests: Obj = isObject(res.requests) ? res.requests : {};
    for (const [k, v] of Object.entries(res.limits)) if (requests[k] === undefined) requests[k] = v;
    if (Object.keys(requests).length > 0) res.requests = requests;
  }
  for (const port of objects(c.ports)) {
    setDefault(port, 'protocol', 'TCP');
    // With host networking the container port is the host port.
    if (hostNetwork && port.hostPort === undefined && port.containerPort !== undefined) port.hostPort = port.containerPort;
  }
  for (const env of objects(c.env)) {
    if (isObject(env.valueFrom) && isObject(env.valueFrom.fieldRef)) setDefault(env.valueFrom.fieldRef, 'apiVersion', 'v1');
  }
  probeDefaults(c.livenessProbe);
  probeDefaults(c.readinessProbe);
  probeDefaults(c.startupProbe);
}

/** Modes are decimal in JSON: 420 is 0644. */
const DEFAULT_MODE = 0o644;

function volumeDefaults(v: Obj): void {
  // A volume without a source is an emptyDir in the reference.
  if (Object.keys(v).every((k) => k === 'name')) v.emptyDir = {};
  for (const src of ['secret', 'configMap', 'downwardAPI', 'projected']) {
    const s = v[src];
    if (isObject(s)) setDefault(s, 'defaultMode', DEFAULT_MODE);
  }
  if (isObject(v.hostPath)) setDefault(v.hostPath, 'type', '');
}

/** Fills the spec defaults in place (creating `spec` when absent), admission defaults included. */
export function applyPodDefaults(o: ApiObject): Obj {
  if (o.spec === undefined || o.spec === null) o.spec = {};
  if (!isObject(o.spec)) return {};
  const spec = o.spec;
  applyPodSpecDefaults(spec);
  // The service account (`default` when none is named) is the ServiceAccount admission plugin's to fill, as
  // priority and preemption policy are the Priority plugin's: with the plugin off a pod names none.
  setDefault(spec, 'enableServiceLinks', true);
  return spec;
}

/** The defaults every pod spec gets, in a pod or in a pod template of a workload. */
export function applyPodSpecDefaults(spec: Obj): void {
  setDefault(spec, 'restartPolicy', 'Always');
  setDefault(spec, 'dnsPolicy', 'ClusterFirst');
  setDefault(spec, 'terminationGracePeriodSeconds', 30);
  setDefault(spec, 'schedulerName', 'default-scheduler');
  if (!isObject(spec.securityContext)) spec.securityContext = {};
  // serviceAccount is the deprecated alias; when one is set both carry the same name.
  const sa = [spec.serviceAccountName, spec.serviceAccount].find((v) => typeof v === 'string' && v !== '');
  if (sa !== undefined) {
    spec.serviceAccountName = sa;
    spec.serviceAccount = sa;
  }
  const hostNetwork = spec.hostNetwork === true;
  for (const list of [spec.containers, spec.initContainers, spec.ephemeralContainers]) {
    for (const c of objects(list)) containerDefaults(c, hostNetwork);
  }
  for (const v of objects(spec.volumes)) volumeDefaults(v);
}

/** A new pod starts Pending; its QoS class is fixed by its resources. */
export function initialPodStatus(spec: Obj): Obj {
  return { phase: 'Pending', qosClass: podQOSClass(spec) };
}
