/**
 * The fuzzer's world: namespaces, its identity (a service account whose token the admin requests), RBAC
 * that lets it read everything and write only in `fuzz`, and sentinel objects it must never change: some
 * in `protected` (read-only for it) and some in `fuzz` under names it never uses. `snapshot` records them
 * byte for byte, with every object in `protected`, so the end of a run can prove nothing changed.
 */
import { AUTHENTICATION_GROUP, RBAC_GROUP } from '../../src/api/naming.js';
import type { Response, RequestOptions } from '../helpers/client.js';
import { collectionPath, FUZZ_NAMESPACE, IDENTITY_NAMESPACE, PROTECTED_NAMESPACE, SENTINEL_PREFIX, type Target } from './catalogue.js';

export type Call = (method: string, path: string, opts?: RequestOptions) => Promise<Response>;

const S = SENTINEL_PREFIX;
const podSpec = { containers: [{ name: 'c', image: 'nginx:1.27' }] };
const labels = { app: 'fuzz' };

/** Objects the fuzzer must not change, by path of their collection. */
function sentinelObjects(): { collection: string; body: Record<string, unknown> }[] {
  const out: { collection: string; body: Record<string, unknown> }[] = [];
  for (const ns of [PROTECTED_NAMESPACE, FUZZ_NAMESPACE]) {
    const core = `/api/v1/namespaces/${ns}`;
    out.push(
      { collection: `${core}/configmaps`, body: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: `${S}-cm`, labels }, data: { a: 'b' } } },
      { collection: `${core}/secrets`, body: { kind: 'Secret', apiVersion: 'v1', metadata: { name: `${S}-secret`, labels }, stringData: { k: 'v' } } },
      { collection: `${core}/pods`, body: { kind: 'Pod', apiVersion: 'v1', metadata: { name: `${S}-pod`, labels }, spec: podSpec } },
      {
        collection: `/apis/apps/v1/namespaces/${ns}/deployments`,
        body: { kind: 'Deployment', apiVersion: 'apps/v1', metadata: { name: `${S}-deploy`, labels }, spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: podSpec } } },
      },
    );
  }
  out.push(
    { collection: `/api/v1/namespaces/${PROTECTED_NAMESPACE}/services`, body: { kind: 'Service', apiVersion: 'v1', metadata: { name: `${S}-svc` }, spec: { ports: [{ port: 80 }], selector: labels } } },
    { collection: `/apis/${RBAC_GROUP}/v1/namespaces/${PROTECTED_NAMESPACE}/roles`, body: { kind: 'Role', apiVersion: `${RBAC_GROUP}/v1`, metadata: { name: `${S}-role` }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] } },
    { collection: `/apis/${RBAC_GROUP}/v1/clusterroles`, body: { kind: 'ClusterRole', apiVersion: `${RBAC_GROUP}/v1`, metadata: { name: `${S}-clusterrole` }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] } },
  );
  return out;
}

async function ok(r: Promise<Response>, what: string, allowConflict = false): Promise<Response> {
  const res = await r;
  if (res.status >= 300 && !(allowConflict && res.status === 409)) throw new Error(`fuzz setup: ${what}: ${res.status} ${res.text.slice(0, 300)}`);
  return res;
}

