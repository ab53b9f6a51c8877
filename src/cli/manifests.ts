/**
 * Reading `-f` arguments: files, folders (their .yaml, .yml and .json files; sub-folders with `-R`) and `-`
 * for standard input; multi-document YAML and `List` objects give several objects. Every object must name
 * its apiVersion, kind and be an object; problems name the file and the document.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../client/index.js';

export interface Manifest {
  /** `file` or `file (document N)` for errors and messages. */
  source: string;
  object: KubeObject;
}

const MANIFEST_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The files a path stands for, in name order (folders: manifest files only; sub-folders with `recursive`). */
export function manifestFiles(path: string, recursive: boolean): string[] {
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new Error(`the path "${path}" does not exist`);
  }
  if (!st.isDirectory()) return [path];
  const out: string[] = [];
  for (const e of readdirSync(path, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const p = join(path, e.name);
    if (e.isDirectory()) {
      if (recursive) out.push(...manifestFiles(p, true));
    } else if (MANIFEST_EXTENSIONS.has(extname(e.name).toLowerCase())) out.push(p);
  }
  return out;
}

/** Pure: the objects of one file's text (YAML or JSON; several documents; `List`s expanded). */
export function parseManifests(text: string, source: string): Manifest[] {
  const docs = parseAllDocuments(text, { version: '1.1' });
  const list = Array.isArray(docs) ? docs : [docs];
  const several = list.length > 1;
  const out: Manifest[] = [];
  list.forEach((doc, i) => {
    const where = several ? `${source} (document ${i + 1})` : source;
    if (doc.errors.length > 0) throw new Error(`error parsing ${where}: ${doc.errors[0]!.message}`);
    const value: unknown = doc.toJS({ maxAliasCount: 100 });
    if (value === null || value === undefined) return; // an empty document (a trailing `---`, comments only)
    out.push(...expandLists(value, where));
  });
  return out;
}

function expandLists(value: unknown, where: string): Manifest[] {
  const obj = checkObject(value, where);
  if (typeof obj.kind === 'string' && obj.kind.endsWith('List') && Array.isArray(obj.items)) {
    return (obj.items as unknown[]).flatMap((item, i) => expandLists(item, `${where} item ${i}`));
  }
  return [{ source: where, object: obj }];
}

function checkObject(value: unknown, where: string): KubeObject {
  if (!isObject(value)) throw new Error(`error validating ${where}: the document must be an object, not ${Array.isArray(value) ? 'a list' : typeof value}`);
  const missing = ['apiVersion', 'kind'].filter((k) => typeof value[k] !== 'string' || value[k] === '');
  if (missing.length > 0) throw new Error(`error validating ${where}: ${missing.map((k) => `${k} not set`).join(', ')}`);
  if (value.metadata !== undefined && !isObject(value.metadata)) throw new Error(`error validating ${where}: metadata must be an object`);
  if (value.metadata === undefined) value.metadata = {};
  return value as KubeObject;
}

/** Reads every `-f` argument in order; `-` reads standard input (once). */
export async function readManifests(paths: readonly string[], recursive: boolean, readStdin: () => Promise<string>): Promise<Manifest[]> {
  if (paths.length === 0) throw new Error('must give at least one file with -f (a file, a folder or - for standard input)');
  const out: Manifest[] = [];
  let stdinRead = false;
  for (const path of paths) {
    if (path === '-') {
      if (stdinRead) throw new Error('-f - may be given only once');
      stdinRead = true;
      out.push(...parseManifests(await readStdin(), 'STDIN'));
      continue;
    }
    if (/^https?:\/\//i.test(path)) throw new Error(`-f ${path}: reading manifests from URLs is not supported; download the file first`);
    const files = manifestFiles(path, recursive);
    for (const file of files) {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (e) {
        throw new Error(`cannot read ${file}: ${(e as Error).message}`);
      }
      out.push(...parseManifests(text, file));
    }
  }
  if (out.length === 0) throw new Error(`no objects found in ${paths.join(', ')}`);
  return out;
}
