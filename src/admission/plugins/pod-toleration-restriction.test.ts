import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  NAMESPACE_DEFAULT_TOLERATIONS_ANNOTATION as DEFAULTS,
  NAMESPACE_TOLERATIONS_WHITELIST_ANNOTATION as WHITELIST,
  TAINT_NODE_MEMORY_PRESSURE,
} from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { StatusError } from '../../errors/index.js';
import { admissionPluginContract, admissionRequest, fixedObjects } from '../testing/contract.js';
import type { AdmissionOperation, AdmissionRequest } from '../types.js';
import {
  allowedByWhitelist,
  parsePodTolerationRestrictionConfiguration,
  POD_TOLERATION_RESTRICTION_CONFIG_API_VERSION as API_VERSION,
  PodTolerationRestrictionPlugin,
} from './pod-toleration-restriction.js';

const t = (key: string, extra: Record<string, unknown> = {}) => ({ key, operator: 'Exists', effect: 'NoSchedule', ...extra });
const ns = (name: string, annotations?: Record<string, string>): ApiObject => ({ metadata: { name, ...(annotations ? { annotations } : {}) } });
const reader = fixedObjects({
  '/namespaces': [
    ns('plain'),
    ns('team', { [DEFAULTS]: JSON.stringify([t('team')]), [WHITELIST]: JSON.stringify([t('team'), t('gpu')]) }),
    ns('open', { [DEFAULTS]: '', [WHITELIST]: '' }),
    ns('broken', { [DEFAULTS]: '{not json' }),
  ],
});
const config = parsePodTolerationRestrictionConfiguration({ apiVersion: API_VERSION, kind: 'Configuration', default: [t('cluster')], whitelist: [t('cluster'), t('gpu')] });
const make = () => new PodTolerationRestrictionPlugin(reader, config);
const burstable = { name: 'c', image: 'i', resources: { requests: { cpu: '100m' } } };
const bestEffort = { name: 'c', image: 'i' };
const pod = (namespace: string, tolerations?: unknown[], container: object = bestEffort, operation: AdmissionOperation = 'CREATE'): AdmissionRequest =>
  admissionRequest({
    operation,
    namespace,
    name: 'p',
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    object: { metadata: { name: 'p', namespace }, spec: { containers: [container], ...(tolerations ? { tolerations } : {}) } },
  });

admissionPluginContract('PodTolerationRestriction', {
  make,
  cases: [
    { title: 'a pod in a namespace with defaults', request: () => pod('team') },
    { title: 'a pod outside the namespace whitelist', request: () => pod('team', [t('other')]) },
    { title: 'a pod that is not BestEffort', request: () => pod('plain', [], burstable) },
  ],
});

async function admitted(req: AdmissionRequest, plugin = make()): Promise<string> {
  try {
    await plugin.admit(req);
    await plugin.validate(req);
    return JSON.stringify((req.object?.spec as { tolerations?: unknown }).tolerations ?? null);
  } catch (e) {
    assert.ok(e instanceof StatusError);
    return `${e.code} ${e.message}`;
  }
}

