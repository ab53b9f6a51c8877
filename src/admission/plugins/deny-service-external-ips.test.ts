import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StatusError } from '../../errors/index.js';
import { admissionPluginContract, admissionRequest } from '../testing/contract.js';
import type { AdmissionRequest } from '../types.js';
import { DenyServiceExternalIPsPlugin } from './deny-service-external-ips.js';

const svc = (ips: string[] | undefined, name = 's') => ({ metadata: { name }, spec: { ports: [{ port: 80 }], ...(ips ? { externalIPs: ips } : {}) } });
const write = (ips: string[] | undefined, oldIps?: string[] | null, subResource = ''): AdmissionRequest =>
  admissionRequest({
    operation: oldIps === undefined ? 'CREATE' : 'UPDATE',
    name: 's',
    subResource,
    kind: { group: '', version: 'v1', kind: 'Service' },
    resource: { group: '', version: 'v1', resource: 'services' },
    object: svc(ips),
    ...(oldIps === undefined ? {} : { oldObject: svc(oldIps ?? undefined) }),
  });

admissionPluginContract('DenyServiceExternalIPs', {
  make: () => new DenyServiceExternalIPsPlugin(),
  cases: [
    { title: 'a service without external IPs', request: () => write(undefined) },
    { title: 'a service with external IPs', request: () => write(['1.2.3.4']) },
    { title: 'an update dropping external IPs', request: () => write(['1.2.3.4'], ['1.2.3.4', '5.6.7.8']) },
  ],
});

test('reference behaviour (DenyServiceExternalIPs): no new external IPs; keeping or removing old ones is allowed', () => {
  const denied = '403 services "s" is forbidden: Use of external IPs is denied by admission control';
  const table: [string, AdmissionRequest, string][] = [
    ['create without', write(undefined), 'allowed'],
    ['create with an empty list', write([]), 'allowed'],
    ['create with', write(['1.2.3.4']), denied],
    ['update keeping them', write(['1.2.3.4'], ['1.2.3.4']), 'allowed'],
    ['update removing one', write(['1.2.3.4'], ['1.2.3.4', '5.6.7.8']), 'allowed'],
    ['update removing all', write(undefined, ['1.2.3.4']), 'allowed'],
    ['update adding one', write(['1.2.3.4', '9.9.9.9'], ['1.2.3.4']), denied],
    ['update adding the first', write(['1.2.3.4'], null), denied],
    ['the status subresource is not checked', write(['1.2.3.4'], null, 'status'), 'allowed'],
  ];
  for (const [what, req, want] of table) {
    let got = 'allowed';
    try {
      new DenyServiceExternalIPsPlugin().validate(req);
    } catch (e) {
      assert.ok(e instanceof StatusError);
      got = `${e.code} ${e.message}`;
    }
    assert.equal(got, want, what);
  }
});

test('reference behaviour (DenyServiceExternalIPs): a generated name is used when the service has no name yet', () => {
  const req = write(['1.2.3.4']);
  req.object = { metadata: { generateName: 'web-' }, spec: { externalIPs: ['1.2.3.4'] } };
  assert.throws(() => new DenyServiceExternalIPsPlugin().validate(req), /^StatusError: services "web-" is forbidden/);
});
