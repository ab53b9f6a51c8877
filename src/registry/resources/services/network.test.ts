import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatIPv6, parseIPv6, parseNodePortRange, serviceNetwork } from './network.js';

describe('service network flags (reference behaviour)', () => {
  const ranges: [string, string, string, number, string, string][] = [
    // flag value, canonical CIDR, family, addresses handed out, first, last
    ['10.0.0.0/24', '10.0.0.0/24', 'IPv4', 254, '10.0.0.1', '10.0.0.254'],
    ['10.0.0.77/24', '10.0.0.0/24', 'IPv4', 254, '10.0.0.1', '10.0.0.254'],
    ['10.96.0.0/12', '10.96.0.0/12', 'IPv4', 2 ** 20 - 2, '10.96.0.1', '10.111.255.254'],
    ['192.168.5.0/29', '192.168.5.0/29', 'IPv4', 6, '192.168.5.1', '192.168.5.6'],
    ['fd00:10:0::/112', 'fd00:10::/112', 'IPv6', 65535, 'fd00:10::1', 'fd00:10::ffff'],
    ['fd00::/108', 'fd00::/108', 'IPv6', 65535, 'fd00::1', 'fd00::ffff'],
    ['fd00::/125', 'fd00::/125', 'IPv6', 7, 'fd00::1', 'fd00::7'],
  ];
  for (const [flag, cidr, family, count, first, last] of ranges) {
    it(`reference behaviour: --service-cluster-ip-range=${flag}`, () => {
      const net = serviceNetwork({ clusterIPRange: flag });
      assert.equal(net.cidr, cidr);
      assert.equal(net.family, family);
      assert.equal(net.ipCount, count);
      assert.equal(net.ipAt(0), first);
      assert.equal(net.ipAt(count - 1), last);
      assert.equal(net.offsetOf(first), 0);
      assert.equal(net.offsetOf(last), count - 1);
    });
  }

  it('reference behaviour: the network address, the IPv4 broadcast address and other families are outside', () => {
    const v4 = serviceNetwork();
    for (const ip of ['10.0.0.0', '10.0.0.255', '10.0.1.1', 'fd00::1', 'bogus', '010.0.0.1']) assert.equal(v4.offsetOf(ip), undefined, ip);
    const v6 = serviceNetwork({ clusterIPRange: 'fd00::/112' });
    for (const ip of ['fd00::', 'fd00::1:0', '10.0.0.1']) assert.equal(v6.offsetOf(ip), undefined, ip);
    assert.equal(v6.offsetOf('fd00:0:0:0:0:0:0:a'), 9, 'any spelling of an address');
  });

  const badRanges: [string, RegExp][] = [
    ['10.0.0.0/11', /specified --service-cluster-ip-range is too large; for 32-bit addresses, the mask must be >= 12/],
    ['fd00::/100', /for 128-bit addresses, the mask must be >= 108/],
    ['10.0.0.0', /--service-cluster-ip-range: invalid CIDR "10.0.0.0"/],
    ['10.0.0.300/24', /invalid CIDR/],
    ['10.0.0.0/33', /invalid CIDR/],
    ['10.0.0.0/31', /holds no address to hand out/],
    ['10.0.0.0/24,fd00::/108', /dual-stack service ranges are not supported/],
  ];
  for (const [flag, message] of badRanges) {
    it(`reference behaviour: --service-cluster-ip-range=${flag} is refused, naming the flag`, () => {
      assert.throws(() => serviceNetwork({ clusterIPRange: flag }), message);
    });
  }

  const portRanges: [string, { min: number; max: number } | RegExp][] = [
    ['30000-32767', { min: 30000, max: 32767 }],
    ['30000+100', { min: 30000, max: 30100 }],
    ['31000', { min: 31000, max: 31000 }],
    ['32767-30000', /--service-node-port-range: invalid port range "32767-30000"/],
    ['0-100', /invalid port range/],
    ['30000-70000', /invalid port range/],
    ['a-b', /invalid port range/],
  ];
  for (const [flag, want] of portRanges) {
    it(`reference behaviour: --service-node-port-range=${flag}`, () => {
      if (want instanceof RegExp) assert.throws(() => parseNodePortRange(flag), want);
      else assert.deepEqual(parseNodePortRange(flag), want);
    });
  }

  it('reference behaviour: IPv6 text is parsed in every spelling and printed as Go prints it (RFC 5952)', () => {
    const cases: [string, string | undefined][] = [
      ['::', '::'],
      ['::1', '::1'],
      ['FD00:0:0:0:0:0:0:10', 'fd00::10'],
      ['1:0:0:1:0:0:0:1', '1:0:0:1::1'],
      ['1:2:3:4:5:6:7:0', '1:2:3:4:5:6:7:0'],
      ['::ffff:1.2.3.4', '::ffff:102:304'],
      ['1::2::3', undefined],
      ['1:2:3:4:5:6:7:8:9', undefined],
      ['g::1', undefined],
    ];
    for (const [text, printed] of cases) {
      const n = parseIPv6(text);
      assert.equal(n === undefined ? undefined : formatIPv6(n), printed, text);
    }
  });
});
