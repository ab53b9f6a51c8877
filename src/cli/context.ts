/**
 * The CliContext every command gets: global flags → kubeconfig resolution → one client (created on first
 * use, so `--help` and the `config` commands never need a server), plus the printers and manifest reader.
 */
import type { OutgoingHttpHeaders } from 'node:http2';
import { Client, Discovery, Http2Transport, type KubeObject, type RawResponse, type RequestSpec } from '../client/index.js';
import type { OpenStream } from '../client/transport.js';
import { resolveClientConfig, type ClientConfigFlags, type Impersonation, type ResolvedClientConfig } from '../client/config/index.js';
import type { CliContext, CliIO, OutputFormat } from './contract.js';
import { readManifests } from './manifests.js';
import { parseOutputFormat } from './output/formats.js';
import { actionText, formatObjects } from './output/print.js';

/** The global flags as commander gives them (camel-cased long names). */
export interface GlobalFlags {
  kubeconfig?: string;
  context?: string;
  cluster?: string;
  user?: string;
  namespace?: string;
  server?: string;
  token?: string;
  certificateAuthority?: string;
  insecureSkipTlsVerify?: boolean;
  tlsServerName?: string;
  requestTimeout?: string;
  as?: string;
  asGroup?: string[];
  asUid?: string;
  v?: number;
}

export const USER_AGENT = 'orchctl';

/** Impersonation headers (the reference's names), or none. */
export function impersonationHeaders(imp: Impersonation | undefined): OutgoingHttpHeaders {
  if (!imp) return {};
  const h: OutgoingHttpHeaders = { 'impersonate-user': imp.user };
  if (imp.uid) h['impersonate-uid'] = imp.uid;
  if (imp.groups && imp.groups.length > 0) h['impersonate-group'] = imp.groups;
  for (const [k, values] of Object.entries(imp.extra ?? {})) h[`impersonate-extra-${encodeURIComponent(k)}`] = values;
  return h;
}

/**
 * The transport with what global flags add to every request: impersonation headers, and `-v` request
 * logging (level 6: method, URL, status, time; 8: also the response body, cut short). Never the token.
 */
class CliTransport extends Http2Transport {
  constructor(
    connection: ConstructorParameters<typeof Http2Transport>[0],
    private readonly extraHeaders: OutgoingHttpHeaders,
    private readonly verbosity: number,
    private readonly log: (line: string) => void,
  ) {
    super(connection);
  }

  private withHeaders(spec: RequestSpec): RequestSpec {
    return Object.keys(this.extraHeaders).length === 0 ? spec : { ...spec, headers: { ...this.extraHeaders, ...spec.headers } };
  }

  private url(spec: RequestSpec): string {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(spec.query ?? {})) if (v !== undefined) q.set(k, String(v));
    const qs = q.toString();
    return `${this.connection.server}${spec.path}${qs ? `?${qs}` : ''}`;
  }

  override async request(spec: RequestSpec): Promise<RawResponse> {
    if (this.verbosity < 6) return super.request(this.withHeaders(spec));
    const started = performance.now();
    try {
      const res = await super.request(this.withHeaders(spec));
      this.log(`${spec.method} ${this.url(spec)} ${res.status} in ${Math.round(performance.now() - started)} milliseconds`);
      if (this.verbosity >= 8) this.log(`Response Body: ${res.body.toString('utf8').slice(0, 1024)}`);
      return res;
    } catch (e) {
      this.log(`${spec.method} ${this.url(spec)} failed after ${Math.round(performance.now() - started)} milliseconds: ${(e as Error).message}`);
      throw e;
    }
  }

  override async open(spec: RequestSpec): Promise<OpenStream> {
    const res = await super.open(this.withHeaders(spec));
    if (this.verbosity >= 6) this.log(`${spec.method} ${this.url(spec)} ${res.status} (stream)`);
    return res;
  }
}

/** A Client whose transport (and discovery over it) is a CliTransport. */
class CliClient extends Client {
  constructor(connection: ConstructorParameters<typeof Client>[0], transport: CliTransport) {
    super(connection);
    // The base constructor made a plain transport (it opens nothing until used); use ours instead.
    Object.assign(this, { transport, discovery: new Discovery(transport) });
  }
}

/** Commander's flag values into the resolver's flags. */
export function clientConfigFlags(g: GlobalFlags): ClientConfigFlags {
  const f: ClientConfigFlags = {};
  const copy = <K extends keyof ClientConfigFlags>(k: K, v: ClientConfigFlags[K] | undefined) => {
    if (v !== undefined) f[k] = v;
  };
  copy('kubeconfig', g.kubeconfig);
  copy('context', g.context);
  copy('cluster', g.cluster);
  copy('user', g.user);
  copy('namespace', g.namespace);
  copy('server', g.server);
  copy('token', g.token);
  copy('certificateAuthority', g.certificateAuthority);
  copy('insecureSkipTlsVerify', g.insecureSkipTlsVerify);
  copy('tlsServerName', g.tlsServerName);
  copy('requestTimeout', g.requestTimeout);
  copy('as', g.as);
  copy('asGroups', g.asGroup);
  copy('asUid', g.asUid);
  return f;
}

export class DefaultCliContext implements CliContext {
  private resolved: ResolvedClientConfig | undefined;
  private created: Client | undefined;

  constructor(
    readonly io: CliIO,
    /** The program's parsed global flags (read when first needed: commander fills them while parsing). */
    private readonly flags: () => GlobalFlags,
  ) {}

  globals(): Record<string, unknown> {
    return { ...this.flags() };
  }

  /** The resolved configuration (files read once). */
  config(): ResolvedClientConfig {
    if (!this.resolved) {
      this.resolved = resolveClientConfig(clientConfigFlags(this.flags()), this.io.env, { stdinIsTerminal: this.io.stdinIsTTY, userAgent: USER_AGENT });
    }
    return this.resolved;
  }

  async client(): Promise<Client> {
    if (!this.created) {
      const cfg = this.config();
      const transport = new CliTransport(cfg.connection, impersonationHeaders(cfg.impersonate), this.flags().v ?? 0, (line) => this.io.err(`${line}\n`));
      this.created = new CliClient(cfg.connection, transport);
    }
    return this.created;
  }

  async namespace(): Promise<string> {
    return this.config().namespace;
  }

  outputFormat(o: string | undefined, extra?: { noHeaders?: boolean; showLabels?: boolean; labelColumns?: string[] }): OutputFormat {
    return parseOutputFormat(o, extra);
  }

  async print(objects: KubeObject[], format: OutputFormat, opts: { asList?: boolean; resource?: { plural: string; group: string } } = {}): Promise<void> {
    const text = formatObjects(objects, format, opts);
    if (text) this.io.out(text);
  }

  printAction(obj: KubeObject, action: string, resource: { plural: string; group: string }, format?: OutputFormat): void {
    this.io.out(actionText(obj, action, resource, format));
  }

  readManifests(paths: string[], recursive = false): Promise<{ source: string; object: KubeObject }[]> {
    return readManifests(paths, recursive, () => this.io.readStdin());
  }

  /** Closes the client's connection so the process can exit. */
  close(): void {
    this.created?.close();
  }
}
