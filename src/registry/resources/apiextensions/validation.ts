/**
 * Validation of a whole apiextensions/v1 CustomResourceDefinition with the reference's field paths and
 * wording: the name `<plural>.<group>`, group, scope, names, versions (via versions.ts), conversion,
 * preserveUnknownFields, the approval annotation of protected groups, status names and stored versions;
 * and the rules of an update (immutable group and plural; scope and kind once established).
 */
import { API_APPROVED_ANNOTATION, GROUP_SUFFIX } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { isDNS1123Subdomain } from '../../validation/index.js';
import { isDNS1035Label, required } from '../admissionregistration/rules.js';
import { FieldReader, immutable, isRec, type Rec } from '../events/fields.js';
import { caBundleOf, caBundleProblem, validateConversion } from './conversion.js';
import { isEstablished, recAt, specOf, storedVersions } from './defaults.js';
import { validateVersion } from './versions.js';

export const SCOPES = ['Cluster', 'Namespaced'];

function labelErrors(value: string, path: string, mixedCase = false): FieldError[] {
  if (value === '') return [];
  const errs = isDNS1035Label(mixedCase ? value.toLowerCase() : value);
  if (errs.length === 0) return [];
  return [fieldError.invalid(path, value, `${mixedCase ? 'may have mixed case, but should otherwise match: ' : ''}${errs.join(',')}`)];
}

/** The name rules shared by spec.names and status.acceptedNames. */
export function validateNames(r: FieldReader, names: Rec | undefined, path: string): FieldError[] {
  const kind = r.str(names, 'kind', `${path}.kind`);
  const listKind = r.str(names, 'listKind', `${path}.listKind`);
  const errs = [
    ...labelErrors(r.str(names, 'plural', `${path}.plural`), `${path}.plural`),
    ...labelErrors(r.str(names, 'singular', `${path}.singular`), `${path}.singular`),
    ...labelErrors(kind, `${path}.kind`, true),
    ...labelErrors(listKind, `${path}.listKind`, true),
  ];
  r.strList(names, 'shortNames', `${path}.shortNames`).forEach((s, i) => errs.push(...labelErrors(s, `${path}.shortNames[${i}]`)));
  if (kind !== '' && kind === listKind) errs.push(fieldError.invalid(`${path}.listKind`, listKind, 'kind and listKind may not be the same'));
  r.strList(names, 'categories', `${path}.categories`).forEach((c, i) => errs.push(...labelErrors(c, `${path}.categories[${i}]`)));
  return errs;
}

function validateGroup(group: string): FieldError[] {
  if (group === '') return [required('spec.group')];
  const errs = isDNS1123Subdomain(group);
  if (errs.length > 0) return [fieldError.invalid('spec.group', group, errs.join(','))];
  if (!group.includes('.')) return [fieldError.invalid('spec.group', group, 'should be a domain with at least one dot')];
  return [];
}

function validateVersionList(r: FieldReader, spec: Rec): FieldError[] {
  const errs: FieldError[] = [];
  const list = r.list(spec, 'versions', 'spec.versions');
  const names = new Set<string>();
  let unique = true;
  let storage = 0;
  list.forEach((v, i) => {
    const at = `spec.versions[${i}]`;
    if (!isRec(v)) {
      errs.push(fieldError.typeInvalid(at, v, 'must be of type object'));
      return;
    }
    if (v.storage === true) storage++;
    const name = typeof v.name === 'string' ? v.name : '';
    if (names.has(name)) unique = false;
    names.add(name);
    errs.push(...validateVersion(r, v, at));
  });
  const summary = list.map((v) => (isRec(v) ? v.name : v));
  if (!unique) errs.push(fieldError.invalid('spec.versions', summary, 'must contain unique version names'));
  if (storage !== 1) errs.push(fieldError.invalid('spec.versions', summary, 'must have exactly one version marked as storage version'));
  return errs;
}

/** Groups under the maker's own domain need an approval annotation: a URL, or a reason starting `unapproved`. */
function approvalErrors(o: ApiObject, group: string): FieldError[] {
  if (group !== GROUP_SUFFIX && !group.endsWith(`.${GROUP_SUFFIX}`)) return [];
  const path = `metadata.annotations[${API_APPROVED_ANNOTATION}]`;
  const annotations = isRec(o.metadata?.annotations) ? o.metadata.annotations : {};
  const value = annotations[API_APPROVED_ANNOTATION];
  if (typeof value !== 'string') return [required(path, `protected groups must have approval annotation "${API_APPROVED_ANNOTATION}"`)];
  if (value.startsWith('unapproved')) return [];
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url && url.protocol !== '' && value.includes('/')) return [];
  return [fieldError.invalid(path, value, `protected groups must have approval annotation "${API_APPROVED_ANNOTATION}" with either a URL or a reason starting with "unapproved"`)];
}

