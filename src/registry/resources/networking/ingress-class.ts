/**
 * networking/v1 IngressClass: an immutable, domain-prefixed `controller` and an optional parameters
 * reference (scope defaults to Cluster); table CONTROLLER, PARAMETERS.
 */
import { NETWORKING_GROUP } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { column } from '../../schema.js';
import type { ResourceType } from '../../types.js';
import { isDNS1123Label, isDNS1123Subdomain, regexError } from '../../validation/index.js';
import { FieldReader, immutable, isRec, type Rec } from '../events/fields.js';
import { referenceType } from '../reference.js';
import { validateTypedReference } from './ingress.js';

const MAX_CONTROLLER_LENGTH = 250;
const SCOPES = ['Cluster', 'Namespace'];
const HTTP_PATH_FMT = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";
const HTTP_PATH_RE = new RegExp(`^${HTTP_PATH_FMT}$`);

/** The reference's IsDomainPrefixedPath: `<dns subdomain>/<http path>`, e.g. `acme.io/ingress`. */
export function validateDomainPrefixedPath(path: string, value: string): FieldError[] {
  if (value === '') return [fieldError.required(path)];
  const slash = value.indexOf('/');
  const host = slash < 0 ? value : value.slice(0, slash);
  const rest = slash < 0 ? '' : value.slice(slash + 1);
  if (slash < 0 || host === '' || rest === '') return [fieldError.invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const errs = isDNS1123Subdomain(host).map((msg) => fieldError.invalid(path, host, msg));
  if (!HTTP_PATH_RE.test(rest)) errs.push(fieldError.invalid(path, rest, regexError('Invalid path', HTTP_PATH_FMT)));
  return errs;
}

function validateParameters(r: FieldReader, params: Rec): FieldError[] {
  const path = 'spec.parameters';
  const errs = validateTypedReference(r, params, path);
  const scope = r.str(params, 'scope', `${path}.scope`);
  const hasNamespace = params.namespace !== undefined && params.namespace !== null;
  if (scope === '') return [...errs, fieldError.required(`${path}.scope`)];
  if (!SCOPES.includes(scope)) return [...errs, fieldError.notSupported(`${path}.scope`, scope, SCOPES)];
  if (scope === 'Namespace') {
    if (!hasNamespace) errs.push(fieldError.required(`${path}.namespace`, "Required value: `parameters.scope` is set to 'Namespace'"));
    else {
      const ns = r.str(params, 'namespace', `${path}.namespace`);
      for (const msg of isDNS1123Label(ns)) errs.push(fieldError.invalid(`${path}.namespace`, ns, msg));
    }
  } else if (hasNamespace) {
    errs.push(fieldError.forbidden(`${path}.namespace`, "`parameters.scope` is set to 'Cluster'"));
  }
  return errs;
}

export function validateIngressClass(o: ApiObject): FieldError[] {
  const r = new FieldReader();
  const spec = r.obj(o, 'spec', 'spec') ?? {};
  const controller = r.str(spec, 'controller', 'spec.controller');
  const errs: FieldError[] = [];
  if (controller.length > MAX_CONTROLLER_LENGTH) errs.push(fieldError.tooLong('spec.controller', MAX_CONTROLLER_LENGTH));
  errs.push(...validateDomainPrefixedPath('spec.controller', controller));
  const params = r.obj(spec, 'parameters', 'spec.parameters');
  if (params) errs.push(...validateParameters(r, params));
  return [...r.errors, ...errs];
}

/** Defaulting of both writes: parameters without a scope are cluster-scoped. */
function defaultScope(o: ApiObject): void {
  const params = isRec(o.spec) ? o.spec.parameters : undefined;
  if (isRec(params) && (params.scope === undefined || params.scope === null)) params.scope = 'Cluster';
}

/** Kind[.apiGroup]/name of the parameters, or `<none>`. */
export function ingressClassParameters(o: ApiObject): string {
  const p = isRec(o.spec) ? o.spec.parameters : undefined;
  if (!isRec(p)) return '<none>';
  const kind = typeof p.apiGroup === 'string' ? `${String(p.kind ?? '')}.${p.apiGroup}` : String(p.kind ?? '');
  return `${kind}/${String(p.name ?? '')}`;
}

export const ingressClasses: ResourceType = referenceType(NETWORKING_GROUP, 'v1', 'ingressclasses', {
  tableColumns: [
    column('Controller', 'string', 'The controller that implements this class.', (o) => {
      const c = isRec(o.spec) ? o.spec.controller : undefined;
      return typeof c === 'string' ? c : '';
    }),
    column('Parameters', 'string', 'The resource holding further configuration for the class.', ingressClassParameters),
  ],
  strategy: {
    prepareForCreate: defaultScope,
    prepareForUpdate: defaultScope,
    validate: validateIngressClass,
    validateUpdate: (o, old) => immutable('spec.controller', isRec(o.spec) ? o.spec.controller : undefined, isRec(old.spec) ? old.spec.controller : undefined),
  },
});
