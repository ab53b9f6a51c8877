/**
 * certificates/v1 CertificateSigningRequest. The server records the requesting user in the spec, which
 * never changes afterwards; approvers add Approved or Denied through the `approval` subresource, signers
 * write the certificate (and Failed) through `status`. Table AGE, SIGNERNAME, REQUESTOR, REQUESTEDDURATION,
 * CONDITION.
 */
import { CERTIFICATES_GROUP } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import { humanDuration } from '../../../encoding/index.js';
import { nowTimestamp } from '../../object-meta.js';
import { column } from '../../schema.js';
import type { RequestContext, ResourceType } from '../../types.js';
import { isRec, type Rec } from '../events/fields.js';
import { referenceType } from '../reference.js';
import { APPROVAL_TYPES, validateCSR, validateCSRUpdate } from './validation.js';

const conditions = (o: ApiObject): Rec[] => (isRec(o.status) && Array.isArray(o.status.conditions) ? o.status.conditions.filter(isRec) : []);

/** v1 defaulting: a condition without a status is True. */
function defaultConditions(o: ApiObject): void {
  for (const c of conditions(o)) if (c.status === undefined || c.status === null || c.status === '') c.status = 'True';
}

/** The requester comes from the request, never from the body; a new request has no conditions yet. */
export function prepareCSRCreate(o: ApiObject, request?: RequestContext): void {
  const spec: Rec = isRec(o.spec) ? o.spec : (o.spec = {});
  for (const k of ['username', 'uid', 'groups', 'extra']) delete spec[k];
  const user = request?.user;
  if (user) {
    spec.username = user.username;
    if (user.uid) spec.uid = user.uid;
    if (user.groups.length > 0) spec.groups = [...user.groups];
    if (user.extra && Object.keys(user.extra).length > 0) spec.extra = structuredClone(user.extra);
  }
  o.status = {};
}

/** lastUpdateTime defaults to now; lastTransitionTime to the matching old condition's, else now. */
function stampConditions(o: ApiObject, old: ApiObject): void {
  const now = nowTimestamp();
  for (const c of conditions(o)) {
    if (!c.lastUpdateTime) c.lastUpdateTime = now;
    if (!c.lastTransitionTime) {
      const prev = conditions(old).find((p) => p.type === c.type && p.status === c.status && p.lastTransitionTime);
      c.lastTransitionTime = prev?.lastTransitionTime ?? now;
    }
  }
}

/** Every top-level field but status from `old` (metadata is the store's business). */
function keepAllButStatus(o: ApiObject, old: ApiObject): void {
  for (const k of Object.keys(o)) if (k !== 'status' && k !== 'metadata' && k !== 'apiVersion' && k !== 'kind') delete o[k];
  for (const [k, v] of Object.entries(old)) if (k !== 'status' && k !== 'metadata' && k !== 'apiVersion' && k !== 'kind') o[k] = v;
}

/**
 * The status writer keeps the stored Approved/Denied conditions when it sends as many of them (so a signer
 * echoing an older copy does not trip the "may not modify" rule); adding or removing them still fails.
 */
function prepareStatusWrite(o: ApiObject, old: ApiObject): void {
  defaultConditions(o);
  const status = o.status;
  if (isRec(status) && Array.isArray(status.conditions)) {
    let list: unknown[] = status.conditions;
    for (const type of APPROVAL_TYPES) {
      const prev = conditions(old).filter((c) => c.type === type);
      if (prev.length !== list.filter((c) => isRec(c) && c.type === type).length) continue;
      let i = 0;
      list = list.map((c) => (isRec(c) && c.type === type ? prev[i++] : c));
    }
    status.conditions = list;
  }
  stampConditions(o, old);
}

/** The approval writer changes only status.conditions. */
function prepareApprovalWrite(o: ApiObject, old: ApiObject): void {
  const next = isRec(o.status) ? o.status.conditions : undefined;
  keepAllButStatus(o, old);
  const status: Rec = isRec(old.status) ? { ...old.status } : {};
  if (next === undefined) delete status.conditions;
  else status.conditions = next;
  o.status = status;
  defaultConditions(o);
  stampConditions(o, old);
}

/** Approved / Denied / Pending, then `,Failed` and `,Issued` as they apply. */
export function csrCondition(o: ApiObject): string {
  const has = (type: string) => conditions(o).some((c) => c.type === type);
  let text = has('Denied') ? 'Denied' : has('Approved') ? 'Approved' : 'Pending';
  if (has('Failed')) text += ',Failed';
  if (isRec(o.status) && typeof o.status.certificate === 'string' && o.status.certificate !== '') text += ',Issued';
  return text;
}

const specOf = (o: ApiObject): Rec => (isRec(o.spec) ? o.spec : {});

/** The reference puts AGE inside this table, so the type places (and computes) the column itself. */
function age(o: ApiObject): string {
  const t = Date.parse(String(o.metadata?.creationTimestamp ?? ''));
  return Number.isNaN(t) ? '<unknown>' : humanDuration(Date.now() - t);
}

export const certificateSigningRequests: ResourceType = referenceType(CERTIFICATES_GROUP, 'v1', 'certificatesigningrequests', {
  shortNames: ['csr'],
  subresources: ['approval', 'status'],
  tableColumns: [
    column('Age', 'string', 'Time since the object was created.', age),
    column('SignerName', 'string', 'The signer asked to issue the certificate.', (o) => {
      const s = specOf(o).signerName;
      return typeof s === 'string' && s !== '' ? s : '<none>';
    }),
    column('Requestor', 'string', 'The user who created the request.', (o) => (typeof specOf(o).username === 'string' ? (specOf(o).username as string) : '')),
    column('RequestedDuration', 'string', 'The validity the request asks for.', (o) => {
      const s = specOf(o).expirationSeconds;
      return typeof s === 'number' ? humanDuration(s * 1000) : '<none>';
    }),
    column('Condition', 'string', 'Approval and issuance state of the request.', csrCondition),
  ],
  selectableFields: (o) => ({ 'spec.signerName': typeof specOf(o).signerName === 'string' ? (specOf(o).signerName as string) : '' }),
  strategy: {
    // The reference puts no rule on request names beyond being addressable: the kubelet's
    // `node-csr-<base64url>` names have capitals and '_'.
    nameRule: 'path-segment',
    prepareForCreate: prepareCSRCreate,
    // The main resource changes metadata only: spec and status stay as stored.
    prepareForUpdate: (o, old) => {
      if (old.spec === undefined) delete o.spec;
      else o.spec = old.spec;
    },
    prepareForStatusUpdate: prepareStatusWrite,
    subresourceWrites: {
      approval: { prepare: prepareApprovalWrite, validateUpdate: (o, old) => validateCSRUpdate(o, old, 'approval') },
    },
    validate: validateCSR,
    // Main-resource writes cannot change conditions or the certificate (both are reset above), so the status
    // writer's rules cover both.
    validateUpdate: (o, old) => validateCSRUpdate(o, old, 'status'),
  },
});