/** status.storedVersions: never empty, holds the storage version, and names only versions still in spec. */
function storedVersionErrors(o: ApiObject): FieldError[] {
  const stored = storedVersions(o);
  const path = 'status.storedVersions';
  if (stored.length === 0) return [fieldError.invalid(path, [], 'must have at least one stored version')];
  const errs: FieldError[] = [];
  const inSpec = new Set<string>();
  for (const v of (specOf(o)?.versions as unknown[] | undefined) ?? []) {
    if (!isRec(v) || typeof v.name !== 'string') continue;
    inSpec.add(v.name);
    if (v.storage === true && !stored.includes(v.name)) errs.push(fieldError.invalid(path, stored, `must have the storage version ${v.name}`));
  }
  stored.forEach((v, i) => {
    if (inSpec.has(v)) return;
    const why = `missing from spec.versions; ${v} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in ${v} and removes ${v} from status.storedVersions`;
    errs.push(fieldError.invalid(`${path}[${i}]`, v, why));
  });
  return errs;
}

export function validateCRD(o: ApiObject): FieldError[] {
  const r = new FieldReader();
  const errs: FieldError[] = [];
  const spec = r.obj(o, 'spec', 'spec') ?? {};
  const group = r.str(spec, 'group', 'spec.group');
  const names = r.obj(spec, 'names', 'spec.names');
  const plural = r.str(names, 'plural', 'spec.names.plural');
  const name = typeof o.metadata?.name === 'string' ? o.metadata.name : '';
  if (name !== `${plural}.${group}`) errs.push(fieldError.invalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));
  errs.push(...validateGroup(group));
  const scope = r.str(spec, 'scope', 'spec.scope');
  if (scope === '') errs.push(required('spec.scope'));
  else if (!SCOPES.includes(scope)) errs.push(fieldError.notSupported('spec.scope', scope, SCOPES));
  errs.push(...validateVersionList(r, spec));
  for (const key of ['plural', 'singular', 'kind', 'listKind']) {
    if (r.str(names, key, `spec.names.${key}`) === '') errs.push(required(`spec.names.${key}`));
  }
  errs.push(...validateNames(r, names, 'spec.names'));
  errs.push(...validateConversion(r, spec, 'spec.conversion'));
  if (spec.preserveUnknownFields === true) {
    errs.push(fieldError.invalid('spec.preserveUnknownFields', true, 'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead'));
  } else if (spec.preserveUnknownFields !== undefined && spec.preserveUnknownFields !== null && spec.preserveUnknownFields !== false) {
    errs.push(fieldError.typeInvalid('spec.preserveUnknownFields', spec.preserveUnknownFields, 'must be of type boolean'));
  }
  errs.push(...approvalErrors(o, group));
  const status = r.obj(o, 'status', 'status');
  errs.push(...validateNames(r, r.obj(status, 'acceptedNames', 'status.acceptedNames'), 'status.acceptedNames'));
  r.list(status, 'conditions', 'status.conditions');
  errs.push(...storedVersionErrors(o));
  return [...r.errors, ...errs];
}

export function validateCRDUpdate(o: ApiObject, old: ApiObject): FieldError[] {
  const spec = specOf(o);
  const oldSpec = specOf(old);
  const errs = [
    ...immutable('spec.group', spec?.group, oldSpec?.group),
    ...immutable('spec.names.plural', recAt(spec, 'names')?.plural, recAt(oldSpec, 'names')?.plural),
  ];
  if (!isEstablished(old)) return errs;
  errs.push(...immutable('spec.scope', spec?.scope, oldSpec?.scope));
  errs.push(...immutable('spec.names.kind', recAt(spec, 'names')?.kind, recAt(oldSpec, 'names')?.kind));
  // Once established, a CA bundle must parse, unless the stored one already did not.
  const ca = caBundleOf(spec);
  const oldCA = caBundleOf(oldSpec);
  const oldWasBad = oldCA !== '' && caBundleProblem(oldCA) !== undefined;
  const problem = ca !== '' && !oldWasBad ? caBundleProblem(ca) : undefined;
  if (problem) errs.push(fieldError.invalid('spec.conversion.webhook.clientConfig.caBundle', `${Buffer.from(ca, 'base64').length} bytes`, problem));
  return errs;
}
