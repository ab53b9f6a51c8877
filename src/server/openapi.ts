/**
 * OpenAPI documents (`/openapi/v2` and `/openapi/v3/...`) built from the served ResourceTypes. Clients read
 * them for `kubectl explain`, for the GVK -> definition lookup, and to learn that PATCH accepts
 * `fieldValidation` (kubectl then leaves unknown-field checks to the server).
 */
import { createHash } from 'node:crypto';
import { GROUP_SUFFIX, OPENAPI_GVK_EXTENSION } from '../api/naming.js';
import { APPLY_PATCH_YAML, JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH } from '../patch/mediaTypes.js';
import { definitionNameOf, definitionSchema, definitionViewOf } from '../registry/reference-schema.js';
import type { ResourceType, Schema } from '../registry/types.js';
import { DEFAULT_VERBS } from './discovery.js';

type Json = Record<string, unknown>;
type Mode = 'v2' | 'v3';
interface GVK {
  group: string;
  version: string;
  kind: string;
}

/** `io.<maker>`, derived so that the maker token is spelled only in naming.ts. */
const NAME_ROOT = GROUP_SUFFIX.split('.').reverse().join('.');
const TITLE = GROUP_SUFFIX.split('.')[0] ?? '';
const META_PREFIX = `${NAME_ROOT}.apimachinery.pkg.apis.meta.v1`;

export const META_DEFINITIONS = {
  ObjectMeta: `${META_PREFIX}.ObjectMeta`,
  ListMeta: `${META_PREFIX}.ListMeta`,
  Status: `${META_PREFIX}.Status`,
  DeleteOptions: `${META_PREFIX}.DeleteOptions`,
  WatchEvent: `${META_PREFIX}.WatchEvent`,
  Patch: `${META_PREFIX}.Patch`,
} as const;

const JSON_YAML = ['application/json', 'application/yaml'];
const PATCH_TYPES = [JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH_YAML];
const WATCH_STREAM = 'application/json;stream=watch';

// ---- definition names -------------------------------------------------------------------------------------

const gvkKey = (g: string, v: string, k: string) => `${g}/${v}/${k}`;

/** Built-in groups as the reference names its API packages; other groups reversed, as it names CRD schemas. */
function namePrefix(group: string): string {
  if (group === '') return `${NAME_ROOT}.api.core`;
  if (group.endsWith(`.${GROUP_SUFFIX}`) || !group.includes('.')) return `${NAME_ROOT}.api.${group.split('.')[0]}`;
  return group.split('.').reverse().join('.');
}

/** Definition name per `group/version/kind` (item and list kinds); a clash falls back to the full group. */
export function definitionNames(types: ResourceType[]): Map<string, string> {
  const names = new Map<string, string>();
  const taken = new Set<string>();
  const add = (g: string, v: string, k: string) => {
    const key = gvkKey(g, v, k);
    if (names.has(key)) return;
    let name = `${namePrefix(g)}.${v}.${k}`;
    if (taken.has(name)) name = `${NAME_ROOT}.api.${g.replace(/\./g, '_')}.${v}.${k}`;
    names.set(key, name);
    taken.add(name);
  };
  for (const t of types) {
    const item = definitionNameOf(t.schema);
    if (item) names.set(gvkKey(t.group, t.version, t.kind), `${NAME_ROOT}.${item}`);
    const list = t.reference?.listDefinition;
    if (list) names.set(gvkKey(t.group, t.version, t.listKind), `${NAME_ROOT}.${list}`);
    for (const n of names.values()) taken.add(n);
    add(t.group, t.version, t.kind);
    add(t.group, t.version, t.listKind);
  }
  return names;
}

// ---- schemas ----------------------------------------------------------------------------------------------

const META = 'apimachinery.pkg.apis.meta.v1';
/** Definitions every document carries: the meta kinds that operations refer to. */
const META_NEUTRAL = ['ObjectMeta', 'ListMeta', 'Status', 'DeleteOptions', 'WatchEvent', 'Patch'].map((k) => `${META}.${k}`);

const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);
const fullName = (neutral: string) => `${NAME_ROOT}.${neutral}`;

function refFn(mode: Mode): (name: string) => Json {
  const base = mode === 'v2' ? '#/definitions/' : '#/components/schemas/';
  return (name) => ({ $ref: base + name });
}

/**
 * Converts schemas for one document version. A schema made from a reference definition becomes a `$ref`
 * to it (the definition is emitted once, by name, as the reference does); other schemas are inlined.
 */
