/**
 * Micro-benchmark of one RBAC decision against `n` RoleBindings for `n` different users (for the bench
 * suite; tests never assert on its timings). With the subject index the cost per decision should not
 * grow with `n`; `examinedPerOp` shows why.
 */
import { RBAC_GROUP } from '../../api/naming.js';
import type { Attributes } from '../index.js';
import { RbacAuthorizer } from './authorizer.js';
import { defaultRbacObjects } from './defaults.js';
import { RbacIndex, type RbacKind } from './rbac-index.js';

export interface BenchResult {
  n: number;
  ops: number;
  buildMs: number;
  nsPerOp: number;
  opsPerSec: number;
  examinedPerOp: number;
}

/** An index with the defaults plus `n` RoleBindings in namespace `bench`, binding `user-i` to `edit`. */
export function buildBenchIndex(n: number): RbacIndex {
  const index = new RbacIndex();
  for (const o of defaultRbacObjects()) index.upsert(o.kind as RbacKind, o);
  for (let i = 0; i < n; i++) {
    index.upsert('RoleBinding', {
      metadata: { namespace: 'bench', name: `binding-${i}` },
      roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: 'edit' },
      subjects: [{ kind: 'User', apiGroup: RBAC_GROUP, name: `user-${i}` }],
    });
  }
  return index;
}

export async function benchAuthorize(n: number, ops = 100_000): Promise<BenchResult> {
  const t0 = performance.now();
  const authz = new RbacAuthorizer(buildBenchIndex(n));
  const buildMs = performance.now() - t0;
  const attrs = (i: number): Attributes => ({
    user: { username: `user-${i % Math.max(n, 1)}`, groups: ['system:authenticated'] },
    verb: i % 2 ? 'get' : 'delete',
    isResourceRequest: true,
    path: '',
    apiGroup: '',
    apiVersion: 'v1',
    // Alternate an allowed resource with a denied one, so both outcomes are measured.
    resource: i % 3 ? 'configmaps' : 'nodes',
    subresource: '',
    namespace: 'bench',
    name: 'x',
  });
  const before = authz.bindingsExamined;
  const t1 = performance.now();
  for (let i = 0; i < ops; i++) authz.authorizeSync(attrs(i));
  const elapsed = performance.now() - t1;
  return {
    n,
    ops,
    buildMs,
    nsPerOp: (elapsed * 1e6) / ops,
    opsPerSec: ops / (elapsed / 1000),
    examinedPerOp: (authz.bindingsExamined - before) / ops,
  };
}
