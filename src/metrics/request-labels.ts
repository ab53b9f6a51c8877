/**
 * The labels of a request as the reference reports them: upper-case verbs (GET for one object, LIST for a
 * collection, WATCH, POST, PUT, PATCH, APPLY for a server-side apply patch, DELETE for one object or a
 * collection), the scope (`resource` when a name is given or on create, `namespace`, `cluster`), and the
 * dry-run value.
 */
import type { RequestLabels } from './apiserver.js';

/** The parts of a parsed request these labels come from (server/request-info.ts). */
export interface RequestFacts {
  isResourceRequest: boolean;
  verb: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
}

const VERBS: Record<string, string> = {
  get: 'GET',
  list: 'LIST',
  watch: 'WATCH',
  create: 'POST',
  update: 'PUT',
  patch: 'PATCH',
  delete: 'DELETE',
  deletecollection: 'DELETE',
};

const APPLY_PATCH = 'application/apply-patch+yaml';

export function requestScope(f: RequestFacts): string {
  if (f.name !== '' || f.verb === 'create') return 'resource';
  if (f.namespace !== '') return 'namespace';
  return f.isResourceRequest ? 'cluster' : '';
}

/**
 * `dryRun` values, sorted and joined as the reference does; anything but `All` is `invalid` (such a request
 * is refused anyway). Without the parameter (nearly always) nothing is built.
 */
export function dryRunLabel(query: URLSearchParams): string {
  if (!query.has('dryRun')) return '';
  const values = [...new Set(query.getAll('dryRun'))].sort();
  return values.every((v) => v === 'All') ? values.join(',') : 'invalid';
}

export function requestLabels(f: RequestFacts, query: URLSearchParams, contentType: string | undefined): RequestLabels {
  let verb = VERBS[f.verb] ?? 'other';
  if (verb === 'PATCH' && contentType !== undefined && contentType.startsWith(APPLY_PATCH)) verb = 'APPLY';
  return { verb, dryRun: dryRunLabel(query), group: f.apiGroup, version: f.apiVersion, resource: f.resource, subresource: f.subresource, scope: requestScope(f) };
}