class DefinitionWriter {
  readonly defs: Record<string, Json> = {};
  private readonly ref: (name: string) => Json;
  private readonly seen = new WeakMap<Schema, Json>();

  constructor(private readonly mode: Mode) {
    this.ref = refFn(mode);
  }

  /** Emits a reference definition (and everything it refers to) and returns its full name. */
  definition(neutral: string): string {
    const name = fullName(neutral);
    if (!(name in this.defs)) {
      this.defs[name] = {}; // placeholder first: definitions may refer to themselves
      this.defs[name] = this.convert(definitionSchema(neutral), true);
    }
    return name;
  }

  convert(s: Schema, root = false): Json {
    if (!root) {
      const named = definitionNameOf(s);
      if (named) return this.ref(this.definition(named));
      const view = definitionViewOf(s);
      if (view) {
        const target = this.ref(this.definition(view.name));
        // Swagger 2.0 keeps siblings of $ref as the reference does; OpenAPI 3 wraps the reference in allOf.
        return this.mode === 'v2' ? { ...target, ...view.extras } : { allOf: [target], ...view.extras };
      }
    }
    const hit = this.seen.get(s);
    if (hit) return hit;
    const src = s as Json;
    let out: Json = {};
    if (src['x-kubernetes-int-or-string'] === true && !src.type) {
      // Swagger 2.0 cannot say "integer or string"; the reference spells it as this format (v3: anyOf).
      out = this.mode === 'v2' ? { type: 'string', format: 'int-or-string' } : { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] };
    } else {
      for (const [k, v] of Object.entries(src)) {
        if (this.mode === 'v2' && V3_ONLY_KEYWORDS.has(k)) continue;
        if ((k === 'properties' || k === 'patternProperties') && isSchema(v)) {
          out[k] = Object.fromEntries(Object.entries(v).map(([p, ps]) => [p, this.convert(ps as Schema)]));
        } else if ((k === 'items' || k === 'additionalProperties' || k === 'not') && isSchema(v)) {
          out[k] = this.convert(v);
        } else if ((k === 'allOf' || k === 'oneOf' || k === 'anyOf') && Array.isArray(v)) {
          out[k] = v.map((x) => (isSchema(x) ? this.convert(x) : x));
        } else out[k] = v;
      }
    }
    this.seen.set(s, out);
    return out;
  }
}

const V3_ONLY_KEYWORDS = new Set(['nullable', 'oneOf', 'anyOf', 'not']);

/** Item and list definition names of every type, and their definitions, in one writer. */
function definitionsFor(mode: Mode, types: ResourceType[], names: Map<string, string>): Record<string, Json> {
  const w = new DefinitionWriter(mode);
  for (const n of META_NEUTRAL) w.definition(n);
  for (const t of types) {
    const item = names.get(gvkKey(t.group, t.version, t.kind));
    const list = names.get(gvkKey(t.group, t.version, t.listKind));
    if (!item || !list) continue;
    const neutral = definitionNameOf(t.schema);
    if (neutral) w.definition(neutral);
    else w.defs[item] = { ...w.convert(t.schema, true), [OPENAPI_GVK_EXTENSION]: [{ group: t.group, version: t.version, kind: t.kind }] };
    if (t.reference?.listDefinition) w.definition(t.reference.listDefinition);
    else if (!(list in w.defs)) {
      w.defs[list] = {
        type: 'object',
        required: ['items'],
        properties: {
          apiVersion: { type: 'string' },
          items: { type: 'array', items: refFn(mode)(item) },
          kind: { type: 'string' },
          metadata: refFn(mode)(META_DEFINITIONS.ListMeta),
        },
        [OPENAPI_GVK_EXTENSION]: [{ group: t.group, version: t.version, kind: t.listKind }],
      };
    }
  }
  return w.defs;
}

// ---- operations (one neutral model, rendered as v2 or v3) ------------------------------------------------

interface Operation {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  action: 'get' | 'list' | 'post' | 'put' | 'patch' | 'delete' | 'deletecollection';
  id: string;
  description: string;
  gvk: GVK;
  query: string[];
  body?: { def: string; required: boolean; media: string[] };
  responses: [code: string, def: string][];
  produces: string[];
}

interface PathEntry {
  /** Document key of the group version: `api/v1` or `apis/<group>/<version>`. */
  doc: string;
  path: string;
  pathParams: string[];
  tag: string;
  ops: Operation[];
}

