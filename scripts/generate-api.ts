/**
 * Generates `src/generated/` from the reference data in `reference/` (the release-1.31 OpenAPI document and
 * the `.proto` files): the schema definitions, the served resources with their verbs and subresources, and
 * the protobuf descriptors of every message. Run with `npm run generate`; the output is checked in and never
 * edited by hand. A test (`src/generated/generated.test.ts`) fails when the checked-in output is stale.
 *
 * Names are made neutral: definition names lose their `io.<maker>.` root and proto messages their
 * `<maker>.io.` package root, so the code that serves them re-adds the root from `api/naming.ts`.
 */
import { readFileSync, readdirSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import { renderGenerated, type GeneratedFiles } from './generate-api-render.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const REFERENCE = join(ROOT, 'reference');
const OUT = join(ROOT, 'src', 'generated');

type Json = Record<string, any>;

// ---- definitions ------------------------------------------------------------------------------------------

const doc = JSON.parse(readFileSync(join(REFERENCE, 'openapi-v2-1.31.json'), 'utf8')) as Json;
const DEF_ROOT = /^io\.[a-z0-9]+\./; // `io.orch.` in the reference data
const neutralDef = (name: string) => name.replace(DEF_ROOT, '');

/** Rewrites `$ref`s to neutral names and drops prose, recursively. */
function cleanSchema(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(cleanSchema);
  if (typeof s !== 'object' || s === null) return s;
  const out: Json = {};
  for (const [k, v] of Object.entries(s as Json)) {
    if (k === 'description') continue;
    if (k === '$ref' && typeof v === 'string') out[k] = neutralDef(v.replace('#/definitions/', ''));
    else if (k === 'properties') out[k] = Object.fromEntries(Object.entries(v as Json).map(([p, ps]) => [p, cleanSchema(ps)]));
    else out[k] = cleanSchema(v);
  }
  return out;
}

const definitions: Json = {};
for (const name of Object.keys(doc.definitions).sort()) definitions[neutralDef(name)] = cleanSchema(doc.definitions[name]);

// ---- resources --------------------------------------------------------------------------------------------

interface SubresourceOut {
  name: string;
  group: string;
  version: string;
  kind: string;
  definition?: string;
  verbs: string[];
}
interface ResourceOut {
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
  definition?: string;
  listDefinition?: string;
  verbs: string[];
  subresources: SubresourceOut[];
}

const PATH_RE = /^\/(?:api|apis\/([^/]+))\/([^/]+)\/(watch\/)?(namespaces\/\{namespace\}\/)?([^/{]+)(\/\{name\})?(?:\/([^/{]+))?$/;

/** `x-kubernetes-action` and path shape -> discovery verb. */
function verbOf(action: string): string | undefined {
  switch (action) {
    case 'get':
      return 'get';
    case 'list':
      return 'list';
    case 'post':
      return 'create';
    case 'put':
      return 'update';
    case 'patch':
      return 'patch';
    case 'delete':
      return 'delete';
    case 'deletecollection':
      return 'deletecollection';
    case 'watch':
    case 'watchlist':
      return 'watch';
    default:
      return undefined; // connect: subresources such as exec list their HTTP methods instead
  }
}

const schemaRef = (op: Json): string | undefined => {
  const ref = op?.responses?.['200']?.schema?.$ref ?? op?.responses?.['201']?.schema?.$ref;
  return typeof ref === 'string' ? neutralDef(ref.replace('#/definitions/', '')) : undefined;
};

const resources = new Map<string, ResourceOut>();
const subVerbs = new Map<string, SubresourceOut>();
const connectVerbs = new Map<string, Set<string>>();
for (const [path, item] of Object.entries(doc.paths as Json)) {
  const m = PATH_RE.exec(path);
  if (!m) continue;
  const [, groupRaw, version, , ns, plural, , sub] = m;
  // `namespaces/{name}` itself is the namespaces resource, not a namespace prefix.
  const group = groupRaw ?? '';
  const namespaced = ns !== undefined;
  const key = `${group}/${version}/${plural}`;
  for (const [method, op] of Object.entries(item as Json)) {
    if (method === 'parameters') continue;
    const action = (op as Json)['x-kubernetes-action'] as string;
    const gvk = (op as Json)['x-kubernetes-group-version-kind'] as { group: string; version: string; kind: string } | undefined;
    if (!gvk) continue;
    if (sub) {
      const skey = `${key}/${sub}`;
      let s = subVerbs.get(skey);
      if (!s) {
        s = { name: sub, group: gvk.group, version: gvk.version, kind: gvk.kind, verbs: [] };
        subVerbs.set(skey, s);
      }
      if (action === 'connect') {
        // connect subresources (exec, attach, portforward, proxy, log is `get`) list the HTTP methods.
        const set = connectVerbs.get(skey) ?? new Set<string>();
        set.add(method);
        connectVerbs.set(skey, set);
        continue;
      }
      const verb = verbOf(action);
      if (verb && !s.verbs.includes(verb)) s.verbs.push(verb);
      const def = schemaRef(op);
      if (def && !s.definition) s.definition = def;
      continue;
    }
    let r = resources.get(key);
    if (!r) {
      r = { group, version, plural, kind: gvk.kind, namespaced, verbs: [], subresources: [] };
      resources.set(key, r);
    }
    if (namespaced) r.namespaced = true;
    const verb = verbOf(action);
    if (verb && !r.verbs.includes(verb)) r.verbs.push(verb);
    // The item kind comes from item and create operations; lists name the list kind.
    if (action !== 'list' && action !== 'watchlist' && action !== 'watch' && action !== 'deletecollection') {
      r.kind = gvk.kind;
      const def = schemaRef(op);
      if (def && !def.endsWith('.Status') && !r.definition) r.definition = def;
    }
    if (action === 'list') {
      const def = schemaRef(op);
      if (def) r.listDefinition = def;
    }
  }
}
// A resource served only under `namespaces/{namespace}` without list paths keeps its scope from its item paths.
for (const [skey, s] of subVerbs) {
  const parentKey = skey.slice(0, skey.lastIndexOf('/'));
  const parent = resources.get(parentKey);
  if (!parent) continue;
  const connect = connectVerbs.get(skey);
  // Connect subresources (exec, attach, portforward, proxy) list the verbs of their HTTP methods.
  const CONNECT_VERBS: Record<string, string> = { post: 'create', get: 'get', put: 'update', patch: 'patch', delete: 'delete' };
  if (connect) for (const method of connect) {
    const verb = CONNECT_VERBS[method];
    if (verb && !s.verbs.includes(verb)) s.verbs.push(verb);
  }
  s.verbs.sort();
  parent.subresources.push(s);
}
for (const r of resources.values()) {
  r.verbs.sort();
  r.subresources.sort((a, b) => (a.name < b.name ? -1 : 1));
  if (!r.definition) {
    // Virtual resources with only a create operation name their kind in the body definition.
    const match = Object.entries(definitions).find(([, d]) =>
      (d as Json)['x-kubernetes-group-version-kind']?.some((g: Json) => g.group === r.group && g.version === r.version && g.kind === r.kind),
    );
    if (match) r.definition = match[0];
  }
}
const resourceList = [...resources.values()];

// ---- protobuf ---------------------------------------------------------------------------------------------

function protoFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) out.push(...protoFiles(p));
    else if (e.endsWith('.proto')) out.push(p);
  }
  return out.sort();
}

