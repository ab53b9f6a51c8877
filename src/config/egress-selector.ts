/**
 * The EgressSelectorConfiguration document (`--egress-selector-config-file`, spec 2.12): for each kind of
 * outgoing connection (control plane, etcd, cluster) how it leaves the server: directly, or through an
 * HTTP CONNECT or konnectivity (GRPC) proxy reached over TCP or a Unix socket. Parsing and the reference's
 * validation rules are pure; every problem is reported with its field path.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { APISERVER_GROUP } from '../api/naming.js';
import { isObject } from '../api/types.js';
import { readableVersions, toCurrentVersion, type VersionTable } from './versions.js';

export const EGRESS_KIND = 'EgressSelectorConfiguration';
/** Release 1.31 reads v1beta1 and v1alpha1 (same fields; `master` is accepted in both). */
export const EGRESS_VERSION_TABLE: VersionTable = { current: `${APISERVER_GROUP}/v1beta1`, older: { [`${APISERVER_GROUP}/v1alpha1`]: null } };
export const EGRESS_API_VERSIONS = readableVersions(EGRESS_VERSION_TABLE);
export const PROTOCOLS = ['Direct', 'HTTPConnect', 'GRPC'] as const;
export type ProxyProtocol = (typeof PROTOCOLS)[number];
/** `master` is the deprecated spelling of `controlplane`. */
export const SELECTION_NAMES = ['cluster', 'controlplane', 'etcd', 'master'] as const;
export type SelectionName = 'cluster' | 'controlplane' | 'etcd';

export interface TLSFiles {
  caBundle?: string;
  clientKey?: string;
  clientCert?: string;
}

export type Transport = { tcp: { url: string; tlsConfig?: TLSFiles } } | { uds: { udsName: string } };

export interface EgressSelection {
  /** Canonical: `master` is already `controlplane`. */
  name: SelectionName;
  /** As written, lower-cased (the deprecation warning names it). */
  writtenName: string;
  proxyProtocol: ProxyProtocol;
  transport?: Transport;
}

/** Everything wrong with the document, each message starting with its field path. */
export class EgressConfigError extends Error {
  constructor(
    readonly problems: string[],
    where: string,
  ) {
    super(`${where}: ${problems.join('; ')}`);
  }
}

type Exists = (path: string) => boolean;

/** Reads `--egress-selector-config-file` and validates it; every problem names the flag and the file. */
export function loadEgressSelectorConfiguration(file: string, exists: Exists): { selections: EgressSelection[]; where: string } {
  const where = `--egress-selector-config-file ${file}`;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`${where}: cannot be read: ${(e as Error).message}`);
  }
  return { selections: parseEgressSelectorConfiguration(text, where, exists), where };
}

/** Parses and validates the document's text; throws EgressConfigError listing every problem. */
export function parseEgressSelectorConfiguration(text: string, where: string, exists: Exists): EgressSelection[] {
  let doc: unknown;
  try {
    doc = parseYaml(text, { uniqueKeys: true });
  } catch (e) {
    throw new EgressConfigError([`cannot be parsed as YAML or JSON: ${(e as Error).message.split('\n')[0]}`], where);
  }
  const problems: string[] = [];
  const out = validateDocument(doc, problems, exists);
  if (problems.length > 0) throw new EgressConfigError(problems, where);
  return out;
}

function validateDocument(written: unknown, problems: string[], exists: Exists): EgressSelection[] {
  const doc = toCurrentVersion(written, EGRESS_VERSION_TABLE);
  if (!isObject(doc)) {
    problems.push(`must be an ${EGRESS_KIND} object`);
    return [];
  }
  if (doc.kind !== EGRESS_KIND) problems.push(`kind: Invalid value: ${JSON.stringify(doc.kind ?? '')}: must be ${EGRESS_KIND}`);
  if (!EGRESS_API_VERSIONS.includes(String(doc.apiVersion))) {
    problems.push(`apiVersion: Unsupported value: ${JSON.stringify(doc.apiVersion ?? '')}: supported values: ${EGRESS_API_VERSIONS.map((v) => JSON.stringify(v)).join(', ')}`);
  }
  unknownFields(doc, ['apiVersion', 'kind', 'egressSelections'], '', problems);
  const list = doc.egressSelections;
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) {
    problems.push('egressSelections: must be a list');
    return [];
  }
  const out: EgressSelection[] = [];
  const seen = new Set<string>();
  list.forEach((item: unknown, i) => {
    const at = `egressSelections[${i}]`;
    const s = selection(item, at, problems, exists);
    if (!s) return;
    // The reference compares names case-insensitively and reports a repeat before an unknown name.
    if (seen.has(s.writtenName)) return void problems.push(`${at}.name: Duplicate value: ${JSON.stringify(s.writtenName)}`);
    seen.add(s.writtenName);
    if (!(SELECTION_NAMES as readonly string[]).includes(s.writtenName)) {
      return void problems.push(`${at}.name: Unsupported value: ${JSON.stringify(s.writtenName)}: supported values: ${SELECTION_NAMES.map((n) => `"${n}"`).join(', ')}`);
    }
    out.push({ ...s, name: s.writtenName === 'master' ? 'controlplane' : (s.writtenName as SelectionName) });
  });
  return out;
}