const QUERY_PARAMS: Record<string, { type: 'string' | 'boolean' | 'integer'; description: string }> = {
  allowWatchBookmarks: { type: 'boolean', description: 'Requests watch events with type "BOOKMARK".' },
  continue: { type: 'string', description: 'The continue option from a previous paginated list call.' },
  dryRun: { type: 'string', description: 'When present, modifications are not persisted. Valid value: All.' },
  fieldManager: { type: 'string', description: 'A name associated with the actor or entity that is making these changes.' },
  fieldSelector: { type: 'string', description: 'A selector to restrict the list of returned objects by their fields.' },
  fieldValidation: { type: 'string', description: 'How to handle unknown or duplicate fields: Ignore, Warn (default) or Strict.' },
  force: { type: 'boolean', description: 'Force "Apply" requests: take ownership of conflicting fields.' },
  gracePeriodSeconds: { type: 'integer', description: 'The duration in seconds before the object should be deleted.' },
  labelSelector: { type: 'string', description: 'A selector to restrict the list of returned objects by their labels.' },
  limit: { type: 'integer', description: 'The maximum number of responses to return for a list call.' },
  orphanDependents: { type: 'boolean', description: 'Deprecated: please use the PropagationPolicy.' },
  pretty: { type: 'string', description: "If 'true', then the output is pretty printed." },
  propagationPolicy: { type: 'string', description: 'Whether and how garbage collection will be performed.' },
  resourceVersion: { type: 'string', description: 'Constrains which resource versions the request may be served from.' },
  resourceVersionMatch: { type: 'string', description: 'How resourceVersion is applied to list calls: Exact or NotOlderThan.' },
  sendInitialEvents: { type: 'boolean', description: 'Start a watch stream with synthetic events for the current state.' },
  timeoutSeconds: { type: 'integer', description: 'Timeout for the list/watch call.' },
  watch: { type: 'boolean', description: 'Watch for changes to the described resources.' },
};
const LIST_QUERY = ['allowWatchBookmarks', 'continue', 'fieldSelector', 'labelSelector', 'limit', 'resourceVersion', 'resourceVersionMatch', 'sendInitialEvents', 'timeoutSeconds', 'watch'];
const WRITE_QUERY = ['dryRun', 'fieldManager', 'fieldValidation'];
const DELETE_QUERY = ['dryRun', 'gracePeriodSeconds', 'orphanDependents', 'propagationPolicy'];
const DELETECOLLECTION_QUERY = [...LIST_QUERY.filter((p) => p !== 'watch' && p !== 'allowWatchBookmarks'), ...DELETE_QUERY];
const PATH_PARAM_DESCRIPTIONS: Record<string, string> = { name: 'name of the object', namespace: 'object name and auth scope, such as for teams and projects' };

const capitalize = (s: string) => (s === '' ? s : s[0]!.toUpperCase() + s.slice(1));

/** `rbac.authorization.<suffix>` -> `RbacAuthorization`; the reference's operation-id spelling of a group. */
function groupIdPart(group: string): string {
  if (group === '') return 'Core';
  const short = group.endsWith(`.${GROUP_SUFFIX}`) ? group.slice(0, -GROUP_SUFFIX.length - 1) : group;
  return short.split(/[.-]/).map(capitalize).join('');
}