const protoRoot = new protobuf.Root();
protoRoot.resolvePath = (_origin: string, target: string) => (target.startsWith('/') ? target : join(REFERENCE, 'proto', target));
protoRoot.loadSync(protoFiles(join(REFERENCE, 'proto')).map((f) => relative(join(REFERENCE, 'proto'), f)), { keepCase: true });
protoRoot.resolveAll();

const PKG_ROOT = /^\.?[a-z0-9]+\.io\./; // `.orch.io.` in the reference protos
const DEF_PREFIXES = new Set(Object.keys(definitions).map((n) => n.split('.')[0]!));
/** Neutral message name; a package segment protobuf spells with `_` takes the definition's `-` spelling. */
function neutralMsg(full: string): string {
  const name = full.replace(PKG_ROOT, '');
  const first = name.split('.')[0]!;
  const dashed = first.replace(/_/g, '-');
  return first !== dashed && DEF_PREFIXES.has(dashed) ? dashed + name.slice(first.length) : name;
}
/** Proto field names that differ from the JSON ones (`Webhooks`, `uID`, `xKubernetesListType`, `ref`). */
const normalized = (n: string) => n.toLowerCase().replace(/[^a-z0-9]/g, '');

/** Messages the codec writes in their JSON form (a string, a number or raw JSON) rather than as objects. */
const SPECIAL: Record<string, string> = {
  'apimachinery.pkg.apis.meta.v1.Time': 'time',
  'apimachinery.pkg.apis.meta.v1.MicroTime': 'microtime',
  'apimachinery.pkg.util.intstr.IntOrString': 'intorstring',
  'apimachinery.pkg.api.resource.Quantity': 'quantity',
  'apimachinery.pkg.runtime.RawExtension': 'rawextension',
  'apimachinery.pkg.apis.meta.v1.FieldsV1': 'rawextension',
  'apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON': 'rawextension',
  'apiextensions-apiserver.pkg.apis.apiextensions.v1beta1.JSON': 'rawextension',
  'apimachinery.pkg.apis.meta.v1.Duration': 'duration',
};

