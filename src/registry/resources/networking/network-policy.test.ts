import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NETWORKING_GROUP } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import type { FieldError } from '../../../errors/index.js';
import { isStrictSubset, parseCidr } from './cidr.js';
import { networkPolicies } from './network-policy.js';
import { formatLabelSelector } from '../../../selectors/index.js';

const summary = (errs: FieldError[]) => errs.map((e) => `${e.type} ${e.field}`);
const policy = (spec: unknown): ApiObject => ({ apiVersion: `${NETWORKING_GROUP}/v1`, kind: 'NetworkPolicy', metadata: { name: 'p', namespace: 'default' }, spec });
const s = networkPolicies.strategy;
const validate = (spec: unknown) => summary(s.validate(policy(spec)));
const ingressRule = (rule: object) => ({ podSelector: {}, ingress: [rule] });

const cases: { name: string; spec: unknown; want: string[] }[] = [
  { name: 'deny all (empty pod selector)', spec: { podSelector: {} }, want: [] },
  {
    name: 'rules with ports, named ports, ranges and every kind of peer',
    spec: {
      podSelector: { matchLabels: { app: 'web' } },
      ingress: [{ ports: [{ port: 80 }, { port: 'http', protocol: 'UDP' }, { port: 8000, endPort: 9000 }], from: [{ podSelector: {} }, { namespaceSelector: { matchExpressions: [{ key: 'team', operator: 'In', values: ['a'] }] } }] }],
      egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }, { ipBlock: { cidr: '2001:db8::/32', except: ['2001:db8:1::/48'] } }] }],
      policyTypes: ['Ingress', 'Egress'],
    },
    want: [],
  },
  { name: 'an unknown protocol', spec: ingressRule({ ports: [{ protocol: 'ICMP', port: 1 }] }), want: ['FieldValueNotSupported spec.ingress[0].ports[0].protocol'] },
  { name: 'a port number out of range', spec: ingressRule({ ports: [{ port: 0 }] }), want: ['FieldValueInvalid spec.ingress[0].ports[0].port'] },
  { name: 'a bad port name', spec: ingressRule({ ports: [{ port: 'a--b' }] }), want: ['FieldValueInvalid spec.ingress[0].ports[0].port'] },
  { name: 'endPort below port', spec: ingressRule({ ports: [{ port: 90, endPort: 80 }] }), want: ['FieldValueInvalid spec.ingress[0].ports[0].endPort'] },
  { name: 'endPort with a named port', spec: ingressRule({ ports: [{ port: 'http', endPort: 80 }] }), want: ['FieldValueInvalid spec.ingress[0].ports[0].endPort'] },
  { name: 'endPort without a port', spec: ingressRule({ ports: [{ endPort: 80 }] }), want: ['FieldValueInvalid spec.ingress[0].ports[0].endPort'] },
  { name: 'a port of the wrong type', spec: ingressRule({ ports: [{ port: true }] }), want: ['FieldValueTypeInvalid spec.ingress[0].ports[0].port'] },
  { name: 'an empty peer', spec: ingressRule({ from: [{}] }), want: ['FieldValueRequired spec.ingress[0].from[0]'] },
  { name: 'ipBlock together with a selector', spec: ingressRule({ from: [{ podSelector: {}, ipBlock: { cidr: '10.0.0.0/8' } }] }), want: ['FieldValueForbidden spec.ingress[0].from[0]'] },
  { name: 'ipBlock without a cidr', spec: { podSelector: {}, egress: [{ to: [{ ipBlock: {} }] }] }, want: ['FieldValueRequired spec.egress[0].to[0].ipBlock.cidr'] },
  { name: 'ipBlock with a bad cidr', spec: { podSelector: {}, egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/33' } }] }] }, want: ['FieldValueInvalid spec.egress[0].to[0].ipBlock.cidr'] },
  {
    name: 'except entries outside the cidr, equal to it, or not CIDRs',
    spec: { podSelector: {}, egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/16', except: ['10.1.0.0/24', '10.0.0.0/16', 'x'] } }] }] },
    want: ['FieldValueInvalid spec.egress[0].to[0].ipBlock.except[0]', 'FieldValueInvalid spec.egress[0].to[0].ipBlock.except[1]', 'FieldValueInvalid spec.egress[0].to[0].ipBlock.except[2]'],
  },
  {
    name: 'bad selectors',
    spec: { podSelector: { matchLabels: { 'bad key!': 'v' }, matchExpressions: [{ key: 'a', operator: 'In' }, { key: 'b', operator: 'Exists', values: ['x'] }, { key: 'c', operator: 'Gt', values: ['1'] }] } },
    want: ['FieldValueInvalid spec.podSelector.matchLabels', 'FieldValueRequired spec.podSelector.matchExpressions[0].values', 'FieldValueForbidden spec.podSelector.matchExpressions[1].values', 'FieldValueInvalid spec.podSelector.matchExpressions[2].operator'],
  },
  { name: 'an unknown policy type', spec: { podSelector: {}, policyTypes: ['Ingress', 'Sideways'] }, want: ['FieldValueNotSupported spec.policyTypes[1]'] },
  { name: 'three policy types', spec: { podSelector: {}, policyTypes: ['Ingress', 'Egress', 'Ingress'] }, want: ['FieldValueInvalid spec.policyTypes'] },
];

for (const c of cases) {
  test(`reference behaviour, NetworkPolicy validation: ${c.name}`, () => {
    assert.deepEqual(validate(c.spec), c.want);
  });
}

test('reference behaviour, NetworkPolicy defaults: policyTypes from the rules, port protocol TCP', () => {
  const table: { spec: Record<string, unknown>; types: string[] }[] = [
    { spec: { podSelector: {} }, types: ['Ingress'] },
    { spec: { podSelector: {}, egress: [{}] }, types: ['Ingress', 'Egress'] },
    { spec: { podSelector: {}, egress: [{}], policyTypes: ['Egress'] }, types: ['Egress'] },
  ];
  for (const { spec, types } of table) {
    const o = policy(spec);
    s.prepareForCreate?.(o);
    assert.deepEqual((o.spec as { policyTypes: string[] }).policyTypes, types);
  }
  const o = policy({ ingress: [{ ports: [{ port: 80 }, { port: 53, protocol: 'UDP' }] }], egress: [{ ports: [{}] }] });
  s.prepareForUpdate?.(o, policy({}));
  const spec = o.spec as { ingress: { ports: { protocol: string }[] }[]; egress: { ports: { protocol: string }[] }[] };
  assert.deepEqual(spec.ingress[0]?.ports.map((p) => p.protocol), ['TCP', 'UDP']);
  assert.equal(spec.egress[0]?.ports[0]?.protocol, 'TCP');
});

test('reference behaviour, NetworkPolicy: CIDR parsing and strict subsets', () => {
  const cases: [string, string, boolean][] = [
    ['10.1.0.0/16', '10.0.0.0/8', true],
    ['10.0.0.0/8', '10.0.0.0/8', false],
    ['11.0.0.0/16', '10.0.0.0/8', false],
    ['10.0.0.0/16', '10.0.0.0/24', false],
    ['2001:db8:1::/48', '2001:db8::/32', true],
    ['::ffff:10.1.0.0/112', '::ffff:10.0.0.0/104', true],
    ['10.0.0.0/16', '::/0', false],
  ];
  for (const [inner, outer, want] of cases) {
    const a = parseCidr(inner);
    const b = parseCidr(outer);
    assert.ok(a && b, `${inner} ${outer}`);
    assert.equal(isStrictSubset(a, b), want, `${inner} in ${outer}`);
  }
  for (const bad of ['10.0.0.0', '10.0.0.0/33', '10.0.0/8', 'x/8', '::/129', '10.0.0.0/-1']) assert.equal(parseCidr(bad), undefined, bad);
  assert.equal(parseCidr('10.1.2.3/8')?.network, parseCidr('10.0.0.0/8')?.network, 'host bits are cleared');
});

test('reference behaviour, NetworkPolicy: short name netpol, table POD-SELECTOR in the reference form', () => {
  assert.deepEqual(networkPolicies.shortNames, ['netpol']);
  assert.deepEqual(networkPolicies.tableColumns.map((c) => c.name), ['Pod-Selector']);
  const cell = (sel: unknown) => networkPolicies.tableColumns[0]?.value(policy({ podSelector: sel }));
  assert.equal(cell({}), '<none>');
  assert.equal(cell(undefined), '<none>');
  assert.equal(cell({ matchLabels: { tier: 'web', app: 'a' } }), 'app=a,tier=web');
  assert.equal(
    formatLabelSelector({ matchExpressions: [{ key: 'z', operator: 'NotIn', values: ['b', 'a'] }, { key: 'x', operator: 'Exists' }, { key: 'y', operator: 'DoesNotExist' }, { key: 'w', operator: 'In', values: ['1'] }] }),
    'w in (1),x,!y,z notin (a,b)',
  );
});
