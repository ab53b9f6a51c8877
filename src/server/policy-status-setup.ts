/**
 * The ValidatingAdmissionPolicy status controller: type-checks each policy whose spec changed since it was
 * last checked (`metadata.generation` ahead of `status.observedGeneration`) and writes
 * `status.typeChecking` with `status.observedGeneration` through the status subresource, as the
 * reference's controller does. It is fed by the policies' watch cache, so it sees writes made through any
 * server on the same store; a policy it has written is caught up and is not checked again, so its own
 * writes never make it loop.
 */
import { ADMISSIONREGISTRATION_GROUP } from '../api/naming.js';
import type { ApiObject } from '../api/types.js';
import { isObject } from '../api/types.js';
import { PolicyTypeChecker, type ExpressionWarning, type TypeCheckSchemas } from '../admission/policy/index.js';
import type { Registry } from '../registry/index.js';
import { readableItems, UnreadableLog } from '../registry/readable.js';

/** The manager the reference's controller writes the status as. */
export const POLICY_STATUS_MANAGER = 'validatingadmissionpolicy-status-controller';

/** Schemas of the kinds this server serves, for the type checker. */
export function servedSchemas(registry: Registry): TypeCheckSchemas {
  // The registry's own indexes: no scan of every served type (hundreds with many CRDs).
  return {
    resource(group, version, resource) {
      const t = registry.typeAt(group, version, resource);
      return t ? { kind: { group: t.group, version: t.version, kind: t.kind }, schema: t.schema } : undefined;
    },
    kind: (group, version, kind) => registry.typesOfKind(group, version, kind)[0]?.schema,
    namespace: registry.namespaces.type.schema,
  };
}

const generationOf = (o: ApiObject): number => (typeof o.metadata?.generation === 'number' ? o.metadata.generation : 0);

/** Whether the stored status already answers the policy's current spec. */
export function policyStatusCurrent(policy: ApiObject): boolean {
  const status = isObject(policy.status) ? policy.status : undefined;
  if (!status || !isObject(status.typeChecking)) return false;
  return typeof status.observedGeneration === 'number' && status.observedGeneration >= generationOf(policy);
}

/** The policy's status with the type-checking result of its current generation; other status fields kept. */
export function withTypeChecking(policy: ApiObject, warnings: ExpressionWarning[]): ApiObject {
  const status = isObject(policy.status) ? policy.status : {};
  // An empty result is `typeChecking: {}`: checked, nothing found (the list is omitted when empty).
  const typeChecking = warnings.length > 0 ? { expressionWarnings: warnings } : {};
  return { ...policy, status: { ...status, observedGeneration: generationOf(policy), typeChecking } };
}

/** Starts the controller; answers its stop. Without the policy resource served, there is nothing to do. */
export function startPolicyStatusController(registry: Registry, log: (m: string) => void): () => void {
  const store = registry.store(ADMISSIONREGISTRATION_GROUP, 'v1', 'validatingadmissionpolicies');
  if (!store) return () => undefined;
  const reader = registry.reader(store.type);
  const checker = new PolicyTypeChecker(servedSchemas(registry));
  // A policy no encryption provider can read gets no status (there is nothing to check), logged once.
  const unreadable = new UnreadableLog(log, 'policy type checking: skipping an unreadable policy');
  let scheduled = false;
  let running = false;
  let stopped = false;
  const run = async () => {
    scheduled = false;
    if (running) return schedule();
    running = true;
    try {
      for (const item of [...readableItems(reader.cacher.range(reader.cacher.prefix), unreadable.skip)]) {
        if (stopped) return;
        const policy = reader.decode(item);
        if (policyStatusCurrent(policy)) continue;
        const name = policy.metadata?.name ?? '';
        let next: ApiObject;
        try {
          next = withTypeChecking(policy, checker.check(policy));
        } catch (e) {
          log(`policy type checking: ${name}: ${(e as Error).message}`);
          continue;
        }
        // The cached version is the compare of the write: if the policy changed meanwhile, the write fails
        // with a conflict and the change's own watch event brings the policy back here.
        await store.update(undefined, name, next, { subresource: 'status', fieldManager: POLICY_STATUS_MANAGER }).catch((e: { code?: number; message?: string }) => {
          if (e.code !== 409 && e.code !== 404) log(`policy type checking: ${name}: ${e.message ?? String(e)}`);
        });
      }
    } finally {
      running = false;
    }
  };
  const schedule = () => {
    if (scheduled || stopped) return;
    scheduled = true;
    setImmediate(() => void run());
  };
  const unsubscribe = reader.cacher.subscribe(schedule, schedule);
  void reader.cacher.ready.then(schedule);
  return () => {
    stopped = true;
    unsubscribe();
  };
}