/** A message holding only `repeated string items = 1` is a named string list: a JSON array. */
function isStringList(t: protobuf.Type): boolean {
  const fields = t.fieldsArray;
  return fields.length === 1 && fields[0]!.name === 'items' && fields[0]!.repeated && fields[0]!.type === 'string';
}

const SCALARS: Record<string, string> = {
  string: 'string',
  int32: 'int32',
  int64: 'int64',
  bool: 'bool',
  bytes: 'bytes',
  double: 'double',
  float: 'double',
};

function typeOf(f: protobuf.Field): { type: string; message?: string } {
  if (f.resolvedType instanceof protobuf.Type) {
    const name = neutralMsg(f.resolvedType.fullName);
    const special = SPECIAL[name];
    if (special) return { type: special };
    if (isStringList(f.resolvedType)) return { type: 'stringlist' };
    return { type: 'message', message: name };
  }
  if (f.resolvedType instanceof protobuf.Enum) return { type: 'int32' };
  const s = SCALARS[f.type];
  if (!s) throw new Error(`unsupported proto type ${f.type} of ${f.fullName}`);
  return { type: s };
}

/** The one unclaimed property referring to a field's message, when the proto name differs (`listMeta`). */
function byMessage(props: Json, claimed: Set<string | undefined>, f: protobuf.Field): string | undefined {
  if (!(f.resolvedType instanceof protobuf.Type)) return undefined;
  const target = neutralMsg(f.resolvedType.fullName);
  const hits = Object.keys(props).filter((p) => !claimed.has(p) && (props[p] as Json).$ref === target);
  return hits.length === 1 ? hits[0] : undefined;
}

/** The JSON names an embedded message contributes: its own fields and those of structs embedded in it. */
function embeddedNames(t: protobuf.Type): string[] {
  const def = definitions[neutralMsg(t.fullName)] as Json | undefined;
  const own = (def?.properties ?? {}) as Json;
  return t.fieldsArray.flatMap((x) =>
    def && !(x.name in own) && x.resolvedType instanceof protobuf.Type && !x.repeated ? embeddedNames(x.resolvedType) : [x.name],
  );
}

const messages: Json = {};
function visit(ns: protobuf.NamespaceBase): void {
  for (const nested of ns.nestedArray) {
    if (nested instanceof protobuf.Type) {
      const name = neutralMsg(nested.fullName);
      const def = definitions[name] as Json | undefined;
      const props = (def?.properties ?? {}) as Json;
      const required = new Set<string>((def?.required ?? []) as string[]);
      const fields: Json = {};
      const byNormalized = new Map(Object.keys(props).map((p) => [normalized(p), p]));
      const byName = (f: protobuf.Field) => (f.name in props ? f.name : byNormalized.get(normalized(f.name)));
      const claimed = new Set(nested.fieldsArray.map(byName));
      for (const f of nested.fieldsArray) {
        const jsonName = byName(f) ?? byMessage(props, claimed, f) ?? f.name;
        const fd: Json = { no: f.id };
        if (f instanceof protobuf.MapField) {
          fd.type = 'map';
          const value = f.resolvedType instanceof protobuf.Type ? typeOf(f) : { type: SCALARS[f.type] ?? 'string' };
          fd.mapValue = value;
        } else {
          Object.assign(fd, typeOf(f));
          if (f.repeated) fd.repeated = true;
        }
        // An embedded Go struct: its fields are inline in the JSON object, nested on the wire.
        if (def && !(jsonName in props) && fd.type === 'message' && !f.repeated) {
          const innerType = f.resolvedType as protobuf.Type;
          const innerProps = embeddedNames(innerType);
          if (innerProps.length > 0 && innerProps.every((p) => p in props)) fd.inline = true;
        }
        if (required.has(jsonName)) fd.keep = true;
        fields[jsonName] = fd;
      }
      messages[name] = fields;
    }
    if ('nestedArray' in nested && (nested as protobuf.NamespaceBase).nestedArray) visit(nested as protobuf.NamespaceBase);
  }
}
visit(protoRoot);

// ---- write ------------------------------------------------------------------------------------------------

const files: GeneratedFiles = renderGenerated({ definitions, resources: resourceList, messages });
mkdirSync(OUT, { recursive: true });
const check = process.argv.includes('--check');
let stale = 0;
for (const [file, text] of Object.entries(files)) {
  const path = join(OUT, file);
  if (check) {
    let current = '';
    try {
      current = readFileSync(path, 'utf8');
    } catch {
      /* missing */
    }
    if (current !== text) {
      stale++;
      console.error(`stale: src/generated/${file}`);
    }
  } else writeFileSync(path, text);
}
if (check && stale > 0) process.exit(1);
console.log(
  `${check ? 'checked' : 'generated'} ${Object.keys(files).length} files: ${Object.keys(definitions).length} definitions, ${resourceList.length} resources, ${Object.keys(messages).length} messages`,
);
