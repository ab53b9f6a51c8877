/**
 * ClusterRole aggregation (spec 2.7, 5.8): a ClusterRole with `aggregationRule.clusterRoleSelectors` holds
 * the union of the rules of every other ClusterRole its selectors match, in a stable order without
 * duplicates (authz/rbac/aggregation.ts). Any ClusterRole change queues the aggregated roles; a role is
 * written only when its rules differ, so the controller's own writes settle at once.
 */
import { RBAC_GROUP } from '../../api/naming.js';
import { aggregateRules, sameRules } from '../../authz/rbac/aggregation.js';
import type { ClusterRole, Rule } from '../../authz/rbac/types.js';
import { WorkQueue, isNotFound, type KubeObject } from '../../client/index.js';
import { runQueueWorkers, startAndSync } from '../bootstrap/queue-workers.js';
import type { ControllerContext, ControllerDescriptor } from '../contract.js';

export const CLUSTERROLE_AGGREGATION = 'clusterrole-aggregation-controller';
const CLUSTER_ROLES = { group: RBAC_GROUP, version: 'v1', plural: 'clusterroles' };

type Role = KubeObject & ClusterRole;

/** Pure: the role with its aggregated rules, or undefined when it is not aggregated or already right. */
export function aggregatedRole(role: Role, all: readonly Role[]): Role | undefined {
  const rules = aggregateRules(role, all);
  if (!rules || sameRules(rules, (role.rules ?? []) as Rule[])) return undefined;
  return { ...role, rules };
}

async function run(ctx: ControllerContext): Promise<void> {
  const roles = ctx.informers.informerFor<Role>({ gvr: CLUSTER_ROLES });
  const queue = new WorkQueue<string>();
  // Any role may be a source of any aggregated one: each change re-checks every aggregated role.
  const enqueueAggregated = () => {
    for (const r of roles.store.list()) if (r.aggregationRule && r.metadata.name) queue.add(r.metadata.name);
  };
  const remove = roles.addEventHandler({ onAdd: enqueueAggregated, onUpdate: enqueueAggregated, onDelete: enqueueAggregated });
  const sync = async (name: string) => {
    const role = roles.store.get(name);
    if (!role) return;
    const updated = aggregatedRole(role, roles.store.list());
    if (!updated) return;
    // Written against the cached resourceVersion: a conflict means newer news, retried by the queue.
    await ctx.client
      .resource<Role>(CLUSTER_ROLES)
      .update(updated, { fieldManager: CLUSTERROLE_AGGREGATION, signal: ctx.signal })
      .catch((e: unknown) => {
        if (!isNotFound(e)) throw e;
      });
  };
  try {
    if (!(await startAndSync(ctx, [roles]))) return;
    await runQueueWorkers(ctx, queue, ctx.settings.concurrency(CLUSTERROLE_AGGREGATION), sync);
  } finally {
    remove();
    queue.shutDown();
  }
}

export const clusterRoleAggregationController: ControllerDescriptor = {
  name: CLUSTERROLE_AGGREGATION,
  serviceAccountName: 'clusterrole-aggregation-controller',
  run,
};
