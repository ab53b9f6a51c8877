/**
 * The structural-schema rules of CRD v1 (apiextensions "Specifying a structural schema"): every node
 * says its type, logic junctors only restrict what the structural part already declares, the root's
 * metadata is implicit, and the list/map extensions are used where they mean something.
 */
import type { Node, SchemaReader } from './node.js';
import { SCALAR_TYPES } from './node.js';

type Level = 'root' | 'field' | 'item';

/** Checks the structural part (properties, items, additionalProperties) from `node` down. */
export function checkStructural(r: SchemaReader, node: Node, path: string, level: Level = 'root'): void {
  const t = node.type;
  if (t === 'array' && !node.items) r.required(`${path}.items`, 'must be specified for type array');
  if (node.properties) for (const [k, child] of node.properties) checkStructural(r, child, `${path}.properties[${k}]`, 'field');
  if (node.items) checkStructural(r, node.items, `${path}.items`, 'item');
  if (node.additionalProperties && node.additionalProperties !== true) checkStructural(r, node.additionalProperties, `${path}.additionalProperties`, 'field');

  if (node.embedded && t !== 'object') {
    if (t === undefined) r.required(`${path}.type`, 'must be object if x-kubernetes-embedded-resource is true');
    else r.invalid(`${path}.type`, t, 'must be object if x-kubernetes-embedded-resource is true');
  } else if (t === undefined && !node.intOrString && !node.preserveUnknown) {
    const where = level === 'root' ? 'at the root' : level === 'item' ? 'for specified array items' : 'for specified object fields';
    r.required(`${path}.type`, `must not be empty ${where}`);
  }
  if (node.embedded && node.additionalProperties) r.forbidden(`${path}.additionalProperties`, 'must not be used if x-kubernetes-embedded-resource is set');
  if (node.embedded && !node.preserveUnknown && (!node.properties || node.properties.size === 0)) {
    r.required(`${path}.properties`, 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields');
  }
  if (level === 'root' && t !== undefined && t !== 'object') r.invalid(`${path}.type`, t, 'must be object at the root');
  if (node.intOrString && t !== undefined) r.invalid(`${path}.type`, t, 'must be empty if x-kubernetes-int-or-string is true');

  if (level === 'root' || node.embedded) checkResourceFields(r, node, path, level === 'root');
  checkListAndMapTypes(r, node, path);
  for (const [name, list] of junctorLists(node)) {
    list.forEach((j, i) => {
      const at = name === 'not' ? `${path}.not` : `${path}.${name}[${i}]`;
      checkJunctorNode(r, j, at);
      checkCompleteness(r, j, node, path, at);
    });
  }
}

function junctorLists(node: Node): [string, Node[]][] {
  const out: [string, Node[]][] = [];
  if (node.allOf) out.push(['allOf', node.allOf]);
  // The int-or-string anyOf form is checked (and allowed) on its own.
  if (node.anyOf && !isIntOrStringAnyOf(node)) out.push(['anyOf', node.anyOf]);
  if (node.oneOf) out.push(['oneOf', node.oneOf]);
  if (node.not) out.push(['not', [node.not]]);
  return out;
}

/** apiVersion, kind and metadata of a resource (the root or an embedded one) are implicit and fixed. */
function checkResourceFields(r: SchemaReader, node: Node, path: string, root: boolean): void {
  const props = node.properties;
  if (!props) return;
  for (const k of ['apiVersion', 'kind'] as const) {
    const s = props.get(k);
    if (s && s.type !== 'string') r.invalid(`${path}.properties[${k}].type`, s.type ?? '', 'must be string');
  }
  const meta = props.get('metadata');
  if (!meta) return;
  if (meta.type !== 'object') r.invalid(`${path}.properties[metadata].type`, meta.type ?? '', 'must be object');
  if (!root) return;
  // Only name and generateName may be restricted (with value validations); anything else is implicit.
  const extra = [...(meta.properties?.keys() ?? [])].some((k) => k !== 'name' && k !== 'generateName');
  const other =
    extra ||
    meta.additionalProperties !== undefined ||
    meta.items !== undefined ||
    meta.nullable ||
    meta.preserveUnknown ||
    meta.embedded ||
    meta.intOrString ||
    meta.required !== undefined ||
    meta.enum !== undefined ||
    meta.allOf !== undefined ||
    meta.anyOf !== undefined ||
    meta.oneOf !== undefined ||
    meta.not !== undefined ||
    meta.rawRules !== undefined ||
    meta.minProperties !== undefined ||
    meta.maxProperties !== undefined;
  if (other) r.forbidden(`${path}.properties[metadata]`, 'may only restrict name and generateName: the rest of metadata is implied by the server');
  if (meta.hasDefault) r.forbidden(`${path}.properties[metadata].default`, 'must not be set for metadata');
  for (const [k, s] of meta.properties ?? []) {
    if (s.type !== undefined && s.type !== 'string') r.invalid(`${path}.properties[metadata].properties[${k}].type`, s.type, 'must be string');
  }
}

function isScalar(n: Node | undefined): boolean {
  return !!n && (n.intOrString || (SCALAR_TYPES as readonly string[]).includes(n.type ?? ''));
}

/** x-kubernetes-list-type, list-map-keys and map-type: only where they make sense. */
function checkListAndMapTypes(r: SchemaReader, node: Node, path: string): void {
  if (node.mapType && node.type !== 'object') r.invalid(`${path}.type`, node.type ?? '', 'must be object if x-kubernetes-map-type is specified');
  if (node.listMapKeys && node.listType !== 'map') r.forbidden(`${path}.x-kubernetes-list-map-keys`, 'must not be set if x-kubernetes-list-type is not map');
  if (!node.listType) return;
  if (node.type !== 'array') {
    r.invalid(`${path}.type`, node.type ?? '', 'must be array if x-kubernetes-list-type is specified');
    return;
  }
  const items = node.items;
  if (!items) return;
  if (node.listType === 'set' || node.listType === 'map') {
    if (items.nullable) r.forbidden(`${path}.items.nullable`, `cannot be nullable when x-kubernetes-list-type is ${node.listType}`);
  }
  if (node.listType === 'set') {
    if (items.type === 'object' && items.mapType !== 'atomic') r.forbidden(`${path}.items.x-kubernetes-map-type`, 'must be atomic as item of a list with x-kubernetes-list-type=set');
    if (items.type === 'array' && items.listType !== 'atomic') r.forbidden(`${path}.items.x-kubernetes-list-type`, 'must be atomic as item of a list with x-kubernetes-list-type=set');
    return;
  }
  if (node.listType !== 'map') return;
  if (!node.listMapKeys || node.listMapKeys.length === 0) {
    r.required(`${path}.x-kubernetes-list-map-keys`, 'must not be empty if x-kubernetes-list-type is map');
    return;
  }
  if (items.type !== 'object') {
    r.invalid(`${path}.items.type`, items.type ?? '', 'must be object for an array of type map');
    return;
  }
  if (items.mapType === 'atomic') r.invalid(`${path}.items.x-kubernetes-map-type`, 'atomic', 'must be granular (or unset) for the items of a list of type map');
  const seen = new Set<string>();
  node.listMapKeys.forEach((k, i) => {
    if (seen.has(k)) r.invalid(`${path}.x-kubernetes-list-map-keys[${i}]`, k, 'must not repeat a key');
    seen.add(k);
    const key = items.properties?.get(k);
    if (!key) {
      r.invalid(`${path}.x-kubernetes-list-map-keys`, node.listMapKeys, 'entries must all be names of item properties');
      return;
    }
    if (!isScalar(key)) r.invalid(`${path}.items.properties[${k}].type`, key.type ?? '', 'must be a scalar type if the array uses it as a map key');
    if (!items.required?.includes(k) && !key.hasDefault) {
      r.required(`${path}.items.properties[${k}].default`, 'a list map key must be required or have a default');
    }
    if (key.nullable) r.forbidden(`${path}.items.properties[${k}].nullable`, 'a list map key cannot be nullable');
  });
}

/** `anyOf: [{type: integer}, {type: string}]`, the one junctor form int-or-string allows to name types. */
function isIntOrStringAnyOf(node: Node): boolean {
  const a = node.anyOf;
  return node.intOrString && !!a && a.length === 2 && isBareType(a[0], 'integer') && isBareType(a[1], 'string');
}

function isBareType(n: Node | undefined, type: string): boolean {
  if (!n || n.type !== type) return false;
  const { type: _t, nullable, hasDefault, exclusiveMinimum, exclusiveMaximum, preserveUnknown, intOrString, embedded, ...rest } = n;
  const anySet = Object.values(rest).some((v) => v !== undefined);
  return !anySet && !nullable && !hasDefault && !exclusiveMinimum && !exclusiveMaximum && !preserveUnknown && !intOrString && !embedded;
}

/** What may not appear inside allOf/anyOf/oneOf/not: types, structure, defaults, extensions. */
function checkJunctorNode(r: SchemaReader, n: Node, path: string): void {
  if (n.type !== undefined) r.forbidden(`${path}.type`, 'must be empty to be structural');
  if (n.additionalProperties !== undefined) r.forbidden(`${path}.additionalProperties`, 'must be undefined to be structural');
  if (n.hasDefault) r.forbidden(`${path}.default`, 'must be undefined to be structural');
  if (n.description !== undefined) r.forbidden(`${path}.description`, 'must be empty to be structural');
  if (n.nullable) r.forbidden(`${path}.nullable`, 'must be false to be structural');
  if (n.preserveUnknown) r.forbidden(`${path}.x-kubernetes-preserve-unknown-fields`, 'must be false to be structural');
  if (n.embedded) r.forbidden(`${path}.x-kubernetes-embedded-resource`, 'must be false to be structural');
  if (n.intOrString) r.forbidden(`${path}.x-kubernetes-int-or-string`, 'must be false to be structural');
  if (n.listType !== undefined) r.forbidden(`${path}.x-kubernetes-list-type`, 'must be undefined to be structural');
  if (n.listMapKeys !== undefined) r.forbidden(`${path}.x-kubernetes-list-map-keys`, 'must be empty to be structural');
  if (n.mapType !== undefined) r.forbidden(`${path}.x-kubernetes-map-type`, 'must be undefined to be structural');
  if (n.rawRules !== undefined) r.forbidden(`${path}.x-kubernetes-validations`, 'must be empty to be structural');
  for (const [k, c] of n.properties ?? []) checkJunctorNode(r, c, `${path}.properties[${k}]`);
  if (n.items) checkJunctorNode(r, n.items, `${path}.items`);
  n.allOf?.forEach((c, i) => checkJunctorNode(r, c, `${path}.allOf[${i}]`));
  n.anyOf?.forEach((c, i) => checkJunctorNode(r, c, `${path}.anyOf[${i}]`));
  n.oneOf?.forEach((c, i) => checkJunctorNode(r, c, `${path}.oneOf[${i}]`));
  if (n.not) checkJunctorNode(r, n.not, `${path}.not`);
}

/** A junctor may only mention properties and items the structural part declares (`s` at `sPath`). */
function checkCompleteness(r: SchemaReader, v: Node, s: Node | true | undefined, sPath: string, vPath: string): void {
  if (s === true) return;
  if (!s) {
    r.required(sPath, `because it is defined in ${vPath}`);
    return;
  }
  if (v.items) checkCompleteness(r, v.items, s.items, `${sPath}.items`, `${vPath}.items`);
  for (const [k, vf] of v.properties ?? []) {
    const sf = s.properties?.get(k);
    if (sf) checkCompleteness(r, vf, sf, `${sPath}.properties[${k}]`, `${vPath}.properties[${k}]`);
    else if (s.additionalProperties) checkCompleteness(r, vf, s.additionalProperties, `${sPath}.additionalProperties`, `${vPath}.properties[${k}]`);
    else if (!s.preserveUnknown) r.required(`${sPath}.properties[${k}]`, `because it is defined in ${vPath}.properties[${k}]`);
  }
  v.allOf?.forEach((c, i) => checkCompleteness(r, c, s, sPath, `${vPath}.allOf[${i}]`));
  v.anyOf?.forEach((c, i) => checkCompleteness(r, c, s, sPath, `${vPath}.anyOf[${i}]`));
  v.oneOf?.forEach((c, i) => checkCompleteness(r, c, s, sPath, `${vPath}.oneOf[${i}]`));
  if (v.not) checkCompleteness(r, v.not, s, sPath, `${vPath}.not`);
}
