/**
 * certificates/v1alpha1 ClusterTrustBundle: a named set of CA certificates, optionally published for one
 * signer. A bundle with `spec.signerName` must be named `<signerName with '/' replaced by ':'>:<suffix>`
 * (so the attest permission on a signer covers a predictable name range); one without may not have ':' in
 * its name. The signer never changes after creation. Table column SIGNERNAME after NAME (the reference
 * shows no AGE here, but the table renderer adds one to every type with columns); field selector
 * `spec.signerName`.
 */
import { CERTIFICATES_GROUP } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { column } from '../../schema.js';
import type { ResourceType } from '../../types.js';
import { isPathSegmentName, isPathSegmentPrefix, validateName } from '../../validation/index.js';
import { FieldReader, isRec } from '../events/fields.js';
import { referenceType } from '../reference.js';
import { trustBundleProblems, MAX_TRUST_BUNDLE_SIZE } from './trust-anchors.js';
import { validateSignerName } from './validation.js';

/** The reference's ValidateClusterTrustBundleName: the name (or generateName, `prefix`) rule for a signer. */
export function clusterTrustBundleNameProblems(signerName: string, name: string, prefix: boolean): string[] {
  if (signerName === '') {
    if (name.includes(':')) return ['ClusterTrustBundle without signer name must not have ":" in its name'];
    return validateName('subdomain', name, prefix);
  }
  const required = `${signerName.replaceAll('/', ':')}:`;
  if (!name.startsWith(required)) return [`ClusterTrustBundle for signerName ${signerName} must be named with prefix ${required}`];
  return validateName('subdomain', name.slice(required.length), prefix);
}

const specOf = (o: ApiObject) => (isRec(o.spec) ? o.spec : undefined);
const signerOf = (o: ApiObject): string => {
  const s = specOf(o)?.signerName;
  return typeof s === 'string' ? s : '';
};

/**
 * The name rules of metadata. The store already applied the path-segment rule (it keeps keys safe); a
 * value that failed it is not reported twice.
 */
function validateBundleNames(o: ApiObject, signerName: string): FieldError[] {
  const meta = isRec(o.metadata) ? o.metadata : {};
  const errs: FieldError[] = [];
  for (const [key, prefix] of [['generateName', true], ['name', false]] as const) {
    const v = meta[key];
    if (typeof v !== 'string' || v === '') continue;
    if ((prefix ? isPathSegmentPrefix(v) : isPathSegmentName(v)).length > 0) continue;
    for (const msg of clusterTrustBundleNameProblems(signerName, v, prefix)) errs.push(fieldError.invalid(`metadata.${key}`, v, msg));
  }
  return errs;
}

/** The reference's ValidateClusterTrustBundle (create, and the object part of every update). */
export function validateClusterTrustBundle(o: ApiObject): FieldError[] {
  const r = new FieldReader();
  const spec = r.obj(o, 'spec', 'spec');
  const signerName = r.str(spec, 'signerName', 'spec.signerName');
  const bundle = r.str(spec, 'trustBundle', 'spec.trustBundle');
  const errs = validateBundleNames(o, signerName);
  if (signerName !== '') errs.push(...validateSignerName('spec.signerName', signerName));
  const { tooLong, problems } = trustBundleProblems(bundle);
  if (tooLong) errs.push(fieldError.tooLong('spec.trustBundle', MAX_TRUST_BUNDLE_SIZE));
  // The bundle's text is never echoed: it may be a megabyte of PEM.
  for (const p of problems) errs.push(fieldError.invalid('spec.trustBundle', '<value omitted>', p));
  return [...r.errors, ...errs];
}

/** On update the signer is immutable (the name prefix rule above then also fails for the new signer). */
export function validateClusterTrustBundleUpdate(o: ApiObject, old: ApiObject): FieldError[] {
  const signerName = signerOf(o);
  return signerName === signerOf(old) ? [] : [fieldError.invalid('spec.signerName', signerName, 'field is immutable')];
}

export const clusterTrustBundles: ResourceType = referenceType(CERTIFICATES_GROUP, 'v1alpha1', 'clustertrustbundles', {
  tableColumns: [
    column('SignerName', 'string', 'The signer the bundle is published for.', (o) => {
      const s = signerOf(o);
      return s === '' ? '<none>' : s;
    }),
  ],
  selectableFields: (o) => ({ 'spec.signerName': signerOf(o) }),
  strategy: {
    // Names with a signer carry ':' (`example.com:signer:abc`), which the subdomain rule refuses; the
    // bundle's own name rule runs in validate.
    nameRule: 'path-segment',
    validate: validateClusterTrustBundle,
    validateUpdate: validateClusterTrustBundleUpdate,
  },
});
