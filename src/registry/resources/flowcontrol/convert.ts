/**
 * flowcontrol v1beta3 <-> v1 (the stored form). The fields are the same; what differs is how a zero
 * `spec.limited.nominalConcurrencyShares` is told apart from an unset one (spec 9.6). v1beta3 has no
 * "unset" (the field is a plain integer, always written), so, as the reference does, a stored 0 reads back
 * through v1beta3 with the preserve-zero annotation, and the annotation is dropped again on the way in.
 */
import { FLOWCONTROL_PRESERVE_ZERO_SHARES_ANNOTATION, GROUP_SUFFIX } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import { isRec } from '../events/fields.js';

export const FLOWCONTROL_GROUP = `flowcontrol.apiserver.${GROUP_SUFFIX}`;
export const V1_API_VERSION = `${FLOWCONTROL_GROUP}/v1`;
export const V1BETA3_API_VERSION = `${FLOWCONTROL_GROUP}/v1beta3`;

function withApiVersion(o: ApiObject, apiVersion: string): ApiObject {
  return { ...structuredClone(o), apiVersion };
}

/** FlowSchema: only the apiVersion changes. */
export const flowSchemaToV1 = (o: ApiObject): ApiObject => withApiVersion(o, V1_API_VERSION);
export const flowSchemaToV1beta3 = (o: ApiObject): ApiObject => withApiVersion(o, V1BETA3_API_VERSION);

/** v1beta3 PriorityLevelConfiguration -> stored v1: the preserve-zero annotation has done its job. */
export function priorityLevelToV1(o: ApiObject): ApiObject {
  const out = withApiVersion(o, V1_API_VERSION);
  const annotations = out.metadata?.annotations;
  if (isRec(annotations) && Object.hasOwn(annotations, FLOWCONTROL_PRESERVE_ZERO_SHARES_ANNOTATION)) {
    delete annotations[FLOWCONTROL_PRESERVE_ZERO_SHARES_ANNOTATION];
    // An empty map is not written, as with the reference's omitempty.
    if (Object.keys(annotations).length === 0 && out.metadata) delete out.metadata.annotations;
  }
  return out;
}

/** Stored v1 PriorityLevelConfiguration -> v1beta3: a zero share count is marked so that it round-trips. */
export function priorityLevelToV1beta3(o: ApiObject): ApiObject {
  const out = withApiVersion(o, V1BETA3_API_VERSION);
  const limited = isRec(out.spec) ? out.spec.limited : undefined;
  if (!isRec(limited)) return out;
  const shares = limited.nominalConcurrencyShares ?? 0;
  limited.nominalConcurrencyShares = shares;
  if (shares === 0) {
    const meta = (out.metadata ??= {});
    const annotations = isRec(meta.annotations) ? meta.annotations : (meta.annotations = {});
    if (!Object.hasOwn(annotations, FLOWCONTROL_PRESERVE_ZERO_SHARES_ANNOTATION)) annotations[FLOWCONTROL_PRESERVE_ZERO_SHARES_ANNOTATION] = '';
  }
  return out;
}
