import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GROUP_SUFFIX } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import type { FieldError } from '../../../errors/index.js';
import { cidrFamily, nodes } from './index.js';

const s = nodes.strategy;
type Obj = Record<string, unknown>;
const node = (spec: Obj = {}, extra: ApiObject = {}): ApiObject => ({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' }, spec, ...extra });
const pairs = (e: FieldError[]) => e.map((x) => [x.field, x.type]);
const cell = (name: string, o: ApiObject) => nodes.tableColumns.find((c) => c.name === name)?.value(o);
const ready = (status: string) => ({ conditions: [{ type: 'MemoryPressure', status: 'False' }, { type: 'Ready', status }] });

describe('nodes', () => {
  it('API reference: identity, cluster scope, status subresource', () => {
    assert.equal(nodes.kind, 'Node');
    assert.equal(nodes.listKind, 'NodeList');
    assert.deepEqual(nodes.shortNames, ['no']);
    assert.equal(nodes.namespaced, false);
    assert.deepEqual(nodes.subresources, ['status']);
    assert.equal(nodes.storageKey, 'core/nodes');
    assert.equal(s.nameRule, 'subdomain');
    assert.deepEqual(nodes.schema.properties?.spec?.properties?.taints?.items?.required, ['key', 'effect']);
    assert.equal(nodes.schema.properties?.status?.properties?.conditions?.['x-kubernetes-patch-merge-key'], 'type');
  });

  it('API reference: create keeps the status a node registers with; allocatable defaults to capacity', () => {
    const o = node({}, { status: { capacity: { cpu: '4', memory: '8Gi' }, ...ready('True') } });
    s.prepareForCreate?.(o);
    assert.deepEqual((o.status as Obj).allocatable, { cpu: '4', memory: '8Gi' });
    assert.equal(((o.status as Obj).conditions as Obj[]).length, 2);
  });

  it('API reference: podCIDR and podCIDRs mirror each other', () => {
    const a = node({ podCIDR: '10.244.1.0/24' });
    s.prepareForCreate?.(a);
    assert.deepEqual(a.spec, { podCIDR: '10.244.1.0/24', podCIDRs: ['10.244.1.0/24'] });
    const b = node({ podCIDRs: ['10.244.2.0/24', 'fd00::/64'] });
    s.prepareForCreate?.(b);
    assert.equal((b.spec as Obj).podCIDR, '10.244.2.0/24');
  });

  it('API reference: update keeps status; status update keeps spec', () => {
    const old = node({ unschedulable: true }, { status: ready('True') });
    const o = node({}, { status: ready('False') });
    s.prepareForUpdate?.(o, old);
    assert.deepEqual(o.status, ready('True'));
    const st = node({}, { status: ready('False') });
    s.prepareForStatusUpdate?.(st, old);
    assert.deepEqual(st.spec, { unschedulable: true });
    assert.deepEqual(st.status, ready('False'));
  });

  it('API reference: pod CIDRs must be valid CIDRs, at most one per family', () => {
    assert.equal(cidrFamily('10.0.0.0/8'), 4);
    assert.equal(cidrFamily('fd00::/64'), 6);
    assert.equal(cidrFamily('10.0.0.0/33'), 0);
    assert.equal(cidrFamily('10.0.0.0'), 0);
    assert.deepEqual(s.validate(node({ podCIDRs: ['10.244.0.0/24', 'fd00::/64'] })), []);
    const bad = s.validate(node({ podCIDRs: ['10.244.0.0/24', 'nope'] }));
    assert.deepEqual(pairs(bad), [['spec.podCIDRs[1]', 'FieldValueInvalid']]);
    assert.match(bad[0]?.message ?? '', /must be a valid CIDR value/);
    assert.deepEqual(pairs(s.validate(node({ podCIDRs: ['10.1.0.0/24', '10.2.0.0/24'] }))), [['spec.podCIDRs', 'FieldValueInvalid']]);
    assert.deepEqual(pairs(s.validate(node({ podCIDR: '300.0.0.0/8' }))), [['spec.podCIDR', 'FieldValueInvalid']]);
  });

  it('API reference: taints need a qualified key and a supported effect, unique per key and effect', () => {
    assert.deepEqual(s.validate(node({ taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }, { key: 'dedicated', effect: 'NoExecute' }, { key: 'x', effect: 'PreferNoSchedule' }] })), []);
    assert.deepEqual(pairs(s.validate(node({ taints: [{ key: 'k', effect: 'Sometimes' }] }))), [['spec.taints[0].effect', 'FieldValueNotSupported']]);
    assert.deepEqual(pairs(s.validate(node({ taints: [{ effect: 'NoSchedule' }] }))), [['spec.taints[0].key', 'FieldValueRequired']]);
    assert.deepEqual(pairs(s.validate(node({ taints: [{ key: 'k' }] }))), [['spec.taints[0].effect', 'FieldValueRequired']]);
    assert.deepEqual(pairs(s.validate(node({ taints: [{ key: 'bad key', effect: 'NoSchedule' }] }))), [['spec.taints[0].key', 'FieldValueInvalid']]);
    assert.deepEqual(pairs(s.validate(node({ taints: [{ key: 'k', effect: 'NoSchedule' }, { key: 'k', value: 'v', effect: 'NoSchedule' }] }))), [['spec.taints[1]', 'FieldValueDuplicate']]);
  });

  it('API reference: podCIDRs and providerID may be set once but not changed', () => {
    assert.deepEqual(s.validateUpdate?.(node({ podCIDRs: ['10.0.0.0/24'], providerID: 'aws://1' }), node()), []);
    const e = s.validateUpdate?.(node({ podCIDRs: ['10.0.1.0/24'], providerID: 'aws://2' }), node({ podCIDRs: ['10.0.0.0/24'], providerID: 'aws://1' })) ?? [];
    assert.deepEqual(pairs(e), [['spec.podCIDRs', 'FieldValueForbidden'], ['spec.providerID', 'FieldValueForbidden']]);
    assert.equal(e[0]?.message, 'Forbidden: node updates may not change podCIDR except from "" to valid');
  });

  it('API reference: table Status, Roles, Version and wide columns', () => {
    assert.deepEqual(nodes.tableColumns.filter((c) => c.priority === 0).map((c) => c.name), ['Status', 'Roles', 'Version']);
    const o = node({}, {
      metadata: { name: 'n', labels: { [`node-role.${GROUP_SUFFIX}/control-plane`]: '', [`node-role.${GROUP_SUFFIX}/etcd`]: 'true', other: 'x' } },
      status: {
        ...ready('True'),
        nodeInfo: { kubeletVersion: 'v1.31.0', osImage: 'Debian', kernelVersion: '6.1', containerRuntimeVersion: 'containerd://1.7' },
        addresses: [{ type: 'InternalIP', address: '192.168.1.10' }, { type: 'Hostname', address: 'n' }],
      },
    });
    assert.equal(cell('Status', o), 'Ready');
    assert.equal(cell('Roles', o), 'control-plane,etcd');
    assert.equal(cell('Version', o), 'v1.31.0');
    assert.equal(cell('Internal-IP', o), '192.168.1.10');
    assert.equal(cell('External-IP', o), '<none>');
    assert.equal(cell('OS-Image', o), 'Debian');
    assert.equal(cell('Container-Runtime', o), 'containerd://1.7');
  });

  it('API reference: Status is NotReady/Unknown and appends SchedulingDisabled when cordoned', () => {
    assert.equal(cell('Status', node({}, { status: ready('False') })), 'NotReady');
    assert.equal(cell('Status', node({}, { status: ready('Unknown') })), 'NotReady');
    assert.equal(cell('Status', node()), 'Unknown');
    assert.equal(cell('Status', node({ unschedulable: true }, { status: ready('True') })), 'Ready,SchedulingDisabled');
    assert.equal(cell('Roles', node()), '<none>');
  });

  it('API reference: selectable field spec.unschedulable', () => {
    assert.deepEqual(nodes.selectableFields?.(node({ unschedulable: true })), { 'spec.unschedulable': 'true' });
    assert.deepEqual(nodes.selectableFields?.(node()), { 'spec.unschedulable': 'false' });
  });
});