function docKey(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

function pathEntries(types: ResourceType[], names: Map<string, string>): PathEntry[] {
  const entries: PathEntry[] = [];
  for (const t of types) {
    const item = names.get(gvkKey(t.group, t.version, t.kind));
    const list = names.get(gvkKey(t.group, t.version, t.listKind));
    if (!item || !list) continue;
    const verbs = new Set(t.verbs ?? DEFAULT_VERBS);
    const doc = docKey(t.group, t.version);
    const gvk: GVK = { group: t.group, version: t.version, kind: t.kind };
    const idMid = `${groupIdPart(t.group)}${capitalize(t.version)}`;
    const scope = t.namespaced ? 'Namespaced' : '';
    const tag = `${groupIdPart(t.group).replace(/^./, (c) => c.toLowerCase())}_${t.version}`;
    const op = (method: Operation['method'], action: Operation['action'], id: string, description: string, rest: Partial<Operation>): Operation => ({
      method, action, id, description, gvk, query: [], responses: [], produces: JSON_YAML, ...rest,
    });
    const objBody = { def: item, required: true, media: JSON_YAML };
    const deleteBody = { def: META_DEFINITIONS.DeleteOptions, required: false, media: JSON_YAML };
    const nsParams = t.namespaced ? ['namespace'] : [];
    const collection = `/${doc}${t.namespaced ? '/namespaces/{namespace}' : ''}/${t.plural}`;
    const listOp = (id: string) =>
      op('get', 'list', id, `list or watch objects of kind ${t.kind}`, { query: LIST_QUERY, responses: [['200', list]], produces: [...JSON_YAML, WATCH_STREAM] });

    const coll: Operation[] = [];
    if (verbs.has('list')) coll.push(listOp(`list${idMid}${scope}${t.kind}`));
    if (verbs.has('create')) coll.push(op('post', 'post', `create${idMid}${scope}${t.kind}`, `create a ${t.kind}`, { query: WRITE_QUERY, body: objBody, responses: [['200', item], ['201', item], ['202', item]] }));
    if (verbs.has('deletecollection')) coll.push(op('delete', 'deletecollection', `delete${idMid}Collection${scope}${t.kind}`, `delete collection of ${t.kind}`, { query: DELETECOLLECTION_QUERY, body: deleteBody, responses: [['200', META_DEFINITIONS.Status]] }));
    if (coll.length > 0) entries.push({ doc, path: collection, pathParams: nsParams, tag, ops: coll });

    const itemOps = (suffix: string, what: string, withDelete: boolean): Operation[] => {
      const ops: Operation[] = [];
      if (verbs.has('get')) ops.push(op('get', 'get', `read${idMid}${scope}${t.kind}${suffix}`, `read ${what}the specified ${t.kind}`, { responses: [['200', item]] }));
      if (verbs.has('update')) ops.push(op('put', 'put', `replace${idMid}${scope}${t.kind}${suffix}`, `replace ${what}the specified ${t.kind}`, { query: WRITE_QUERY, body: objBody, responses: [['200', item], ['201', item]] }));
      if (verbs.has('patch')) ops.push(op('patch', 'patch', `patch${idMid}${scope}${t.kind}${suffix}`, `partially update ${what}the specified ${t.kind}`, { query: [...WRITE_QUERY, 'force'], body: { def: META_DEFINITIONS.Patch, required: true, media: PATCH_TYPES }, responses: [['200', item], ['201', item]] }));
      if (withDelete && verbs.has('delete')) ops.push(op('delete', 'delete', `delete${idMid}${scope}${t.kind}`, `delete a ${t.kind}`, { query: DELETE_QUERY, body: deleteBody, responses: [['200', META_DEFINITIONS.Status], ['202', META_DEFINITIONS.Status]] }));
      return ops;
    };
    const itemPath = `${collection}/{name}`;
    const main = itemOps('', '', true);
    if (main.length > 0) entries.push({ doc, path: itemPath, pathParams: ['name', ...nsParams], tag, ops: main });
    // The status subresource reads and writes the whole parent object.
    if (t.subresources.includes('status')) {
      const st = itemOps('Status', 'status of ', false);
      if (st.length > 0) entries.push({ doc, path: `${itemPath}/status`, pathParams: ['name', ...nsParams], tag, ops: st });
    }
    if (t.namespaced && verbs.has('list')) entries.push({ doc, path: `/${doc}/${t.plural}`, pathParams: [], tag, ops: [listOp(`list${idMid}${t.kind}ForAllNamespaces`)] });
  }
  return entries;
}

const RESPONSE_DESCRIPTIONS: Record<string, string> = { '200': 'OK', '201': 'Created', '202': 'Accepted' };

function renderPathItem(mode: Mode, e: PathEntry): Json {
  const ref = refFn(mode);
  const param = (name: string, where: 'path' | 'query'): Json => {
    const description = where === 'path' ? PATH_PARAM_DESCRIPTIONS[name] ?? name : QUERY_PARAMS[name]?.description ?? name;
    const type = where === 'path' ? 'string' : QUERY_PARAMS[name]?.type ?? 'string';
    const p: Json = { name, in: where, description };
    if (where === 'path') p.required = true;
    if (mode === 'v2') Object.assign(p, { type, uniqueItems: true });
    else p.schema = { type, uniqueItems: true };
    return p;
  };
  const content = (media: string[], def: string) => Object.fromEntries(media.map((m) => [m, { schema: ref(def) }]));

  const item: Json = { parameters: [...e.pathParams.map((n) => param(n, 'path')), param('pretty', 'query')] };
  for (const op of e.ops) {
    const responses: Json = {};
    for (const [code, def] of op.responses) {
      responses[code] = mode === 'v2' ? { description: RESPONSE_DESCRIPTIONS[code], schema: ref(def) } : { description: RESPONSE_DESCRIPTIONS[code], content: content(op.produces, def) };
    }
    responses['401'] = { description: 'Unauthorized' };
    const parameters = op.query.map((n) => param(n, 'query'));
    const out: Json = { description: op.description, tags: [e.tag], operationId: op.id };
    if (mode === 'v2') {
      if (op.body) parameters.unshift({ name: 'body', in: 'body', required: op.body.required, schema: ref(op.body.def) });
      Object.assign(out, { consumes: op.body?.media ?? ['*/*'], produces: op.produces, schemes: ['https'], parameters, responses });
    } else {
      out.parameters = parameters;
      if (op.body) out.requestBody = { required: op.body.required, content: content(op.body.media, op.body.def) };
      out.responses = responses;
    }
    out['x-kubernetes-action'] = op.action;
    // Operations carry a single GVK object (not a list); kubectl's PATCH-parameter probe reads it that way.
    out[OPENAPI_GVK_EXTENSION] = op.gvk;
    item[op.method] = out;
  }
  return item;
}

// ---- documents --------------------------------------------------------------------------------------------

export interface OpenAPIInfo {
  version: string;
}

export function buildOpenAPIV2(types: ResourceType[], info: OpenAPIInfo): Json {
  const names = definitionNames(types);
  const paths: Json = {};
  for (const e of pathEntries(types, names)) paths[e.path] = renderPathItem('v2', e);
  return { swagger: '2.0', info: { title: TITLE, version: info.version }, paths, definitions: definitionsFor('v2', types, names) };
}

/** Adds to `schemas` every definition its members refer to, transitively. */
function closeOverRefs(schemas: Json, all: Record<string, Json>): void {
  const prefix = '#/components/schemas/';
  const pending = Object.values(schemas);
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(visit);
    else if (typeof v === 'object' && v !== null) {
      for (const [k, x] of Object.entries(v)) {
        if (k === '$ref' && typeof x === 'string' && x.startsWith(prefix)) {
          const name = x.slice(prefix.length);
          if (!(name in schemas) && all[name]) {
            schemas[name] = all[name];
            pending.push(all[name]);
          }
        } else visit(x);
      }
    }
  };
  while (pending.length > 0) visit(pending.pop());
}

