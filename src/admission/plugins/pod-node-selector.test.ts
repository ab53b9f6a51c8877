import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NAMESPACE_NODE_SELECTOR_ANNOTATION } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { StatusError } from '../../errors/index.js';
import { admissionPluginContract, admissionRequest, fixedObjects } from '../testing/contract.js';
import type { AdmissionRequest } from '../types.js';
import { conflicts, parsePodNodeSelectorConfiguration, parseSelectorLabels, PodNodeSelectorPlugin, withinWhitelist } from './pod-node-selector.js';

const ns = (name: string, selector?: string): ApiObject => ({
  metadata: { name, ...(selector === undefined ? {} : { annotations: { [NAMESPACE_NODE_SELECTOR_ANNOTATION]: selector } }) },
});
const reader = fixedObjects({
  '/namespaces': [ns('plain'), ns('gpu', 'hw=gpu, zone=a'), ns('cleared', ''), ns('broken', 'hw')],
});
const pod = (namespace: string, nodeSelector?: Record<string, string>): AdmissionRequest =>
  admissionRequest({
    operation: 'CREATE',
    namespace,
    name: 'p',
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    object: { metadata: { name: 'p', namespace }, spec: { containers: [{ name: 'c', image: 'i' }], ...(nodeSelector ? { nodeSelector } : {}) } },
  });
const config = parsePodNodeSelectorConfiguration({
  podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: 'tier=shared', gpu: 'hw=gpu,zone=a,zone2=b', plain: 'tier=shared,extra=1' },
});
const make = () => new PodNodeSelectorPlugin(reader, config);

admissionPluginContract('PodNodeSelector', {
  make,
  cases: [
    { title: 'a pod in a namespace with a selector', request: () => pod('gpu') },
    { title: 'a pod conflicting with its namespace', request: () => pod('gpu', { hw: 'cpu' }) },
    { title: 'a pod outside the whitelist', request: () => pod('gpu', { other: 'x' }) },
  ],
});

test('reference behaviour (PodNodeSelector): selector strings are comma-separated key=value pairs', () => {
  const parsed: [string, Record<string, string>][] = [
    ['', {}],
    ['a=b', { a: 'b' }],
    [' a = b ,c=d', { a: 'b', c: 'd' }],
    ['example.com/role=x,a=', { 'example.com/role': 'x', a: '' }],
  ];
  for (const [text, want] of parsed) assert.deepEqual(parseSelectorLabels(text), want, text);
  const refused: [string, RegExp][] = [
    ['a', /^Error: invalid selector: \[a\]$/],
    ['a==b', /^Error: invalid selector: \[a  b\]$/],
    ['a=b,', /^Error: invalid selector: \[\]$/],
    ['a b=c', /^Error: Invalid value: "a b": name part/],
    ['a=b c', /^Error: Invalid value: "b c": a valid label must be/],
  ];
  for (const [text, want] of refused) assert.throws(() => parseSelectorLabels(text), want, text);
  assert.equal(conflicts({ a: '1' }, { a: '2' }), true);
  assert.equal(conflicts({ a: '1' }, { a: '1', b: '2' }), false);
  assert.equal(withinWhitelist({ a: '1' }, {}), true);
  assert.equal(withinWhitelist({ a: '1' }, { a: '1', b: '2' }), true);
  assert.equal(withinWhitelist({ a: '2' }, { a: '1' }), false);
});

async function admitted(req: AdmissionRequest, plugin = make()): Promise<string> {
  try {
    await plugin.admit(req);
    await plugin.validate(req);
    return JSON.stringify((req.object?.spec as { nodeSelector?: unknown }).nodeSelector ?? null);
  } catch (e) {
    assert.ok(e instanceof StatusError);
    return `${e.code} ${e.message}`;
  }
}

test('reference behaviour (PodNodeSelector): the namespace selector (annotation, else the cluster default) is merged into the pod; conflicts and labels outside the whitelist are 403', async () => {
  const conflict = '403 pods "p" is forbidden: pod node label selector conflicts with its namespace node label selector';
  const whitelist = '403 pods "p" is forbidden: pod node label selector labels conflict with its namespace whitelist';
  const table: [string, AdmissionRequest, string][] = [
    ['annotation merged', pod('gpu'), '{"hw":"gpu","zone":"a"}'],
    ['annotation merged with the pod own labels', pod('gpu', { zone2: 'b' }), '{"hw":"gpu","zone":"a","zone2":"b"}'],
    ['the same value is no conflict', pod('gpu', { hw: 'gpu' }), '{"hw":"gpu","zone":"a"}'],
    ['a conflicting value', pod('gpu', { hw: 'cpu' }), conflict],
    ['a label outside the whitelist', pod('gpu', { other: 'x' }), whitelist],
    ['no annotation: the cluster default', pod('plain'), '{"tier":"shared"}'],
    ['cluster default conflict', pod('plain', { tier: 'dedicated' }), conflict],
    ['an empty annotation means no selector', pod('cleared', { any: 'thing' }), '{"any":"thing"}'],
    ['an unusable annotation', pod('broken'), '403 pods "p" is forbidden: namespace broken has an unusable ' + NAMESPACE_NODE_SELECTOR_ANNOTATION + ' annotation: invalid selector: [hw]'],
    ['a missing namespace', pod('absent'), '404 namespaces "absent" not found'],
  ];
  for (const [what, req, want] of table) assert.equal(await admitted(req), want, what);
});

test('reference behaviour (PodNodeSelector): without configuration only annotations apply; pod updates and subresources are not handled', async () => {
  const bare = new PodNodeSelectorPlugin(reader, parsePodNodeSelectorConfiguration(undefined));
  assert.equal(await admitted(pod('plain', { a: 'b' }), bare), '{"a":"b"}');
  assert.equal(await admitted(pod('plain'), bare), 'null');
  assert.deepEqual((['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] as const).map((op) => bare.handles(op)), [true, false, false, false]);
  const binding = pod('gpu');
  const sub = { ...binding, subResource: 'binding' };
  await bare.admit(sub);
  assert.equal((sub.object?.spec as { nodeSelector?: unknown }).nodeSelector, undefined);
});

test('spec 2.12 (PodNodeSelector configuration): bad configurations are start-up errors naming the field', () => {
  const table: [unknown, RegExp][] = [
    ['text', /must be an object with podNodeSelectorPluginConfig/],
    [{ podNodeSelectorPluginConfig: 'a=b' }, /podNodeSelectorPluginConfig: must be a map of namespace to node selector/],
    [{ podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: 'a' } }, /podNodeSelectorPluginConfig\.clusterDefaultNodeSelector: invalid selector: \[a\]/],
    [{ podNodeSelectorPluginConfig: { ns1: 5 } }, /podNodeSelectorPluginConfig\.ns1: must be a string of key=value pairs/],
    [{ podNodeSelectorPluginConfig: {}, other: 1 }, /other: unknown field/],
  ];
  for (const [raw, want] of table) assert.throws(() => parsePodNodeSelectorConfiguration(raw), want);
  assert.deepEqual([...parsePodNodeSelectorConfiguration({ PodNodeSelectorPluginConfig: { ns1: 'a=b' } })], [['ns1', { a: 'b' }]]);
});
