/**
 * `server.apply(...)`: loads manifests (files, folders, multi-document YAML text, objects) and applies them
 * server-side in dependency order: custom resource definitions first (waited for until Established), then
 * namespaces, then everything else. Every failure names the source, the document and the server's message.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { statusMessage, type AdminClient } from './admin-client.js';

export type FixtureInput = string | Record<string, unknown> | readonly (string | Record<string, unknown>)[];

export interface Manifest {
  /** A file path, `<yaml text>` or `<object>`. */
  source: string;
  /** 1-based position of the document in its source. */
  document: number;
  object: Record<string, unknown>;
}

/** The field manager fixture writes are recorded under. */
export const FIXTURE_FIELD_MANAGER = 'orch-testkit';
const MANIFEST_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);
const CRD_KIND = 'CustomResourceDefinition';

export class FixtureError extends Error {}

const where = (m: Pick<Manifest, 'source' | 'document'>) => `${m.source}, document ${m.document}`;

/** Every manifest of the input, in input order (folders: their manifest files, sorted by name). */
export function loadManifests(input: FixtureInput): Manifest[] {
  const items = Array.isArray(input) ? input : [input];
  const out: Manifest[] = [];
  items.forEach((item, i) => {
    if (typeof item !== 'string') return out.push(...fromObject(item as Record<string, unknown>, '<object>', i + 1));
    if (existsSync(item)) {
      if (!statSync(item).isDirectory()) return out.push(...fromText(readFileSync(item, 'utf8'), item));
      const files = readdirSync(item).filter((f) => MANIFEST_EXTENSIONS.has(extname(f))).sort();
      for (const f of files) out.push(...fromText(readFileSync(join(item, f), 'utf8'), join(item, f)));
      return;
    }
    // A string that names no file is YAML text only if it looks like a document; else it is a missing file.
    if (!item.includes('\n') && !item.includes(':')) throw new FixtureError(`fixtures: ${item}: no such file or folder`);
    out.push(...fromText(item, '<yaml text>'));
  });
  return out;
}

function fromText(text: string, source: string): Manifest[] {
  const out: Manifest[] = [];
  parseAllDocuments(text).forEach((doc, i) => {
    const at = { source, document: i + 1 };
    if (doc.errors.length > 0) throw new FixtureError(`fixtures: ${where(at)}: not valid YAML: ${doc.errors[0]?.message}`);
    const value = doc.toJS() as unknown;
    if (value === null || value === undefined) return; // an empty document (a trailing `---`)
    if (typeof value !== 'object' || Array.isArray(value)) throw new FixtureError(`fixtures: ${where(at)}: a manifest must be an object`);
    out.push(...fromObject(value as Record<string, unknown>, source, i + 1));
  });
  return out;
}

/** One object, or the items of a `*List` object (as `kubectl apply` expands them). */
function fromObject(obj: Record<string, unknown>, source: string, document: number): Manifest[] {
  const at = { source, document };
  if (typeof obj.kind === 'string' && obj.kind.endsWith('List') && Array.isArray(obj.items)) {
    return (obj.items as unknown[]).flatMap((item) => fromObject(item as Record<string, unknown>, source, document));
  }
  if (typeof obj.apiVersion !== 'string' || obj.apiVersion === '') throw new FixtureError(`fixtures: ${where(at)}: apiVersion is required`);
  if (typeof obj.kind !== 'string' || obj.kind === '') throw new FixtureError(`fixtures: ${where(at)}: kind is required`);
  const meta = obj.metadata as { name?: unknown } | undefined;
  if (typeof meta?.name !== 'string' || meta.name === '') throw new FixtureError(`fixtures: ${where(at)}: metadata.name is required`);
  return [{ source, document, object: obj }];
}

/** CRDs, then namespaces, then the rest; input order kept within each group. */
export function applyOrder(manifests: readonly Manifest[]): Manifest[] {
  const rank = (m: Manifest) => (m.object.kind === CRD_KIND ? 0 : m.object.kind === 'Namespace' && m.object.apiVersion === 'v1' ? 1 : 2);
  return manifests
    .map((m, i) => ({ m, i }))
    .sort((a, b) => rank(a.m) - rank(b.m) || a.i - b.i)
    .map((x) => x.m);
}

interface ResourceInfo {
  plural: string;
  namespaced: boolean;
}