test('reference behaviour (PodTolerationRestriction): defaults (namespace, else cluster) are merged, then the whitelist (namespace, else cluster) is enforced', async () => {
  const j = (...list: unknown[]) => JSON.stringify(list);
  const conflict = (scope: string) => `403 pods "p" is forbidden: pod tolerations (possibly merged with namespace default tolerations) conflict with its ${scope} whitelist`;
  const memory = { key: TAINT_NODE_MEMORY_PRESSURE, operator: 'Exists', effect: 'NoSchedule' };
  const table: [string, AdmissionRequest, string][] = [
    ['namespace defaults', pod('team'), j(t('team'))],
    ['namespace defaults plus an allowed own toleration', pod('team', [t('gpu')]), j(t('gpu'), t('team'))],
    ['a default the pod already has is not added twice', pod('team', [t('team')]), j(t('team'))],
    ['a toleration the whitelist does not cover', pod('team', [{ operator: 'Exists' }]), conflict('namespace')],
    ['outside the namespace whitelist', pod('team', [t('other')]), conflict('namespace')],
    ['cluster defaults where the namespace has none', pod('plain'), j(t('cluster'))],
    ['outside the cluster whitelist', pod('plain', [t('other')]), conflict('cluster')],
    ['empty annotations: no defaults, everything allowed', pod('open', [t('anything')]), j(t('anything'))],
    ['a pod that is not BestEffort tolerates memory pressure', pod('open', [], burstable), j(memory)],
    ['memory pressure must be whitelisted too', pod('team', [], burstable), conflict('namespace')],
    ['an unusable annotation', pod('broken'), `403 pods "p" is forbidden: namespace broken has an unusable ${DEFAULTS} annotation: not a JSON list of tolerations:`],
    ['a missing namespace', pod('absent'), '404 namespaces "absent" not found'],
  ];
  for (const [what, req, want] of table) {
    const got = await admitted(req);
    assert.ok(got.startsWith(want), `${what}: ${got}`);
  }
});

test('reference behaviour (PodTolerationRestriction): updates get no defaults but are checked against the whitelist', async () => {
  const update = (namespace: string, tolerations: unknown[], container: object = bestEffort) => pod(namespace, tolerations, container, 'UPDATE');
  assert.equal(await admitted(update('team', [t('gpu')])), JSON.stringify([t('gpu')]));
  assert.match(await admitted(update('team', [t('other')])), /conflict with its namespace whitelist/);
  assert.equal(await admitted(update('open', [], burstable)), JSON.stringify([{ key: TAINT_NODE_MEMORY_PRESSURE, operator: 'Exists', effect: 'NoSchedule' }]));
  const p = make();
  assert.deepEqual((['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] as const).map((op) => p.handles(op)), [true, true, false, false]);
});

test('reference behaviour (PodTolerationRestriction): a whitelist entry covers what it is a superset of', () => {
  const table: [unknown[], unknown[], boolean][] = [
    [[t('a')], [], true],
    [[], [t('b')], true],
    [[t('a')], [t('a')], true],
    [[t('a')], [{ key: 'a', operator: 'Exists' }], true],
    [[t('a', { effect: 'NoExecute' })], [t('a')], false],
    [[{ key: 'a', operator: 'Equal', value: 'x' }], [{ key: 'a', operator: 'Equal', value: 'y' }], false],
    [[t('a'), t('z')], [{ operator: 'Exists' }], true],
  ];
  for (const [tolerations, whitelist, want] of table) {
    assert.equal(allowedByWhitelist(tolerations as never, whitelist as never), want, `${JSON.stringify(tolerations)} in ${JSON.stringify(whitelist)}`);
  }
});

test('spec 2.12 (PodTolerationRestriction configuration): optional; a given one must be the Configuration kind with valid tolerations', () => {
  assert.deepEqual(parsePodTolerationRestrictionConfiguration(undefined), { default: [], whitelist: [] });
  const ok = { apiVersion: API_VERSION, kind: 'Configuration' };
  const table: [unknown, RegExp][] = [
    ['x', /must be an object/],
    [{ ...ok, apiVersion: 'v1' }, /apiVersion: Unsupported value "v1": supported values: "podtolerationrestriction\.admission\.[a-z.]+\/v1alpha1"/],
    [{ ...ok, kind: 'Other' }, /kind: Unsupported value "Other": supported values: "Configuration"/],
    [{ ...ok, defaults: [] }, /defaults: unknown field/],
    [{ ...ok, default: [{ key: 'a', operator: 'Maybe' }] }, /default\[0\]\.operator: Unsupported value: "Maybe"/],
    [{ ...ok, whitelist: [{ value: 'x' }] }, /whitelist\[0\]\.operator: Invalid value: "": operator must be Exists when `key` is empty/],
    [{ ...ok, whitelist: 'all' }, /whitelist: must be a list of tolerations/],
  ];
  for (const [raw, want] of table) assert.throws(() => parsePodTolerationRestrictionConfiguration(raw), want);
});
