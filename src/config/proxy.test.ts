import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PROXY_CONFIG_API_VERSION, PROXY_CONFIG_KIND, ProxyConfigError, parseProxyConfiguration, type ProxyOptions } from './proxy.js';

const HEAD = `apiVersion: ${PROXY_CONFIG_API_VERSION}\nkind: ${PROXY_CONFIG_KIND}\n`;
const LINUX: ProxyOptions = { os: 'linux' };

function problemsOf(body: string, opts: ProxyOptions = LINUX): string[] {
  try {
    parseProxyConfiguration(HEAD + body, opts);
  } catch (e) {
    assert.ok(e instanceof ProxyConfigError, String(e));
    return e.problems;
  }
  return [];
}

describe('OrchProxyConfiguration', () => {
  it('spec 2.12: an empty document gets the reference defaults', () => {
    const c = parseProxyConfiguration(HEAD, LINUX);
    const cases: [unknown, unknown][] = [
      [c.mode, 'iptables'],
      [c.bindAddress, '0.0.0.0'],
      [c.healthzBindAddress, '0.0.0.0:10256'],
      [c.metricsBindAddress, '127.0.0.1:10249'],
      [c.iptables.masqueradeBit, 14],
      [c.iptables.masqueradeAll, false],
      [c.iptables.localhostNodePorts, true],
      [c.iptables.syncPeriod, 30_000],
      [c.iptables.minSyncPeriod, 1000],
      [c.ipvs.syncPeriod, 30_000],
      [c.ipvs.minSyncPeriod, 0],
      [c.ipvs.tcpTimeout, 0],
      [c.ipvs.tcpFinTimeout, 0],
      [c.ipvs.udpTimeout, 0],
      [c.ipvs.strictARP, false],
      [c.nftables.masqueradeBit, 14],
      [c.nftables.syncPeriod, 30_000],
      [c.conntrack.maxPerCore, 32768],
      [c.conntrack.min, 131072],
      [c.conntrack.tcpEstablishedTimeout, 24 * 3600_000],
      [c.conntrack.tcpCloseWaitTimeout, 3600_000],
      [c.oomScoreAdj, -999],
      [c.configSyncPeriod, 15 * 60_000],
      [c.detectLocalMode, 'ClusterCIDR'],
      [(c.clientConnection as Record<string, unknown>).qps, 5],
      [(c.clientConnection as Record<string, unknown>).burst, 10],
    ];
    cases.forEach(([got, want], i) => assert.deepEqual(got, want, `case ${i}`));
  });

  it('spec 2.12: given values are kept (durations in milliseconds)', () => {
    const c = parseProxyConfiguration(`${HEAD}mode: ipvs\nipvs: {scheduler: wrr, excludeCIDRs: [10.0.0.0/8, "fd00::/64"], tcpTimeout: 15m, strictARP: true}\niptables: {masqueradeBit: 0}\nclusterCIDR: 10.244.0.0/16,fd00:10::/56\nnodePortAddresses: [primary]\n`, LINUX);
    assert.equal(c.mode, 'ipvs');
    assert.equal(c.ipvs.scheduler, 'wrr');
    assert.equal(c.ipvs.tcpTimeout, 15 * 60_000);
    assert.equal(c.ipvs.strictARP, true);
    assert.equal(c.iptables.masqueradeBit, 0);
  });

  it('spec 2.12: modes per OS; an unset mode takes the best usable one; an unusable mode is an error', () => {
    const chosen: [string, ProxyOptions, string][] = [
      ['', { os: 'windows' }, 'kernelspace'],
      ['', { os: 'linux', availableModes: ['ipvs', 'nftables'] }, 'nftables'],
      ['mode: nftables\n', LINUX, 'nftables'],
    ];
    for (const [body, opts, mode] of chosen) assert.equal(parseProxyConfiguration(HEAD + body, opts).mode, mode, body);
    const refused: [string, ProxyOptions, string][] = [
      ['mode: kernelspace\n', LINUX, 'mode: Unsupported value: "kernelspace": supported values: "iptables", "nftables", "ipvs" (on linux)'],
      ['mode: iptables\n', { os: 'windows' }, 'mode: Unsupported value: "iptables"'],
      ['mode: ipvs\n', { os: 'linux', availableModes: ['iptables'] }, 'mode: Invalid value: "ipvs": this host cannot run it; usable modes: iptables'],
      ['', { os: 'linux', availableModes: [] }, 'mode: Required value: none of the linux proxy modes'],
    ];
    for (const [body, opts, want] of refused) {
      const problems = problemsOf(body, opts);
      assert.ok(problems.some((p) => p.startsWith(want)), `${body}: ${problems.join(' | ')}`);
    }
  });

  it('spec 2.12: every invalid field is reported with its path', () => {
    const cases: [string, string][] = [
      ['iptables: {masqueradeBit: 32}', 'iptables.masqueradeBit: Invalid value: 32: must be in the range 0 to 31'],
      ['iptables: {masqueradeBit: -1}', 'iptables.masqueradeBit: Invalid value: -1: must be in the range 0 to 31'],
      ['iptables: {syncPeriod: 0s}', 'iptables.syncPeriod: Invalid value: "0s": must be greater than 0'],
      ['iptables: {minSyncPeriod: -1s}', 'iptables.minSyncPeriod: Invalid value: "-1s": must be greater than or equal to 0'],
      ['iptables: {syncPeriod: 1s, minSyncPeriod: 2s}', 'iptables.syncPeriod: Invalid value: 1s: must be greater than or equal to iptables.minSyncPeriod (2s)'],
      ['iptables: {masqueradeAll: "yes"}', 'iptables.masqueradeAll: Invalid value: "yes": must be true or false'],
      ['iptables: {syncPeriod: soon}', 'iptables.syncPeriod: Invalid value: "soon": must be a duration'],
      ['mode: ipvs\nipvs: {scheduler: fastest}', 'ipvs.scheduler: Unsupported value: "fastest"'],
      ['mode: ipvs\nipvs: {excludeCIDRs: [10.0.0.0/33]}', 'ipvs.excludeCIDRs[0]: Invalid value: "10.0.0.0/33": must be a valid CIDR'],
      ['mode: ipvs\nipvs: {tcpTimeout: -1s}', 'ipvs.tcpTimeout: Invalid value: "-1s": must be greater than or equal to 0'],
      ['mode: ipvs\nipvs: {tcpFinTimeout: -1s}', 'ipvs.tcpFinTimeout: Invalid value: "-1s"'],
      ['mode: ipvs\nipvs: {udpTimeout: -1s}', 'ipvs.udpTimeout: Invalid value: "-1s"'],
      ['mode: ipvs\nipvs: {syncPeriod: 1s, minSyncPeriod: 5s}', 'ipvs.syncPeriod: Invalid value: 1s: must be greater than or equal to ipvs.minSyncPeriod (5s)'],
      ['mode: nftables\nnftables: {masqueradeBit: 40}', 'nftables.masqueradeBit: Invalid value: 40'],
      ['bindAddress: localhost', 'bindAddress: Invalid value: "localhost": must be a valid IP address'],
      ['healthzBindAddress: 0.0.0.0', 'healthzBindAddress: Invalid value: "0.0.0.0": must be IP:port'],
      ['metricsBindAddress: "127.0.0.1:70000"', 'metricsBindAddress: Invalid value: "127.0.0.1:70000": must be IP:port'],
      ['clusterCIDR: 10.0.0.0/8,nope', 'clusterCIDR: Invalid value: "nope": must be a valid CIDR block'],
      ['clusterCIDR: 10.0.0.0/8,11.0.0.0/8', 'clusterCIDR: Invalid value: "10.0.0.0/8,11.0.0.0/8": two CIDRs must be one IPv4 and one IPv6'],
      ['nodePortAddresses: [primary, 10.0.0.0/8]', 'nodePortAddresses[0]: Invalid value: "primary": cannot be combined with CIDRs'],
      ['nodePortAddresses: [10.0.0.1]', 'nodePortAddresses[0]: Invalid value: "10.0.0.1": must be a valid CIDR or "primary"'],
      ['oomScoreAdj: 1001', 'oomScoreAdj: Invalid value: 1001: must be in the range -1000 to 1000'],
      ['conntrack: {maxPerCore: -1}', 'conntrack.maxPerCore: Invalid value: -1: must be greater than or equal to 0'],
      ['conntrack: {tcpCloseWaitTimeout: -1h}', 'conntrack.tcpCloseWaitTimeout: Invalid value: "-1h"'],
      ['configSyncPeriod: 0s', 'configSyncPeriod: Invalid value: "0s": must be greater than 0'],
      ['portRange: 300-200', 'portRange: Invalid value: "300-200"'],
      ['detectLocalMode: Anything', 'detectLocalMode: Unsupported value: "Anything"'],
      ['detectLocalMode: BridgeInterface', 'detectLocal.bridgeInterface: Required value'],
      ['detectLocalMode: InterfaceNamePrefix', 'detectLocal.interfaceNamePrefix: Required value'],
      ['clientConnection: {qps: -1}', 'clientConnection.qps: Invalid value: -1'],
      ['logging: {format: xml}', 'logging.format: Unsupported value: "xml"'],
      ['featureGates: {A: "on"}', 'featureGates: Invalid value: must be a map of names to true or false'],
      ['iptables: {masqueradeBits: 3}', 'iptables.masqueradeBits: unknown field'],
      ['showHiddenMetricsForVersion: "1"', 'showHiddenMetricsForVersion: Invalid value: "1"'],
    ];
    for (const [body, want] of cases) {
      const problems = problemsOf(`${body}\n`);
      assert.ok(problems.some((p) => p.startsWith(want)), `${body}: want ${want}, got ${problems.join(' | ')}`);
    }
  });

  it('spec 2.12: all problems are collected, not just the first', () => {
    const problems = problemsOf('iptables: {masqueradeBit: 99, syncPeriod: 0s}\nbindAddress: x\n');
    assert.equal(problems.length, 3, problems.join(' | '));
  });

  it('reference behaviour: the ipvs block is checked only in ipvs mode', () => {
    assert.deepEqual(problemsOf('mode: iptables\nipvs: {scheduler: fastest}\n'), []);
  });

  it('spec 2.12: wrong apiVersion or kind and unparseable text are errors', () => {
    assert.throws(() => parseProxyConfiguration('apiVersion: v1\nkind: Pod\n', LINUX), (e: ProxyConfigError) => {
      assert.ok(e.problems.some((p) => p.startsWith('apiVersion: Unsupported value: "v1"')));
      assert.ok(e.problems.some((p) => p.startsWith('kind: Unsupported value: "Pod"')));
      return true;
    });
    assert.throws(() => parseProxyConfiguration('a: [', LINUX), /not valid YAML or JSON/);
  });
});