export interface OpenAPIV3 {
  /** The `/openapi/v3` body. */
  index: { paths: Record<string, { serverRelativeURL: string }> };
  /** Keyed `api/v1` or `apis/<group>/<version>`; served at `/openapi/v3/<key>`. */
  documents: Map<string, Json>;
}

export function buildOpenAPIV3(types: ResourceType[], info: OpenAPIInfo): OpenAPIV3 {
  const names = definitionNames(types);
  const allDefs = definitionsFor('v3', types, names);
  const documents = new Map<string, Json>();
  const pathsByDoc = new Map<string, Json>();
  const schemasByDoc = new Map<string, Json>();
  for (const t of types) {
    const key = docKey(t.group, t.version);
    if (!schemasByDoc.has(key)) {
      // Each document is self-contained: the meta definitions its operations refer to, plus its own kinds.
      const roots: Json = {};
      for (const n of Object.values(META_DEFINITIONS)) roots[n] = allDefs[n];
      schemasByDoc.set(key, roots);
      pathsByDoc.set(key, {});
    }
    const schemas = schemasByDoc.get(key)!;
    for (const k of [t.kind, t.listKind]) {
      const n = names.get(gvkKey(t.group, t.version, k));
      if (n) schemas[n] = allDefs[n];
    }
  }
  // ... and every definition those refer to.
  for (const schemas of schemasByDoc.values()) closeOverRefs(schemas, allDefs);
  for (const e of pathEntries(types, names)) pathsByDoc.get(e.doc)![e.path] = renderPathItem('v3', e);

  const index: OpenAPIV3['index'] = { paths: {} };
  for (const [key, schemas] of schemasByDoc) {
    const doc = { openapi: '3.0.0', info: { title: TITLE, version: info.version }, paths: pathsByDoc.get(key), components: { schemas } };
    documents.set(key, doc);
    // Clients cache documents by this URL, so the hash must change exactly when the content does.
    const hash = createHash('sha512').update(JSON.stringify(doc)).digest('hex').toUpperCase();
    index.paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hash}` };
  }
  return { index, documents };
}
