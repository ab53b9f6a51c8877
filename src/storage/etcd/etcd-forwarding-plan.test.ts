import assert from 'node:assert/strict';
import { it } from 'node:test';
import { forwardingPlan } from './etcd-forwarding-plan.js';

const plans: { name: string; endpoints: string[]; members: { host: string; port: number; secure: boolean }[]; options: Record<string, string> }[] = [
  { name: 'one http member', endpoints: ['http://127.0.0.1:2379'], members: [{ host: '127.0.0.1', port: 2379, secure: false }], options: {} },
  { name: 'no scheme and no port: http on 2379', endpoints: ['etcd-0'], members: [{ host: 'etcd-0', port: 2379, secure: false }], options: {} },
  { name: 'several http members, hostnames allowed', endpoints: ['http://a:1', 'http://[::1]:2'], members: [{ host: 'a', port: 1, secure: false }, { host: '::1', port: 2, secure: false }], options: {} },
  {
    name: 'one https member keeps its real name for TLS',
    endpoints: ['https://etcd.example:2379'],
    members: [{ host: 'etcd.example', port: 2379, secure: true }],
    options: { 'grpc.ssl_target_name_override': 'etcd.example', 'grpc.default_authority': 'etcd.example:2379' },
  },
  { name: 'one https IPv6 member', endpoints: ['https://[fd00::1]:2379'], members: [{ host: 'fd00::1', port: 2379, secure: true }], options: { 'grpc.ssl_target_name_override': 'fd00::1', 'grpc.default_authority': '[fd00::1]:2379' } },
];

const refused: { name: string; endpoints: string[]; error: RegExp }[] = [
  { name: 'several members with https', endpoints: ['https://a:1', 'https://b:1'], error: /2 endpoints include https ones; with TLS only a single endpoint can be proxied/ },
  { name: 'no members', endpoints: [], error: /no etcd endpoints configured/ },
  { name: 'an unparsable endpoint', endpoints: ['http://[bad'], error: /invalid etcd endpoint "http:\/\/\[bad"/ },
];

for (const c of refused) {
  it(`spec 2.12: the etcd egress forwarding plan refuses ${c.name}`, () => {
    assert.throws(() => forwardingPlan(c.endpoints), c.error);
  });
}

for (const c of plans) {
  it(`spec 2.12: the etcd egress forwarding plan: ${c.name}`, () => {
    const plan = forwardingPlan(c.endpoints);
    assert.deepEqual(plan.members, c.members);
    assert.deepEqual(plan.channelOptions, c.options);
  });
}
