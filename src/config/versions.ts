/**
 * Older versions of a configuration document convert to the current one before validation, so one
 * validator serves every version the reference reads. Where two versions differ only in their apiVersion
 * (true of every server document release 1.31 reads in more than one version), the conversion rewrites the
 * apiVersion; a field that differs gets its own step in the document's table.
 */
import { isObject } from '../api/types.js';

export interface VersionTable {
  /** The version the parser's output corresponds to. */
  readonly current: string;
  /** Each older version and the step that turns its fields into the current version's (none: same fields). */
  readonly older: Readonly<Record<string, ((doc: Record<string, unknown>) => Record<string, unknown>) | null>>;
}

/** Every version the table reads, the current one first. */
export function readableVersions(table: VersionTable): string[] {
  return [table.current, ...Object.keys(table.older)];
}

/**
 * The document in the current version; a document in an unknown version (or not an object) comes back
 * unchanged so the validator reports it as before.
 */
export function toCurrentVersion(doc: unknown, table: VersionTable): unknown {
  if (!isObject(doc) || typeof doc.apiVersion !== 'string' || !Object.hasOwn(table.older, doc.apiVersion)) return doc;
  const step = table.older[doc.apiVersion];
  const converted = step ? step({ ...doc }) : { ...doc };
  return { ...converted, apiVersion: table.current };
}
