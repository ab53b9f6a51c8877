import type { ApiObject } from '../api/types.js';
import { apiVersionOf } from '../api/types.js';
import { badRequest, clip, forbidden, notFound } from '../errors/index.js';
import { apply } from '../apply/index.js';
import { cloneJson } from '../patch/index.js';
import { isStorageError } from '../storage/index.js';
import { decodeKV } from './codec.js';
import { metaOf, nowTimestamp } from './object-meta.js';
import { fromStorageError } from './storage-errors.js';
import { MAX_RETRIES, type StoreContext, type WriteOptions } from './store-options.js';
import { createObject } from './store-create.js';
import { replaceObject } from './store-update.js';
import { checkBody, checkFieldsOf, decodeAsync } from './store-steps.js';

export type ApplyOptions = WriteOptions & { fieldManager: string; force: boolean; canCreate(): Promise<boolean> };

/**
 * Server-side apply (spec 2.4, 4.3): merges the applied configuration into the live object with field
 * ownership, creating the object when it is missing (`canCreate` checks the create permission).
 */
export async function applyObject(
  s: StoreContext,
  namespace: string | undefined,
  name: string,
  body: unknown,
  opts: ApplyOptions,
): Promise<{ object: ApiObject; created: boolean }> {
  const t = s.type;
  const applied = checkFieldsOf(checkBody(s, body, namespace), opts);
  const meta = metaOf(applied);
  if (meta.managedFields !== undefined) throw badRequest('metadata.managedFields must be nil');
  if (meta.name === undefined || meta.name === '') meta.name = name;
  if (meta.name !== name) throw badRequest(`the name of the object (${clip(String(meta.name))}) does not match the name on the URL (${clip(name)})`);
  const apiVersion = apiVersionOf(t.group, t.version);
  const ignoreStatus = t.subresources.includes('status') && opts.subresource !== 'status';
  for (let attempt = 0; ; attempt++) {
    const cur = await s.deps.backend.get(s.key(namespace, name)).catch(fromStorageError);
    const live = cur ? (t.asyncConversion ? await decodeAsync(s, cur) : decodeKV(t, cur)) : undefined;
    const { object, managedFields } = apply({
      live,
      applied,
      schema: t.schema,
      manager: opts.fieldManager,
      force: opts.force,
      apiVersion,
      ...(opts.subresource ? { subresource: opts.subresource } : {}),
      now: nowTimestamp(s.deps.clock),
      ignoreStatus,
    });
    metaOf(object).managedFields = managedFields as unknown as Record<string, unknown>[];
    try {
      if (!cur) {
        if (opts.subresource) throw notFound(s.target(name));
        if (!(await opts.canCreate())) throw forbidden(`${t.plural} "${name}" is forbidden: applying a missing object creates it, which needs the create permission`, s.target(name));
        return { object: await createObject(s, namespace, object, { ...opts, applied: true }), created: true };
      }
      return { object: await replaceObject(s, cur, object, { ...opts, applied: true }, t.asyncConversion && live ? (cloneJson(live) as ApiObject) : undefined), created: false };
    } catch (e) {
      const again = isStorageError(e, 'Conflict') || isStorageError(e, 'NotFound') || (e as { reason?: string }).reason === 'AlreadyExists';
      if (again && attempt < MAX_RETRIES) continue;
      if (isStorageError(e)) fromStorageError(e);
      throw e;
    }
  }
}
