/**
 * The three CertificateSigningRequest plugins of the reference (all on by default):
 * - CertificateApproval: writing the `approval` subresource needs the `approve` verb on the request's signer;
 * - CertificateSigning: changing `status.certificate` or `status.conditions` through `status` needs `sign`;
 * - CertificateSubjectRestriction: a request to the API server's client signer may not ask for the
 *   superuser organization.
 * Permission on a signer is the verb on resource `signers` of the certificates group, named by the signer
 * itself or by `<domain>/*` for every signer of its domain.
 */
import { CERTIFICATES_GROUP, KUBE_APISERVER_CLIENT_SIGNER } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { isObject } from '../../api/types.js';
import { StatusError } from '../../errors/index.js';
import { forbiddenFor, noConfiguration } from './common.js';
import { requestedOrganizations } from './csr-subject.js';
import type { AdmissionDeps, AdmissionOperation, AdmissionPlugin, AdmissionRequest, AdmissionUser } from '../types.js';

export const CERTIFICATE_APPROVAL = 'CertificateApproval';
export const CERTIFICATE_SIGNING = 'CertificateSigning';
export const CERTIFICATE_SUBJECT_RESTRICTION = 'CertificateSubjectRestriction';
const CSRS = 'certificatesigningrequests';
const SIGNERS = 'signers';
/** The group whose members pass every authorization check; no client certificate may claim it. */
const SUPERUSER_ORGANIZATION = 'system:masters';

type Authorize = NonNullable<AdmissionDeps['authorize']>;

const isCsrWrite = (req: AdmissionRequest, subResource: string) =>
  req.resource.resource === CSRS && req.resource.group === CERTIFICATES_GROUP && req.subResource === subResource;

const signerOf = (o: ApiObject | undefined): string => (isObject(o?.spec) && typeof o.spec.signerName === 'string' ? o.spec.signerName : '');

/** The names a permission on `signerName` may be granted under: the signer, then every signer of its domain. */
export function signerPermissionNames(signerName: string): [string, string] {
  return [signerName, `${signerName.split('/')[0]}/*`];
}

/** Whether `user` may `verb` the signer, by its own name or its domain's wildcard. */
export async function mayUseSigner(authorize: Authorize, user: AdmissionUser, verb: string, signerName: string): Promise<boolean> {
  for (const name of signerPermissionNames(signerName)) {
    if (await authorize(user, { verb, group: CERTIFICATES_GROUP, version: '*', resource: SIGNERS, name })) return true;
  }
  return false;
}

function needAuthorizer(plugin: string, deps: AdmissionDeps): Authorize {
  if (!deps.authorize) throw new Error(`admission plugin ${plugin} needs the server's authorizer, which was not provided`);
  return deps.authorize;
}

export class CertificateApprovalPlugin implements AdmissionPlugin {
  readonly name = CERTIFICATE_APPROVAL;
  constructor(private readonly authorize: Authorize) {}

  handles(op: AdmissionOperation): boolean {
    return op === 'UPDATE';
  }

  validate(req: AdmissionRequest): Promise<void> | void {
    if (!isCsrWrite(req, 'approval') || !req.object) return;
    // The signer the object will be stored with is the one whose approvers decide.
    return this.check(req, signerOf(req.object));
  }

  private async check(req: AdmissionRequest, signer: string): Promise<void> {
    if (!(await mayUseSigner(this.authorize, req.user, 'approve', signer))) {
      throw forbiddenFor(req, `user not permitted to approve requests with signerName ${JSON.stringify(signer)}`);
    }
  }
}

/** Whether a status write touches what only a signer may set: the certificate or the conditions. */
export function changesSignerFields(object: ApiObject | undefined, oldObject: ApiObject | undefined): boolean {
  const status = (o: ApiObject | undefined) => (isObject(o?.status) ? o.status : {});
  const [now, before] = [status(object), status(oldObject)];
  return (now.certificate ?? '') !== (before.certificate ?? '') || JSON.stringify(now.conditions ?? []) !== JSON.stringify(before.conditions ?? []);
}

export class CertificateSigningPlugin implements AdmissionPlugin {
  readonly name = CERTIFICATE_SIGNING;
  constructor(private readonly authorize: Authorize) {}

  handles(op: AdmissionOperation): boolean {
    return op === 'UPDATE';
  }

  validate(req: AdmissionRequest): Promise<void> | void {
    if (!isCsrWrite(req, 'status') || !changesSignerFields(req.object, req.oldObject)) return;
    // The stored signer: a status write cannot move the request to a signer its writer may use.
    return this.check(req, signerOf(req.oldObject));
  }

  private async check(req: AdmissionRequest, signer: string): Promise<void> {
    if (!(await mayUseSigner(this.authorize, req.user, 'sign', signer))) {
      throw forbiddenFor(req, `user not permitted to sign requests with signerName ${JSON.stringify(signer)}`);
    }
  }
}

export class CertificateSubjectRestrictionPlugin implements AdmissionPlugin {
  readonly name = CERTIFICATE_SUBJECT_RESTRICTION;

  handles(op: AdmissionOperation): boolean {
    return op === 'CREATE';
  }

  validate(req: AdmissionRequest): void {
    if (!isCsrWrite(req, '') || signerOf(req.object) !== KUBE_APISERVER_CLIENT_SIGNER) return;
    const spec = req.object?.spec as Record<string, unknown>;
    const organizations = requestedOrganizations(spec.request);
    if (!organizations) throw new StatusError(400, 'BadRequest', 'failed to parse CSR: spec.request is not a PEM certificate request');
    if (organizations.includes(SUPERUSER_ORGANIZATION)) {
      throw forbiddenFor(req, `use of ${KUBE_APISERVER_CLIENT_SIGNER} signer with ${SUPERUSER_ORGANIZATION} group is not allowed`);
    }
  }
}

export function certificateApprovalPlugin(deps: AdmissionDeps, configuration: unknown): AdmissionPlugin {
  noConfiguration(CERTIFICATE_APPROVAL, configuration);
  return new CertificateApprovalPlugin(needAuthorizer(CERTIFICATE_APPROVAL, deps));
}

export function certificateSigningPlugin(deps: AdmissionDeps, configuration: unknown): AdmissionPlugin {
  noConfiguration(CERTIFICATE_SIGNING, configuration);
  return new CertificateSigningPlugin(needAuthorizer(CERTIFICATE_SIGNING, deps));
}

export function certificateSubjectRestrictionPlugin(_deps: AdmissionDeps, configuration: unknown): AdmissionPlugin {
  noConfiguration(CERTIFICATE_SUBJECT_RESTRICTION, configuration);
  return new CertificateSubjectRestrictionPlugin();
}
