/** core/v1 Node: a worker machine; node agents register it with their status and keep that status current. */
import { isIP as netIsIP } from 'node:net';
import { isDeepStrictEqual } from 'node:util';
import { LABEL_DOMAIN } from '../../../api/naming.js';
import { isObject, type ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { column } from '../../schema.js';
import type { ResourceType } from '../../types.js';
import { isLabelValue, isQualifiedName, optionalBoolean } from '../../validation/index.js';
import { definitionSchema } from '../../reference-schema.js';
import { metadataForStatusWrite } from '../../object-meta.js';

const nodeSchema = definitionSchema('api.core.v1.Node');

type Obj = Record<string, unknown>;

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];
/** Role labels: `node-role.<suffix>/<role>` (any value) and the older `<suffix>/role=<role>`. */
const ROLE_PREFIX = `node-role.${LABEL_DOMAIN}/`;
const ROLE_LABEL = `${LABEL_DOMAIN}/role`;
const CIDR_ERROR = 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)';

const rec = (v: unknown): Obj => (isObject(v) ? v : {});
const objects = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObject) : []);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map((x) => String(x)) : []);

/** IP family of a CIDR (4 or 6), or 0 when it is not one. */
export function cidrFamily(v: string): 0 | 4 | 6 {
  const slash = v.indexOf('/');
  if (slash < 0) return 0;
  const family = netIsIP(v.slice(0, slash));
  const bits = v.slice(slash + 1);
  if (family === 0 || !/^\d{1,3}$/.test(bits) || Number(bits) > (family === 4 ? 32 : 128)) return 0;
  return family as 4 | 6;
}

/** podCIDRs is the source of truth; podCIDR mirrors its first entry (the reference's conversion). */
function syncPodCIDRs(o: ApiObject): void {
  if (!isObject(o.spec)) return;
  const spec = o.spec;
  if (Array.isArray(spec.podCIDRs) && spec.podCIDRs.length > 0) spec.podCIDR = spec.podCIDRs[0];
  else if (typeof spec.podCIDR === 'string' && spec.podCIDR !== '') spec.podCIDRs = [spec.podCIDR];
}

function defaultAllocatable(o: ApiObject): void {
  const status = o.status;
  if (isObject(status) && isObject(status.capacity) && status.allocatable === undefined) status.allocatable = { ...status.capacity };
}

function validate(o: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = rec(o.spec);
  const cidrs = strings(spec.podCIDRs);
  if (cidrs.length > 0) {
    cidrs.forEach((c, i) => {
      if (cidrFamily(c) === 0) errs.push(fieldError.invalid(`spec.podCIDRs[${i}]`, c, CIDR_ERROR));
    });
    // Two CIDRs must be a dual-stack pair (only judged once each one parses).
    const families = cidrs.map(cidrFamily);
    if (!families.includes(0) && (cidrs.length > 2 || (cidrs.length === 2 && families[0] === families[1]))) {
      errs.push(fieldError.invalid('spec.podCIDRs', spec.podCIDRs, 'may specify no more than one CIDR for each IP family'));
    }
  } else if (text(spec.podCIDR) !== '' && cidrFamily(text(spec.podCIDR)) === 0) {
    errs.push(fieldError.invalid('spec.podCIDR', spec.podCIDR, CIDR_ERROR));
  }
  errs.push(...optionalBoolean('spec.unschedulable', spec.unschedulable));
  const seen = new Set<string>();
  objects(spec.taints).forEach((t, i) => {
    const p = `spec.taints[${i}]`;
    const key = text(t.key);
    if (key === '') errs.push(fieldError.required(`${p}.key`));
    else for (const msg of isQualifiedName(key)) errs.push(fieldError.invalid(`${p}.key`, key, msg));
    for (const msg of isLabelValue(text(t.value))) errs.push(fieldError.invalid(`${p}.value`, t.value, msg));
    const effect = text(t.effect);
    if (effect === '') errs.push(fieldError.required(`${p}.effect`));
    else if (!TAINT_EFFECTS.includes(effect)) errs.push(fieldError.notSupported(`${p}.effect`, effect, TAINT_EFFECTS));
    // A key may carry one taint per effect.
    const id = `${key}:${effect}`;
    if (seen.has(id)) errs.push(fieldError.duplicate(p, id));
    seen.add(id);
  });
  return errs;
}

