/**
 * ClusterTrustBundleAttest (reference plugin, on by default). Writing a ClusterTrustBundle that names a
 * `spec.signerName` needs the `attest` verb on that signer (resource `signers` of the certificates group,
 * by the signer's own name or its domain's `<domain>/*`), so only those trusted to vouch for a signer
 * publish its roots. An update may not move a bundle to another signer, and an update that changes nothing
 * (a storage migration, a no-op apply) needs no permission.
 */
import { isDeepStrictEqual } from 'node:util';
import { CERTIFICATES_GROUP } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { isObject } from '../../api/types.js';
import { forbiddenFor, noConfiguration, PluginConfigurationError } from './common.js';
import { mayUseSigner } from './certificates.js';
import type { AdmissionDeps, AdmissionOperation, AdmissionPlugin, AdmissionRequest } from '../types.js';

export const CLUSTER_TRUST_BUNDLE_ATTEST = 'ClusterTrustBundleAttest';
const BUNDLES = 'clustertrustbundles';

type Authorize = NonNullable<AdmissionDeps['authorize']>;

const signerOf = (o: ApiObject | undefined): string => (isObject(o?.spec) && typeof o.spec.signerName === 'string' ? o.spec.signerName : '');

export class ClusterTrustBundleAttestPlugin implements AdmissionPlugin {
  readonly name = CLUSTER_TRUST_BUNDLE_ATTEST;

  constructor(private readonly authorize: Authorize) {}

  handles(op: AdmissionOperation): boolean {
    return op === 'CREATE' || op === 'UPDATE';
  }

  validate(req: AdmissionRequest): Promise<void> | void {
    if (req.resource.group !== CERTIFICATES_GROUP || req.resource.resource !== BUNDLES || !req.object) return;
    const signer = signerOf(req.object);
    if (req.operation === 'UPDATE') {
      // Validation refuses this too; checking here keeps the permission tied to the stored signer.
      if (signer !== signerOf(req.oldObject)) throw forbiddenFor(req, 'changing signerName is forbidden');
      if (isDeepStrictEqual(req.object, req.oldObject)) return;
    }
    if (signer === '') return;
    return mayUseSigner(this.authorize, req.user, 'attest', signer).then((allowed) => {
      if (!allowed) throw forbiddenFor(req, `user not permitted to attest for signerName ${JSON.stringify(signer)}`);
    });
  }
}

export function clusterTrustBundleAttestPlugin(deps: AdmissionDeps, configuration: unknown): AdmissionPlugin {
  noConfiguration(CLUSTER_TRUST_BUNDLE_ATTEST, configuration);
  if (!deps.authorize) throw new PluginConfigurationError(`admission plugin ${CLUSTER_TRUST_BUNDLE_ATTEST} needs the server's authorizer, which was not provided`);
  return new ClusterTrustBundleAttestPlugin(deps.authorize);
}