function selection(item: unknown, at: string, problems: string[], exists: Exists): Omit<EgressSelection, 'name'> | undefined {
  if (!isObject(item)) return void problems.push(`${at}: must be an object`);
  unknownFields(item, ['name', 'connection'], at, problems);
  const writtenName = typeof item.name === 'string' ? item.name.toLowerCase() : '';
  if (typeof item.name !== 'string' && item.name !== undefined) problems.push(`${at}.name: must be a string`);
  const conn = item.connection;
  const cat = `${at}.connection`;
  if (!isObject(conn)) return void problems.push(`${cat}: Required value: a connection (with proxyProtocol) must be set`);
  unknownFields(conn, ['proxyProtocol', 'transport'], cat, problems);
  const protocol = conn.proxyProtocol;
  const transport = conn.transport === undefined || conn.transport === null ? undefined : conn.transport;
  const before = problems.length;
  switch (protocol) {
    case 'Direct':
      if (transport !== undefined) problems.push(`${cat}.transport: Invalid value: "direct": Transport config should be absent for direct connect`);
      break;
    case 'HTTPConnect':
    case 'GRPC':
      checkTransport(transport, protocol, `${cat}.transport`, problems, exists);
      break;
    default:
      problems.push(`${cat}.proxyProtocol: Unsupported value: ${JSON.stringify(protocol ?? '')}: supported values: ${PROTOCOLS.map((p) => `"${p}"`).join(', ')}`);
  }
  if (problems.length > before) return { writtenName, proxyProtocol: 'Direct' }; // still checked for its name
  return { writtenName, proxyProtocol: protocol as ProxyProtocol, ...(transport !== undefined ? { transport: transport as Transport } : {}) };
}

function checkTransport(t: unknown, protocol: 'HTTPConnect' | 'GRPC', at: string, problems: string[], exists: Exists): void {
  if (t === undefined) return void problems.push(`${at}: Required value: transport must be set for ${protocol}`);
  if (!isObject(t)) return void problems.push(`${at}: must be an object`);
  unknownFields(t, ['tcp', 'uds'], at, problems);
  const tcp = t.tcp ?? undefined;
  const uds = t.uds ?? undefined;
  if (protocol === 'GRPC') {
    if (tcp !== undefined) return void problems.push(`${at}.tcp: Invalid value: TCP is not supported for GRPC`);
    if (uds === undefined) return void problems.push(`${at}.uds: Required value: UDS must be set with GRPC`);
    return checkUDS(uds, `${at}.uds`, problems);
  }
  if (tcp !== undefined && uds !== undefined) return void problems.push(`${at}.tcp: Invalid value: TCP and UDS cannot both be set`);
  if (tcp === undefined && uds === undefined) return void problems.push(`${at}.tcp: Required value: One of TCP or UDS must be set`);
  if (tcp !== undefined) return checkTCP(tcp, `${at}.tcp`, problems, exists);
  checkUDS(uds, `${at}.uds`, problems);
}

function checkUDS(uds: unknown, at: string, problems: string[]): void {
  if (!isObject(uds)) return void problems.push(`${at}: must be an object`);
  unknownFields(uds, ['udsName'], at, problems);
  if (typeof uds.udsName !== 'string' || uds.udsName === '') problems.push(`${at}.udsName: Invalid value: "nil": UDSName should be present for UDS connections`);
}

function checkTCP(tcp: unknown, at: string, problems: string[], exists: Exists): void {
  if (!isObject(tcp)) return void problems.push(`${at}: must be an object`);
  unknownFields(tcp, ['url', 'tlsConfig'], at, problems);
  const url = typeof tcp.url === 'string' ? tcp.url : '';
  const tlsConfig = tcp.tlsConfig ?? undefined;
  if (url.startsWith('http://')) {
    if (tlsConfig !== undefined) problems.push(`${at}.tlsConfig: Invalid value: "nil": TLSConfig config should not be present when using HTTP`);
  } else if (url.startsWith('https://')) {
    checkTLS(tlsConfig, `${at}.tlsConfig`, problems, exists);
  } else {
    return void problems.push(`${at}.url: Invalid value: ${JSON.stringify(url)}: supported connection protocols are http:// and https://`);
  }
  try {
    const u = new URL(url);
    if (u.hostname === '') problems.push(`${at}.url: Invalid value: ${JSON.stringify(url)}: must name a host`);
  } catch {
    problems.push(`${at}.url: Invalid value: ${JSON.stringify(url)}: not a valid URL`);
  }
}

function checkTLS(tlsConfig: unknown, at: string, problems: string[], exists: Exists): void {
  if (tlsConfig === undefined) return void problems.push(`${at}: Required value: TLSConfig must be present when using HTTPS`);
  if (!isObject(tlsConfig)) return void problems.push(`${at}: must be an object`);
  unknownFields(tlsConfig, ['caBundle', 'clientKey', 'clientCert'], at, problems);
  const file = (field: 'caBundle' | 'clientCert' | 'clientKey', required: boolean, what: string) => {
    const v = tlsConfig[field];
    if (v === undefined || v === '') {
      if (required) problems.push(`${at}.${field}: Invalid value: "nil": Using TLS requires ${field}`);
      return;
    }
    if (typeof v !== 'string') return void problems.push(`${at}.${field}: must be a string (a file path)`);
    if (!exists(v)) problems.push(`${at}.${field}: Invalid value: ${JSON.stringify(v)}: TLS ${what} does not exist`);
  };
  file('caBundle', false, 'config ca bundle');
  file('clientCert', true, 'client cert');
  file('clientKey', true, 'client key');
}

function unknownFields(o: Record<string, unknown>, known: string[], at: string, problems: string[]): void {
  for (const k of Object.keys(o)) if (!known.includes(k)) problems.push(`${at ? `${at}.` : ''}${k}: unknown field`);
}
