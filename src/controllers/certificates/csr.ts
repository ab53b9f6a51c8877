/** CertificateSigningRequest access shared by the approving and signing controllers. */
import { CERTIFICATES_GROUP } from '../../api/naming.js';
import type { KubeObject } from '../../client/index.js';

export const CSRS = { group: CERTIFICATES_GROUP, version: 'v1', plural: 'certificatesigningrequests' };

export interface CsrCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastUpdateTime?: string;
}

const rec = (v: unknown): Record<string, unknown> => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

export const csrSpec = (csr: KubeObject): Record<string, unknown> => rec(csr.spec);
export const csrStatus = (csr: KubeObject): Record<string, unknown> => rec(csr.status);

export function csrConditions(csr: KubeObject): CsrCondition[] {
  const list = csrStatus(csr).conditions;
  return Array.isArray(list) ? (list.filter((c) => rec(c).type !== undefined) as CsrCondition[]) : [];
}

/** Whether a condition of `type` is present with status True (v1 treats a missing status as True). */
export const hasTrueCondition = (csr: KubeObject, type: string): boolean =>
  csrConditions(csr).some((c) => c.type === type && (c.status === 'True' || c.status === undefined || c.status === ''));

export const hasCertificate = (csr: KubeObject): boolean => {
  const cert = csrStatus(csr).certificate;
  return typeof cert === 'string' && cert !== '';
};

export const usagesOf = (csr: KubeObject): string[] => {
  const u = csrSpec(csr).usages;
  return Array.isArray(u) ? u.filter((x): x is string => typeof x === 'string') : [];
};

/** The object with one more condition, ready for the `approval` or `status` subresource. */
export function withCondition(csr: KubeObject, condition: CsrCondition): KubeObject {
  const status = csrStatus(csr);
  return { ...csr, status: { ...status, conditions: [...csrConditions(csr), condition] } };
}
