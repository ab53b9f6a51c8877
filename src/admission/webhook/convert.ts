/**
 * The request's objects in another served version of the same resource, for what registered for that
 * version under matchPolicy Equivalent: webhooks (match.ts) and ValidatingAdmissionPolicies
 * (policy/plugin.ts). Built-in types convert synchronously; a custom resource with a conversion webhook
 * answers a promise, so only the requests that need such a conversion wait for it.
 */
import type { ApiObject } from '../../api/types.js';
import { internalError } from '../../errors/index.js';
import type { AdmissionDeps, AdmissionRequest, GroupVersionKind, GroupVersionResource } from '../types.js';
import type { ConvertedObjects } from './review.js';

export const sameKind = (a: GroupVersionKind, b: GroupVersionKind) => a.group === b.group && a.version === b.version && a.kind === b.kind;
export const sameResource = (a: GroupVersionResource, b: GroupVersionResource) =>
  a.group === b.group && a.version === b.version && a.resource === b.resource;

/** The kind served at an equivalent resource; a request can only be shown as a kind the server knows. */
export function equivalentKind(eq: GroupVersionResource, deps: AdmissionDeps): GroupVersionKind {
  const kind = deps.kindOf(eq);
  if (!kind) throw internalError(`unable to convert to ${eq.group}/${eq.version}, Resource=${eq.resource}: unknown kind`);
  return kind;
}

/**
 * A failed conversion ends the request as the reference's admission does, whatever the failure policy: a
 * 500 whose message carries the conversion's own (which names the conversion webhook and its error).
 */
const asInternalError = (e: unknown): never => {
  throw internalError(e instanceof Error ? e.message : String(e));
};

/**
 * The request's objects in the version of the equivalent resource `to`, and the way back for a patch
 * made against them; a promise when the conversion calls out (a CRD's conversion webhook). Without a
 * conversion between the two versions the request fails rather than showing an object of another
 * version than the one registered for.
 */
export function convertedObjects(req: AdmissionRequest, to: GroupVersionResource, deps: AdmissionDeps): ConvertedObjects | Promise<ConvertedObjects> {
  const from = req.resource;
  const fail = () => internalError(`unable to convert ${req.kind.kind} from ${from.group}/${from.version} to ${to.group}/${to.version}: no conversion between these versions`);
  const convert = (o: ApiObject | undefined, a: GroupVersionResource, b: GroupVersionResource) => {
    if (o === undefined) return undefined;
    const out = deps.convertObject?.(o, a, b);
    if (!out) throw fail();
    return out instanceof Promise ? out.catch(asInternalError) : out;
  };
  const toRequestVersion = (o: ApiObject) => convert(o, to, from) as ApiObject | Promise<ApiObject>;
  const object = convert(req.object, from, to);
  const oldObject = convert(req.oldObject, from, to);
  if (!(object instanceof Promise) && !(oldObject instanceof Promise)) return { object, oldObject, toRequestVersion };
  return Promise.all([object, oldObject]).then(([o, old]) => ({ object: o, oldObject: old, toRequestVersion }));
}
