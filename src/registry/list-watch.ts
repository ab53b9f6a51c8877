import type { ApiObject } from '../api/types.js';
import { badRequest, timeout } from '../errors/index.js';
import {
  checkSupportedFields,
  isEmpty,
  matchesFields,
  matchesLabels,
  parseFieldSelector,
  parseLabelSelector,
  type FieldSelector,
  type LabelSelector,
} from '../selectors/index.js';
import { isStorageError, type Backend, type KeyValue } from '../storage/index.js';
import { decodeConverted, decodeKV, decodeUnconverted } from './codec.js';
import { continueExpired, decodeContinue, encodeContinue } from './continue-token.js';
import { collectionPrefix } from './keys.js';
import { beyondAnyRevision, boundedValue, canonicalResourceVersion, parseResourceVersion } from './resource-version.js';
import { fromStorageError } from './storage-errors.js';
import type { ResourceType } from './types.js';

export interface ListParams {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
}

export interface ListResult {
  items: ApiObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface Filter {
  labels: LabelSelector;
  fields: FieldSelector;
  matches(obj: ApiObject): boolean;
  empty: boolean;
}

/** Parses the selectors of a list, watch or deletecollection; unknown fields are 400 (spec 4.2). */
export function makeFilter(type: ResourceType, labelSelector = '', fieldSelector = ''): Filter {
  const labels = parseLabelSelector(labelSelector);
  const fields = parseFieldSelector(fieldSelector);
  const probe = type.selectableFields ? Object.keys(type.selectableFields({ metadata: {} })) : [];
  checkSupportedFields(fields, ['metadata.name', 'metadata.namespace', ...probe], type.plural);
  const fieldsOf = (obj: ApiObject) => ({
    'metadata.name': obj.metadata?.name ?? '',
    'metadata.namespace': obj.metadata?.namespace ?? '',
    ...(type.selectableFields?.(obj) ?? {}),
  });
  const empty = isEmpty(labels) && isEmpty(fields);
  return {
    labels,
    fields,
    empty,
    matches: (obj) => empty || (matchesLabels(labels, obj.metadata?.labels) && matchesFields(fields, fieldsOf(obj))),
  };
}

/** `text`: the client's resourceVersion as messages quote it (exact where `revision` is not, past 2^53). */
export type ReadMode = { mode: 'latest' } | { mode: 'exact' | 'notOlderThan'; revision: number; text: string };

/** The read semantics of spec 4.5 for lists, with every invalid combination a 400 that says why. */
export function listReadMode(p: ListParams): ReadMode {
  const rvm = p.resourceVersionMatch;
  const rv = p.resourceVersion;
  if (rvm !== undefined && rvm !== '' && rvm !== 'Exact' && rvm !== 'NotOlderThan') {
    throw badRequest(`resourceVersionMatch: Unsupported value: ${JSON.stringify(boundedValue(rvm))}: supported values: "Exact", "NotOlderThan"`);
  }
  if (rvm && (rv === undefined || rv === '')) {
    throw badRequest('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided');
  }
  if (p.continue) {
    if (rvm) throw badRequest('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided');
    if (rv !== undefined && rv !== '' && rv !== '0') {
      throw badRequest('resourceVersion: Forbidden: specifying resource version is not allowed when using continue');
    }
    return { mode: 'latest' }; // the token carries the revision
  }
  if (rv === undefined || rv === '') return { mode: 'latest' };
  const n = parseResourceVersion(rv);
  const text = canonicalResourceVersion(rv);
  if (rvm === 'Exact') {
    if (n === 0) throw badRequest('resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
    return { mode: 'exact', revision: n, text };
  }
  if (n === 0) return { mode: 'latest' };
  if (rvm === 'NotOlderThan') return { mode: 'notOlderThan', revision: n, text };
  return { mode: p.limit ? 'exact' : 'notOlderThan', revision: n, text };
}

const tooLarge = (rv: number | string) =>
  timeout(`Too large resource version: ${rv}, current: unknown; the server has not yet observed that revision`, 1);

export async function listObjects(type: ResourceType, backend: Backend, namespace: string | undefined, p: ListParams): Promise<ListResult> {
  const filter = makeFilter(type, p.labelSelector, p.fieldSelector);
  const prefix = collectionPrefix(type.storageKey, type.namespaced ? namespace : undefined);
  const mode = listReadMode(p);
  let revision: number | undefined;
  let start: string | undefined;
  // A store cannot hold a revision past 2^53: such a value is in the future without asking it.
  if (mode.mode !== 'latest' && beyondAnyRevision(mode.revision)) throw tooLarge(mode.text);
  if (p.continue) {
    const token = decodeContinue(p.continue, prefix);
    revision = token.rv;
    start = token.start;
  } else if (mode.mode === 'exact') {
    revision = mode.revision;
  } else if (mode.mode === 'notOlderThan') {
    const current = await backend.currentRevision().catch(fromStorageError);
    if (mode.revision > current) throw tooLarge(mode.text);
  }
  const limit = p.limit && p.limit > 0 ? p.limit : 0;
  let items: ApiObject[] = [];
  // A type converted by a call out is filtered in its stored form and converted in one batch at the end.
  const unconverted: KeyValue[] = [];
  let next: string | undefined;
  for (;;) {
    // With a selector, read ahead in larger pages: most keys may not match.
    const want = limit ? (filter.empty ? limit - items.length : Math.max(limit - items.length, 500)) : 0;
    let page;
    try {
      page = await backend.list(prefix, { ...(revision ? { revision } : {}), ...(start ? { startKey: start } : {}), limit: want });
    } catch (e) {
      if (isStorageError(e, 'Compacted') && p.continue) throw continueExpired();
      if (isStorageError(e, 'FutureRevision')) throw tooLarge(mode.mode !== 'latest' ? mode.text : (revision ?? 0));
      return fromStorageError(e);
    }
    revision = page.revision;
    let i = 0;
    let lastKey = start ?? '';
    for (; i < page.items.length; i++) {
      if (limit && items.length >= limit) break;
      const kv = page.items[i]!;
      lastKey = kv.key;
      if (type.asyncConversion) {
        if (filter.matches(decodeUnconverted(kv.value, kv.modRevision))) {
          unconverted.push(kv);
          items.push(undefined as unknown as ApiObject); // counts toward the limit
        }
        continue;
      }
      const obj = decodeKV(type, kv);
      if (filter.matches(obj)) items.push(obj);
    }
    const keysLeft = i < page.items.length || page.more;
    if (!keysLeft) break;
    // The next page starts just after the last key read ("\0" is the smallest suffix).
    start = `${lastKey}\x00`;
    if (limit && items.length >= limit) {
      next = start;
      break;
    }
  }
  if (type.asyncConversion) items = await decodeConverted(type, unconverted);
  const result: ListResult = { items, resourceVersion: String(revision) };
  if (next) result.continue = encodeContinue({ rv: revision as number, start: next });
  return result;
}