/** Applies manifests through the API, server-side; returns the applied objects as the server stored them. */
export class FixtureLoader {
  private discovery = new Map<string, Map<string, ResourceInfo>>();

  constructor(
    private readonly client: AdminClient,
    private readonly crdTimeoutMs = 10_000,
  ) {}

  async apply(input: FixtureInput): Promise<Record<string, unknown>[]> {
    const ordered = applyOrder(loadManifests(input));
    const applied: Record<string, unknown>[] = [];
    const crds = ordered.filter((m) => m.object.kind === CRD_KIND);
    for (const m of crds) applied.push(await this.applyOne(m));
    if (crds.length > 0) {
      for (const m of crds) await this.waitEstablished(m);
      this.discovery.clear(); // the new kinds are served now
    }
    for (const m of ordered) if (m.object.kind !== CRD_KIND) applied.push(await this.applyOne(m));
    return applied;
  }

  private async applyOne(m: Manifest): Promise<Record<string, unknown>> {
    const obj = m.object;
    const info = await this.resourceOf(m);
    const meta = obj.metadata as { name: string; namespace?: unknown };
    const apiVersion = obj.apiVersion as string;
    const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    let path: string;
    if (info.namespaced) {
      const ns = typeof meta.namespace === 'string' && meta.namespace !== '' ? meta.namespace : 'default';
      path = `${base}/namespaces/${encodeURIComponent(ns)}/${info.plural}/${encodeURIComponent(meta.name)}`;
    } else path = `${base}/${info.plural}/${encodeURIComponent(meta.name)}`;
    const r = await this.client.call('PATCH', `${path}?fieldManager=${FIXTURE_FIELD_MANAGER}&force=true`, { text: JSON.stringify(obj), contentType: 'application/apply-patch+yaml' });
    if (r.status >= 300) throw new FixtureError(`fixtures: ${where(m)}: ${obj.kind} ${meta.name}: the server answered ${r.status}: ${statusMessage(r)}`);
    return r.json as Record<string, unknown>;
  }

  /** The plural and scope of the manifest's kind, from discovery (a new CRD's kind may take a moment). */
  private async resourceOf(m: Manifest): Promise<ResourceInfo> {
    const apiVersion = m.object.apiVersion as string;
    const kind = m.object.kind as string;
    const deadline = Date.now() + 2000;
    for (;;) {
      let kinds = this.discovery.get(apiVersion);
      if (!kinds) {
        const r = await this.client.call('GET', apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`);
        if (r.status === 200) {
          kinds = new Map();
          for (const res of (r.json as { resources?: { name: string; kind: string; namespaced: boolean }[] }).resources ?? []) {
            if (!res.name.includes('/')) kinds.set(res.kind, { plural: res.name, namespaced: res.namespaced });
          }
          this.discovery.set(apiVersion, kinds);
        }
      }
      const found = kinds?.get(kind);
      if (found) return found;
      if (Date.now() > deadline) throw new FixtureError(`fixtures: ${where(m)}: the server does not serve kind ${kind} in ${apiVersion}`);
      this.discovery.delete(apiVersion);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  private async waitEstablished(m: Manifest): Promise<void> {
    const name = (m.object.metadata as { name: string }).name;
    const path = `/apis/${m.object.apiVersion as string}/customresourcedefinitions/${encodeURIComponent(name)}`;
    const deadline = Date.now() + this.crdTimeoutMs;
    for (;;) {
      const r = await this.client.call('GET', path);
      if (r.status === 200 && isEstablished(r.json)) return;
      if (Date.now() > deadline) {
        const why = r.status === 200 ? 'its Established condition is not True' : `the server answered ${r.status}: ${statusMessage(r)}`;
        throw new FixtureError(`fixtures: ${where(m)}: CustomResourceDefinition ${name} not established after ${this.crdTimeoutMs} ms: ${why}`);
      }
      await new Promise((res) => setTimeout(res, 20));
    }
  }
}

/** `status.conditions[]` holds `{ type: Established, status: "True" }`. */
export function isEstablished(crd: unknown): boolean {
  const conditions = (crd as { status?: { conditions?: unknown } } | undefined)?.status?.conditions;
  return Array.isArray(conditions) && conditions.some((c: { type?: unknown; status?: unknown }) => c?.type === 'Established' && c.status === 'True');
}
