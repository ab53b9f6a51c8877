/**
 * `--egress-selector-config-file`: which Dialer each kind of outgoing connection uses. A selection that is
 * Direct (or absent) has no Dialer at all, so callers connect as they always do and pay nothing.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { Dialer } from '../util/dialer.js';
import { loadEgressSelectorConfiguration, type EgressSelection, type Transport } from './config.js';
import { httpConnectDialer, type ProxyEndpoint } from './http-connect.js';

export { parseEgressSelectorConfiguration, EgressConfigError, EGRESS_API_VERSIONS, type EgressSelection } from './config.js';
export { httpConnectDialer, type ProxyEndpoint } from './http-connect.js';

/** Dialers per selection; undefined means direct. */
export interface EgressDialers {
  readonly controlplane?: Dialer;
  readonly cluster?: Dialer;
  readonly etcd?: Dialer;
}

/** Reads, validates and builds the dialers; every problem is a start-up error naming the flag and file. */
export function loadEgressSelector(file: string, log: (msg: string) => void): EgressDialers {
  const { selections, where } = loadEgressSelectorConfiguration(file, (p) => existsSync(p));
  return buildDialers(selections, where, log);
}

/** The dialers a validated configuration asks for (file reads for TLS only). */
export function buildDialers(selections: readonly EgressSelection[], where: string, log: (msg: string) => void): EgressDialers {
  const out: { controlplane?: Dialer; cluster?: Dialer; etcd?: Dialer } = {};
  const named = new Set<string>();
  selections.forEach((s, i) => {
    const at = `${where}: egressSelections[${i}]`;
    if (s.writtenName === 'master') log(`${where}: egress selection name "master" is deprecated, use "controlplane"`);
    if (named.has(s.name)) throw new Error(`${at}.name: Duplicate value: "${s.name}" is selected more than once ("master" is another name for "controlplane")`);
    named.add(s.name);
    if (s.proxyProtocol === 'Direct') return;
    if (s.proxyProtocol === 'GRPC') {
      throw new Error(`${at}.connection.proxyProtocol: Unsupported value: "GRPC": this server does not implement the konnectivity GRPC protocol; use "HTTPConnect" or "Direct"`);
    }
    out[s.name] = httpConnectDialer(proxyEndpoint(s.transport!, `${at}.connection.transport`), s.name);
  });
  return out;
}

function proxyEndpoint(t: Transport, at: string): ProxyEndpoint {
  if ('uds' in t) return { kind: 'uds', path: t.uds.udsName };
  const u = new URL(t.tcp.url);
  const host = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
  if (u.protocol === 'http:') return { kind: 'tcp', host, port: u.port ? Number(u.port) : 80 };
  const tlsFiles = t.tcp.tlsConfig!;
  const read = (field: 'caBundle' | 'clientCert' | 'clientKey') => {
    const p = tlsFiles[field]!;
    try {
      return readFileSync(p, 'utf8');
    } catch (e) {
      throw new Error(`${at}.tcp.tlsConfig.${field}: cannot read ${p}: ${(e as Error).message}`);
    }
  };
  return {
    kind: 'tls',
    host,
    port: u.port ? Number(u.port) : 443,
    ...(tlsFiles.caBundle ? { ca: read('caBundle') } : {}),
    cert: read('clientCert'),
    key: read('clientKey'),
  };
}
