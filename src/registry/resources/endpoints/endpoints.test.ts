import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiObject } from '../../../api/types.js';
import type { FieldError } from '../../../errors/index.js';
import { endpoints } from './index.js';

const s = endpoints.strategy;
type Obj = Record<string, unknown>;
const ep = (subsets?: Obj[]): ApiObject => ({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'web', namespace: 'default' }, ...(subsets ? { subsets } : {}) });
const prepared = (subsets?: Obj[]) => {
  const o = ep(subsets);
  s.prepareForCreate?.(o);
  return o;
};
const pairs = (e: FieldError[]) => e.map((x) => [x.field, x.type]);
const errs = (subsets: Obj[]) => pairs(s.validate(prepared(subsets)));
const text = (o: ApiObject) => endpoints.tableColumns[0]?.value(o);

describe('endpoints', () => {
  it('API reference: identity', () => {
    assert.equal(endpoints.kind, 'Endpoints');
    assert.equal(endpoints.listKind, 'EndpointsList');
    assert.equal(endpoints.singular, 'endpoints');
    assert.deepEqual(endpoints.shortNames, ['ep']);
    assert.equal(endpoints.namespaced, true);
    assert.deepEqual(endpoints.subresources, []);
    assert.equal(endpoints.storageKey, 'core/endpoints');
    assert.equal(s.nameRule, 'subdomain');
    assert.equal(endpoints.selectableFields, undefined);
  });

  it('API reference: port protocol defaults to TCP; valid subsets pass', () => {
    const o = prepared([{ addresses: [{ ip: '10.1.0.5', nodeName: 'node-1' }], notReadyAddresses: [{ ip: 'fd00::5' }], ports: [{ port: 8080 }] }]);
    assert.deepEqual(((o.subsets as Obj[])[0]?.ports as Obj[])[0], { port: 8080, protocol: 'TCP' });
    assert.deepEqual(s.validate(o), []);
    assert.deepEqual(s.validate(prepared()), []);
  });

  it('API reference: addresses need valid, non-special IPs', () => {
    assert.deepEqual(errs([{ addresses: [{}], ports: [{ port: 80 }] }]), [['subsets[0].addresses[0].ip', 'FieldValueRequired']]);
    assert.deepEqual(errs([{ addresses: [{ ip: '10.0.0.300' }], ports: [{ port: 80 }] }]), [['subsets[0].addresses[0].ip', 'FieldValueInvalid']]);
    assert.deepEqual(errs([{ notReadyAddresses: [{ ip: '127.0.0.1' }], ports: [{ port: 80 }] }]), [['subsets[0].notReadyAddresses[0].ip', 'FieldValueInvalid']]);
    const special = s.validate(prepared([{ addresses: [{ ip: '169.254.1.1' }], ports: [{ port: 80 }] }]));
    assert.match(special[0]?.message ?? '', /link-local range/);
    assert.deepEqual(errs([{ addresses: [{ ip: '10.0.0.1', hostname: 'A_B', nodeName: 'Node!' }], ports: [{ port: 80 }] }]), [
      ['subsets[0].addresses[0].hostname', 'FieldValueInvalid'],
      ['subsets[0].addresses[0].nodeName', 'FieldValueInvalid'],
    ]);
  });

  it('API reference: a subset needs addresses or notReadyAddresses', () => {
    assert.deepEqual(errs([{ ports: [{ port: 80 }] }]), [['subsets[0]', 'FieldValueRequired']]);
  });

  it('API reference: ports are 1..65535 with a protocol, named when several', () => {
    const addresses = [{ ip: '10.0.0.1' }];
    assert.deepEqual(errs([{ addresses, ports: [{ port: 0 }] }]), [['subsets[0].ports[0].port', 'FieldValueInvalid']]);
    assert.deepEqual(errs([{ addresses, ports: [{}] }]), [['subsets[0].ports[0].port', 'FieldValueRequired']]);
    assert.deepEqual(errs([{ addresses, ports: [{ port: 80, protocol: 'IP' }] }]), [['subsets[0].ports[0].protocol', 'FieldValueNotSupported']]);
    assert.deepEqual(errs([{ addresses, ports: [{ port: 80 }, { port: 81 }] }]), [
      ['subsets[0].ports[0].name', 'FieldValueRequired'],
      ['subsets[0].ports[1].name', 'FieldValueRequired'],
    ]);
    assert.deepEqual(errs([{ addresses, ports: [{ name: 'a', port: 80 }, { name: 'a', port: 81 }] }]), [['subsets[0].ports[1].name', 'FieldValueDuplicate']]);
    assert.deepEqual(errs([{ addresses, ports: [{ name: 'Http', port: 80 }] }]), [['subsets[0].ports[0].name', 'FieldValueInvalid']]);
  });

  it('API reference: table shows ip:port pairs, at most three', () => {
    assert.deepEqual(endpoints.tableColumns.map((c) => c.name), ['Endpoints']);
    assert.equal(text(ep()), '<none>');
    assert.equal(text(ep([{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [{ port: 80 }] }])), '10.0.0.1:80,10.0.0.2:80');
    assert.equal(text(ep([{ addresses: [{ ip: '10.0.0.1' }] }])), '10.0.0.1');
    assert.equal(
      text(ep([{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [{ port: 80 }, { port: 443 }] }])),
      '10.0.0.1:80,10.0.0.2:80,10.0.0.1:443 + 1 more...',
    );
    // Not-ready addresses are not listed.
    assert.equal(text(ep([{ notReadyAddresses: [{ ip: '10.0.0.9' }], ports: [{ port: 80 }] }])), '<none>');
  });
});