function validateUpdate(o: ApiObject, old: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = rec(o.spec);
  const oldSpec = rec(old.spec);
  // A CIDR or provider ID may be assigned once (by the controller manager) but never changed.
  const oldCidrs = strings(oldSpec.podCIDRs);
  if (oldCidrs.length > 0 && !isDeepStrictEqual(oldCidrs, strings(spec.podCIDRs))) {
    errs.push(fieldError.forbidden('spec.podCIDRs', 'node updates may not change podCIDR except from "" to valid'));
  }
  if (text(oldSpec.providerID) !== '' && oldSpec.providerID !== spec.providerID) {
    errs.push(fieldError.forbidden('spec.providerID', 'node updates may not change providerID except from "" to valid'));
  }
  return errs;
}

/** "Ready", "NotReady" or "Unknown", plus ",SchedulingDisabled" for cordoned nodes (the reference printer). */
function nodeStatusText(o: ApiObject): string {
  const ready = objects(rec(o.status).conditions).find((c) => c.type === 'Ready');
  const parts = [ready === undefined ? 'Unknown' : ready.status === 'True' ? 'Ready' : 'NotReady'];
  if (rec(o.spec).unschedulable === true) parts.push('SchedulingDisabled');
  return parts.join(',');
}

function roles(o: ApiObject): string {
  const found = new Set<string>();
  for (const [k, v] of Object.entries(o.metadata?.labels ?? {})) {
    if (k.startsWith(ROLE_PREFIX) && k.length > ROLE_PREFIX.length) found.add(k.slice(ROLE_PREFIX.length));
    else if (k === ROLE_LABEL && v !== '') found.add(v);
  }
  return found.size === 0 ? '<none>' : [...found].sort().join(',');
}

const address = (o: ApiObject, type: string) =>
  text(objects(rec(o.status).addresses).find((a) => a.type === type)?.address) || '<none>';
const info = (o: ApiObject, key: string) => text(rec(rec(o.status).nodeInfo)[key]) || '<unknown>';

export const nodes: ResourceType = {
  group: '',
  version: 'v1',
  kind: 'Node',
  listKind: 'NodeList',
  plural: 'nodes',
  singular: 'node',
  shortNames: ['no'],
  namespaced: false,
  subresources: ['status'],
  storageKey: 'core/nodes',
  schema: nodeSchema,
  strategy: {
    nameRule: 'subdomain',
    tracksGeneration: false,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    // Node agents register with their status, so create keeps it (as the reference does).
    prepareForCreate(o) {
      syncPodCIDRs(o);
      defaultAllocatable(o);
    },
    prepareForUpdate(o, old) {
      syncPodCIDRs(o);
      o.status = old.status;
    },
    prepareForStatusUpdate(o, old) {
      o.spec = old.spec;
      o.metadata = metadataForStatusWrite(o, old);
      defaultAllocatable(o);
    },
    validate,
    validateUpdate,
  },
  tableColumns: [
    column('Status', 'string', 'The status of the node', nodeStatusText),
    column('Roles', 'string', 'The roles of the node', roles),
    column('Version', 'string', 'Node agent version.', (o) => text(rec(rec(o.status).nodeInfo).kubeletVersion)),
    column('Internal-IP', 'string', 'Node address.', (o) => address(o, 'InternalIP'), 1),
    column('External-IP', 'string', 'Node address.', (o) => address(o, 'ExternalIP'), 1),
    column('OS-Image', 'string', 'Operating system image.', (o) => info(o, 'osImage'), 1),
    column('Kernel-Version', 'string', 'Kernel version.', (o) => info(o, 'kernelVersion'), 1),
    column('Container-Runtime', 'string', 'Container runtime and version.', (o) => info(o, 'containerRuntimeVersion'), 1),
  ],
  selectableFields: (o) => ({ 'spec.unschedulable': rec(o.spec).unschedulable === true ? 'true' : 'false' }),
};