/** Creates the namespaces, identity, RBAC and sentinels (as the admin); returns the fuzzer's token. */
export async function prepareWorld(admin: Call, targets: readonly Target[]): Promise<string> {
  for (const ns of [FUZZ_NAMESPACE, PROTECTED_NAMESPACE, IDENTITY_NAMESPACE]) {
    await ok(admin('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } }), `namespace ${ns}`, true);
  }
  const sa = `/api/v1/namespaces/${IDENTITY_NAMESPACE}/serviceaccounts`;
  await ok(admin('POST', sa, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'fuzzer' } } }), 'service account', true);
  const subject = { kind: 'ServiceAccount', name: 'fuzzer', namespace: IDENTITY_NAMESPACE };
  const rbac = `/apis/${RBAC_GROUP}/v1`;
  const reader = `${S}-fuzz-reader`;
  await ok(admin('POST', `${rbac}/clusterroles`, { body: { apiVersion: `${RBAC_GROUP}/v1`, kind: 'ClusterRole', metadata: { name: reader }, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['get', 'list', 'watch'] }] } }), 'reader role', true);
  await ok(admin('POST', `${rbac}/clusterrolebindings`, { body: { apiVersion: `${RBAC_GROUP}/v1`, kind: 'ClusterRoleBinding', metadata: { name: reader }, roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: reader }, subjects: [subject] } }), 'reader binding', true);
  // Writes in `fuzz` on every namespaced resource, but not deletecollection (it would reach the sentinels)
  // and not the namespace itself (deleting `fuzz` would too).
  const writable = targets.filter((t) => t.namespaced).flatMap((t) => [t.plural, ...[...t.subresources.keys()].map((s) => `${t.plural}/${s}`)]);
  const writer = `${S}-fuzz-writer`;
  await ok(admin('POST', `${rbac}/namespaces/${FUZZ_NAMESPACE}/roles`, {
    body: { apiVersion: `${RBAC_GROUP}/v1`, kind: 'Role', metadata: { name: writer }, rules: [{ apiGroups: ['*'], resources: [...new Set(writable)].sort(), verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] }] },
  }), 'writer role', true);
  await ok(admin('POST', `${rbac}/namespaces/${FUZZ_NAMESPACE}/rolebindings`, { body: { apiVersion: `${RBAC_GROUP}/v1`, kind: 'RoleBinding', metadata: { name: writer }, roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: writer }, subjects: [subject] } }), 'writer binding', true);
  for (const s of sentinelObjects()) await ok(admin('POST', s.collection, { body: s.body }), `sentinel ${s.collection}`, true);
  const tr = await ok(admin('POST', `${sa}/fuzzer/token`, { body: { apiVersion: `${AUTHENTICATION_GROUP}/v1`, kind: 'TokenRequest', spec: { expirationSeconds: 24 * 3600 } } }), 'token request');
  const token = tr.json?.status?.token;
  if (typeof token !== 'string' || token === '') throw new Error(`fuzz setup: no token in ${tr.text.slice(0, 300)}`);
  return token;
}

/** Path -> exact JSON text of every object that must not change. */
export type Snapshot = Map<string, string>;

/** The sentinels (and the namespaces, RBAC and identity) as text, plus each object listed in `protected`. */
export async function snapshot(admin: Call, targets: readonly Target[]): Promise<Snapshot> {
  const out: Snapshot = new Map();
  const paths = sentinelObjects().map((s) => `${s.collection}/${s.body.metadata && (s.body.metadata as { name: string }).name}`);
  const rbac = `/apis/${RBAC_GROUP}/v1`;
  paths.push(
    ...[FUZZ_NAMESPACE, PROTECTED_NAMESPACE, IDENTITY_NAMESPACE].map((n) => `/api/v1/namespaces/${n}`),
    `/api/v1/namespaces/${IDENTITY_NAMESPACE}/serviceaccounts/fuzzer`,
    `${rbac}/clusterroles/${S}-fuzz-reader`,
    `${rbac}/clusterrolebindings/${S}-fuzz-reader`,
    `${rbac}/namespaces/${FUZZ_NAMESPACE}/roles/${S}-fuzz-writer`,
    `${rbac}/namespaces/${FUZZ_NAMESPACE}/rolebindings/${S}-fuzz-writer`,
  );
  for (const p of paths) {
    const r = await admin('GET', p);
    out.set(p, `${r.status} ${r.text}`);
  }
  for (const t of targets) {
    if (!t.namespaced || !t.verbs.includes('list')) continue;
    const p = collectionPath(t, PROTECTED_NAMESPACE);
    const r = await admin('GET', p);
    const items = Array.isArray(r.json?.items) ? (r.json.items as { metadata?: { name?: string; resourceVersion?: string } }[]) : [];
    out.set(`list ${p}`, `${r.status} ${items.map((i) => `${i.metadata?.name}@${i.metadata?.resourceVersion}`).sort().join(',')}`);
  }
  return out;
}

/** Descriptions of every entry that differs between two snapshots. */
export function changes(before: Snapshot, after: Snapshot): string[] {
  const out: string[] = [];
  for (const [k, v] of before) {
    const now = after.get(k);
    if (now !== v) out.push(`${k} changed:\n  before: ${v.slice(0, 400)}\n  after:  ${String(now).slice(0, 400)}`);
  }
  return out;
}
