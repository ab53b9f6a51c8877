import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DISCOVERY_GROUP } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import type { FieldError } from '../../../errors/index.js';
import { endpointSlices, fqdnErrors, MAX_ADDRESSES, MAX_ENDPOINTS, MAX_PORTS } from './endpoint-slice.js';

const summary = (errs: FieldError[]) => errs.map((e) => `${e.type} ${e.field}`);
const slice = (body: Record<string, unknown>): ApiObject => ({ apiVersion: `${DISCOVERY_GROUP}/v1`, kind: 'EndpointSlice', metadata: { name: 'web-abc', namespace: 'default' }, ...body });
const s = endpointSlices.strategy;
const validate = (body: Record<string, unknown>) => summary(s.validate(slice(body)));
const ep = (...addresses: string[]) => ({ addresses });

const cases: { name: string; body: Record<string, unknown>; want: string[] }[] = [
  {
    name: 'IPv4 endpoints with ports, node, hostname, hints and conditions',
    body: { addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'], nodeName: 'node-1', hostname: 'web-0', conditions: { ready: true }, hints: { forZones: [{ name: 'zone-a' }] } }], ports: [{ name: 'http', port: 80, protocol: 'TCP', appProtocol: 'http' }] },
    want: [],
  },
  { name: 'IPv6 and FQDN slices', body: { addressType: 'IPv6', endpoints: [ep('2001:db8::1')] }, want: [] },
  { name: 'an FQDN slice', body: { addressType: 'FQDN', endpoints: [ep('db.example.com', 'cache.example.com.')] }, want: [] },
  { name: 'no addressType', body: { endpoints: [] }, want: ['FieldValueRequired addressType'] },
  { name: 'an unknown addressType', body: { addressType: 'IP' }, want: ['FieldValueNotSupported addressType'] },
  { name: 'an endpoint without addresses', body: { addressType: 'IPv4', endpoints: [{}] }, want: ['FieldValueRequired endpoints[0].addresses'] },
  { name: 'an IPv6 address in an IPv4 slice', body: { addressType: 'IPv4', endpoints: [ep('2001:db8::1')] }, want: ['FieldValueInvalid endpoints[0].addresses[0]'] },
  { name: 'an IPv4 address in an IPv6 slice', body: { addressType: 'IPv6', endpoints: [ep('10.0.0.1')] }, want: ['FieldValueInvalid endpoints[0].addresses[0]'] },
  {
    name: 'special addresses (unspecified, loopback, link-local, link-local multicast)',
    body: { addressType: 'IPv4', endpoints: [ep('0.0.0.0', '127.0.0.1', '169.254.1.1', '224.0.0.5')] },
    want: [0, 1, 2, 3].map((i) => `FieldValueInvalid endpoints[0].addresses[${i}]`),
  },
  { name: 'special IPv6 addresses', body: { addressType: 'IPv6', endpoints: [ep('::1', 'fe80::1')] }, want: ['FieldValueInvalid endpoints[0].addresses[0]', 'FieldValueInvalid endpoints[0].addresses[1]'] },
  { name: 'an FQDN that is one label or not a name', body: { addressType: 'FQDN', endpoints: [ep('localhost', 'Bad_Name.com')] }, want: ['FieldValueInvalid endpoints[0].addresses[0]', 'FieldValueInvalid endpoints[0].addresses[1]'] },
  { name: 'a bad nodeName and hostname', body: { addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'], nodeName: 'Node_1', hostname: 'a.b' }] }, want: ['FieldValueInvalid endpoints[0].nodeName', 'FieldValueInvalid endpoints[0].hostname'] },
  { name: 'duplicate zone hints', body: { addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'], hints: { forZones: [{ name: 'a' }, { name: 'a' }] } }] }, want: ['FieldValueDuplicate endpoints[0].hints.forZones[1].name'] },
  { name: 'a bad port name', body: { addressType: 'IPv4', ports: [{ name: 'HTTP', port: 80, protocol: 'TCP' }] }, want: ['FieldValueInvalid ports[0].name'] },
  { name: 'duplicate port names', body: { addressType: 'IPv4', ports: [{ name: 'a', protocol: 'TCP' }, { name: 'a', protocol: 'UDP' }] }, want: ['FieldValueDuplicate ports[1].name'] },
  { name: 'an unknown port protocol', body: { addressType: 'IPv4', ports: [{ name: '', protocol: 'ICMP' }] }, want: ['FieldValueNotSupported ports[0].protocol'] },
  { name: 'a port outside int32', body: { addressType: 'IPv4', ports: [{ name: '', protocol: 'TCP', port: 2 ** 31 }] }, want: ['FieldValueInvalid ports[0].port'] },
  { name: 'a bad appProtocol', body: { addressType: 'IPv4', ports: [{ name: '', protocol: 'TCP', appProtocol: 'a b' }] }, want: ['FieldValueInvalid ports[0].appProtocol'] },
  { name: `more than ${MAX_ADDRESSES} addresses`, body: { addressType: 'FQDN', endpoints: [ep(...Array.from({ length: MAX_ADDRESSES + 1 }, (_, i) => `h${i}.example.com`))] }, want: ['FieldValueTooMany endpoints[0].addresses'] },
  { name: `more than ${MAX_ENDPOINTS} endpoints`, body: { addressType: 'IPv4', endpoints: Array.from({ length: MAX_ENDPOINTS + 1 }, () => ep('10.0.0.1')) }, want: ['FieldValueTooMany endpoints'] },
  { name: `more than ${MAX_PORTS} ports`, body: { addressType: 'IPv4', ports: Array.from({ length: MAX_PORTS + 1 }, (_, i) => ({ name: `p${i}`, protocol: 'TCP' })) }, want: ['FieldValueTooMany ports'] },
];

for (const c of cases) {
  test(`reference behaviour, EndpointSlice validation: ${c.name}`, () => {
    assert.deepEqual(validate(c.body), c.want);
  });
}

test('reference behaviour, EndpointSlice: limit messages and FQDN details', () => {
  const errs = s.validate(slice({ addressType: 'IPv4', endpoints: Array.from({ length: 1001 }, () => ep('10.0.0.1')) }));
  assert.equal(errs[0]?.message, 'Too many: 1001: must have at most 1000 items');
  assert.equal(fqdnErrors('localhost')?.message, 'should be a domain with at least two segments separated by dots');
  assert.equal(fqdnErrors('example.com.'), undefined);
});

test('reference behaviour, EndpointSlice: addressType is immutable', () => {
  assert.deepEqual(summary(s.validateUpdate?.(slice({ addressType: 'IPv6' }), slice({ addressType: 'IPv4' })) ?? []), ['FieldValueInvalid addressType']);
  assert.deepEqual(s.validateUpdate?.(slice({ addressType: 'IPv4', endpoints: [] }), slice({ addressType: 'IPv4' })), []);
});

test('reference behaviour, EndpointSlice: ports default to the empty name and TCP', () => {
  const o = slice({ addressType: 'IPv4', ports: [{ port: 80 }, { name: 'dns', protocol: 'UDP' }] });
  s.prepareForCreate?.(o);
  assert.deepEqual(o.ports, [{ port: 80, name: '', protocol: 'TCP' }, { name: 'dns', protocol: 'UDP' }]);
});

test('reference behaviour, EndpointSlice: generation moves with any change but metadata, or with labels', () => {
  const old = slice({ addressType: 'IPv4', endpoints: [ep('10.0.0.1')], metadata: { name: 'x', generation: 3, labels: { a: '1' } } });
  const table: { change: Partial<ApiObject>; generation: number }[] = [
    { change: {}, generation: 3 },
    { change: { metadata: { name: 'x', generation: 3, labels: { a: '1' }, annotations: { b: '2' } } }, generation: 3 },
    { change: { endpoints: [ep('10.0.0.2')] }, generation: 4 },
    { change: { metadata: { name: 'x', generation: 3, labels: { a: '2' } } }, generation: 4 },
  ];
  for (const { change, generation } of table) {
    const next = { ...structuredClone(old), ...structuredClone(change) } as ApiObject;
    s.prepareForUpdate?.(next, old);
    assert.equal(next.metadata?.generation, generation, JSON.stringify(change));
  }
  assert.equal(s.tracksGeneration, true);
});

test('reference behaviour, EndpointSlice: table ADDRESSTYPE, PORTS, ENDPOINTS', () => {
  const cells = (o: ApiObject) => endpointSlices.tableColumns.map((c) => c.value(o));
  assert.deepEqual(endpointSlices.tableColumns.map((c) => c.name), ['AddressType', 'Ports', 'Endpoints']);
  assert.deepEqual(cells(slice({ addressType: 'IPv4' })), ['IPv4', '<unset>', '<unset>']);
  const busy = slice({
    addressType: 'IPv4',
    ports: [{ port: 80 }, { name: 'metrics' }, { port: 443 }, { port: 8080 }],
    endpoints: [ep('10.0.0.1', '10.0.0.2'), ep('10.0.0.3'), ep('10.0.0.4', '10.0.0.5')],
  });
  assert.deepEqual(cells(busy), ['IPv4', '80,metrics,443 + 1 more...', '10.0.0.1,10.0.0.2,10.0.0.3 + 2 more...']);
  assert.deepEqual(cells(slice({ addressType: 'IPv4', ports: [{}], endpoints: [ep('10.0.0.1')] })), ['IPv4', '*', '10.0.0.1']);
});
