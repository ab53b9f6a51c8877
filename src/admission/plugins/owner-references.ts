/**
 * OwnerReferencesPermissionEnforcement (reference plugin, off by default). Owner references steer garbage
 * collection, so changing them is guarded:
 * - an update that changes `metadata.ownerReferences` needs `delete` on the object itself (a create may set
 *   them: whoever creates an object could delete it);
 * - a reference that newly blocks its owner's deletion (`blockOwnerDeletion: true`, added or turned on)
 *   needs `update` on the owner's `finalizers` subresource, for every resource serving the owner's kind
 *   (in the dependent's namespace when the owner is namespaced).
 * Pod status writes are exempt, as in the reference (node agents write them with references they did not set).
 */
import { parseApiVersion, type ApiObject } from '../../api/types.js';
import { isObject } from '../../api/types.js';
import { forbiddenFor, noConfiguration, PluginConfigurationError } from './common.js';
import type { AdmissionDeps, AdmissionOperation, AdmissionPlugin, AdmissionRequest, AuthorizationCheck, AuthorizationDecision, KindMapping } from '../types.js';

export const OWNER_REFERENCES_PERMISSION_ENFORCEMENT = 'OwnerReferencesPermissionEnforcement';

type Decide = NonNullable<AdmissionDeps['authorizeDecision']>;
type Mapper = NonNullable<AdmissionDeps['resourcesOfKind']>;
type Ref = Record<string, unknown>;

const refsOf = (o: ApiObject | undefined): Ref[] => (Array.isArray(o?.metadata?.ownerReferences) ? o.metadata.ownerReferences.filter(isObject) : []);
const blocking = (r: Ref) => r.blockOwnerDeletion === true;
/** The fields of a reference, absent and null alike (the reference compares decoded structs). */
const refKey = (r: Ref) => JSON.stringify(['apiVersion', 'kind', 'name', 'uid', 'controller', 'blockOwnerDeletion'].map((k) => r[k] ?? null));

/** Whether the write changes the owner references (a create: whether it sets any). */
export function changesOwnerReferences(object: ApiObject | undefined, oldObject: ApiObject | undefined): boolean {
  const now = refsOf(object);
  if (!oldObject) return now.length > 0;
  const before = refsOf(oldObject);
  return now.length !== before.length || now.some((r, i) => refKey(r) !== refKey(before[i]!));
}

/** References that block their owner's deletion now and did not before (matched by owner uid). */
export function newlyBlockingReferences(object: ApiObject | undefined, oldObject: ApiObject | undefined): Ref[] {
  const now = refsOf(object).filter(blocking);
  if (now.length === 0 || !oldObject) return now;
  const before = new Map(refsOf(oldObject).map((r) => [String(r.uid ?? ''), r]));
  return now.filter((r) => {
    const was = before.get(String(r.uid ?? ''));
    return !was || !blocking(was);
  });
}

/** The reference prints the authorizer's reason and error (`<nil>` when there was none). */
const why = (d: { reason: string; error?: string }) => `${d.reason}, ${d.error ?? '<nil>'}`;

export class OwnerReferencesPermissionEnforcementPlugin implements AdmissionPlugin {
  readonly name = OWNER_REFERENCES_PERMISSION_ENFORCEMENT;

  constructor(
    private readonly decide: Decide,
    private readonly mapper: Mapper,
  ) {}

  handles(op: AdmissionOperation): boolean {
    return op === 'CREATE' || op === 'UPDATE';
  }

  validate(req: AdmissionRequest): Promise<void> | void {
    if (req.resource.group === '' && req.resource.resource === 'pods' && req.subResource === 'status') return;
    if (!changesOwnerReferences(req.object, req.oldObject)) return;
    return this.check(req);
  }

  private async ask(req: AdmissionRequest, check: AuthorizationCheck): Promise<AuthorizationDecision & { error?: string }> {
    try {
      return await this.decide(req.user, check);
    } catch (e) {
      return { decision: 'noOpinion', reason: '', error: e instanceof Error ? e.message : String(e) };
    }
  }

  private async check(req: AdmissionRequest): Promise<void> {
    if (req.operation !== 'CREATE') {
      const r = req.resource;
      const d = await this.ask(req, { verb: 'delete', group: r.group, version: r.version, resource: r.resource, subresource: req.subResource, namespace: req.namespace, name: req.name });
      if (d.decision !== 'allow') throw forbiddenFor(req, `cannot set an ownerRef on a resource you can't delete: ${why(d)}`);
    }
    for (const ref of newlyBlockingReferences(req.object, req.oldObject)) {
      const apiVersion = String(ref.apiVersion ?? '');
      const kind = String(ref.kind ?? '');
      const mappings = this.mappingsOf(apiVersion, kind);
      if (typeof mappings === 'string') {
        throw forbiddenFor(req, `cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion ${apiVersion} Kind ${kind}: ${mappings}`);
      }
      // Every resource the kind maps to must allow it.
      for (const m of mappings) {
        const d = await this.ask(req, {
          verb: 'update',
          group: m.resource.group,
          version: m.resource.version,
          resource: m.resource.resource,
          subresource: 'finalizers',
          name: String(ref.name ?? ''),
          ...(m.namespaced ? { namespace: req.namespace } : {}),
        });
        if (d.decision !== 'allow') throw forbiddenFor(req, `cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: ${why(d)}`);
      }
    }
  }

  /** The owner's REST mappings, or why there are none (in the reference's words). */
  private mappingsOf(apiVersion: string, kind: string): KindMapping[] | string {
    if (apiVersion.split('/').length > 2) return `unexpected GroupVersion string: ${apiVersion}`;
    const { group, version } = parseApiVersion(apiVersion);
    const found = this.mapper({ group, version, kind });
    if (found.length > 0) return found;
    return `no matches for kind ${JSON.stringify(kind)} in version ${JSON.stringify(apiVersion)}`;
  }
}

export function ownerReferencesPermissionEnforcementPlugin(deps: AdmissionDeps, configuration: unknown): AdmissionPlugin {
  noConfiguration(OWNER_REFERENCES_PERMISSION_ENFORCEMENT, configuration);
  if (!deps.authorizeDecision || !deps.resourcesOfKind) {
    throw new PluginConfigurationError(`admission plugin ${OWNER_REFERENCES_PERMISSION_ENFORCEMENT} needs the server's authorizer and resource mapping, which were not provided`);
  }
  return new OwnerReferencesPermissionEnforcementPlugin(deps.authorizeDecision, deps.resourcesOfKind);
}
