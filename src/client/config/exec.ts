/**
 * Exec credential plugins (spec 2.10, 5.6): the client runs a command that prints an `ExecCredential`
 * whose status carries a bearer token or a client certificate and key. The answer lives only in memory,
 * cached until its expiry, until a 401 invalidates it, or until the process exits; one run at a time.
 */
import { spawn } from 'node:child_process';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { CLIENT_AUTHENTICATION_GROUP, EXEC_INFO_ENV } from '../../api/naming.js';
import { isObject } from '../../api/types.js';
import type { CredentialSource, Credentials } from '../contract.js';
import type { Now } from './credentials.js';
import type { ClientEnv } from './load.js';
import type { ExecConfig } from './model.js';

export const EXEC_API_VERSIONS: readonly string[] = [`${CLIENT_AUTHENTICATION_GROUP}/v1`, `${CLIENT_AUTHENTICATION_GROUP}/v1beta1`];
export const EXEC_KIND = 'ExecCredential';
export type InteractiveMode = 'Never' | 'IfAvailable' | 'Always';
const MODES: readonly string[] = ['Never', 'IfAvailable', 'Always'];
/** A plugin with no terminal to talk to must answer within this long (a person typing has no limit). */
export const DEFAULT_EXEC_TIMEOUT_MS = 60_000;
const MAX_OUTPUT = 4 << 20;

/** `spec.cluster` of the ExecCredential, in the spelling of spec 2.10. */
export interface ExecClusterInfo {
  server: string;
  'tls-server-name'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'certificate-authority-data'?: string;
  'proxy-url'?: string;
  'disable-compression'?: boolean;
  config?: unknown;
}

/** An exec entry that passed the checks of {@link checkExecConfig}. */
export interface CheckedExecConfig {
  command: string;
  args: string[];
  env: { name: string; value: string }[];
  apiVersion: string;
  installHint?: string;
  provideClusterInfo: boolean;
  interactiveMode: InteractiveMode;
}

/** The rules the reference checks before using a user's exec entry; `where` names the user. */
export function checkExecConfig(exec: ExecConfig, where: string): CheckedExecConfig {
  const fail = (field: string, rule: string): never => {
    throw new Error(`${where}: exec.${field}: ${rule}`);
  };
  if (!exec.command) fail('command', 'must be given to use an exec credential plugin');
  if (!exec.apiVersion) fail('apiVersion', `must be given (one of ${EXEC_API_VERSIONS.join(', ')})`);
  if (!EXEC_API_VERSIONS.includes(exec.apiVersion!)) fail('apiVersion', `"${exec.apiVersion}" is not supported (use one of ${EXEC_API_VERSIONS.join(', ')})`);
  (exec.env ?? []).forEach((e, i) => e.name === '' && fail(`env[${i}].name`, 'must not be empty'));
  let mode = exec.interactiveMode;
  if (mode === undefined || mode === '') {
    // v1 makes the choice explicit; v1beta1 defaults to using a terminal when there is one.
    if (exec.apiVersion!.endsWith('/v1')) fail('interactiveMode', `must be given with ${exec.apiVersion} (Never, IfAvailable or Always)`);
    mode = 'IfAvailable';
  }
  if (!MODES.includes(mode)) fail('interactiveMode', `"${mode}" is not one of Never, IfAvailable, Always`);
  const out: CheckedExecConfig = {
    command: exec.command!,
    args: exec.args ?? [],
    env: exec.env ?? [],
    apiVersion: exec.apiVersion!,
    provideClusterInfo: exec.provideClusterInfo === true,
    interactiveMode: mode as InteractiveMode,
  };
  if (exec.installHint) out.installHint = exec.installHint;
  return out;
}

export interface ExecSourceOptions {
  /** Names the plugin's user in errors. */
  userName: string;
  /** Given when the plugin asked for cluster information (`provideClusterInfo`). */
  cluster?: ExecClusterInfo;
  /** The environment the plugin inherits (process.env by default). */
  env?: ClientEnv;
  stdinIsTerminal?: boolean;
  timeoutMs?: number;
  now?: Now;
  /** Where an interactive plugin's prompts (its stderr) go; process.stderr by default. */
  promptOutput?: NodeJS.WritableStream;
}

interface Cached {
  creds: Credentials;
  expiresAt?: number;
}

/** Credentials from an exec plugin; see the file comment for the caching rules. */
export class ExecCredentialSource implements CredentialSource {
  private cached: Cached | undefined;
  private running: Promise<Credentials> | undefined;
  private readonly now: Now;
  private readonly label: string;

  constructor(
    readonly exec: CheckedExecConfig,
    private readonly opts: ExecSourceOptions,
  ) {
    this.now = opts.now ?? Date.now;
    this.label = `exec plugin "${exec.command}" of user "${opts.userName}"`;
  }

  get(): Credentials | Promise<Credentials> {
    const c = this.cached;
    if (c && (c.expiresAt === undefined || this.now() <= c.expiresAt)) return c.creds;
    return (this.running ??= this.run().finally(() => (this.running = undefined)));
  }

  /**
   * Drops the cached answer so that the plugin runs again. Given the credentials a 401 came back for, it
   * does nothing when they are already replaced, so concurrent 401s cause one run, not one each.
   */
  invalidate(failed?: Credentials): void {
    if (failed !== undefined && this.cached !== undefined && !sameCredentials(failed, this.cached.creds)) return;
    this.cached = undefined;
  }

  private interactive(): boolean {
    const terminal = this.opts.stdinIsTerminal ?? process.stdin.isTTY === true;
    switch (this.exec.interactiveMode) {
      case 'Never':
        return false;
      case 'IfAvailable':
        return terminal;
      case 'Always':
        if (!terminal) throw new Error(`${this.label}: needs a terminal (interactiveMode Always) but standard input is not one`);
        return true;
    }
  }

  private async run(): Promise<Credentials> {
    const interactive = this.interactive();
    const spec: Record<string, unknown> = { interactive };
    if (this.exec.provideClusterInfo && this.opts.cluster) spec.cluster = this.opts.cluster;
    const info = { apiVersion: this.exec.apiVersion, kind: EXEC_KIND, spec };
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(this.opts.env ?? process.env)) if (v !== undefined) env[k] = v;
    for (const e of this.exec.env) env[e.name] = e.value;
    env[EXEC_INFO_ENV] = JSON.stringify(info);
    const { code, signal, stdout, stderr, timedOut } = await this.spawnPlugin(env, interactive);
    if (timedOut) throw new Error(`${this.label}: gave no answer within ${(this.timeout(interactive) ?? 0) / 1000}s and was stopped`);
    if (code !== 0) {
      const why = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      const said = stderr.trim();
      throw new Error(`${this.label}: ${why}${said ? `: ${said}` : ''}`);
    }
    const parsed = this.parseAnswer(stdout);
    this.cached = parsed;
    return parsed.creds;
  }

  private timeout(interactive: boolean): number | undefined {
    if (this.opts.timeoutMs !== undefined) return this.opts.timeoutMs > 0 ? this.opts.timeoutMs : undefined;
    return interactive ? undefined : DEFAULT_EXEC_TIMEOUT_MS;
  }

  private spawnPlugin(env: Record<string, string>, interactive: boolean) {
    return new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; timedOut: boolean }>((resolvePromise, reject) => {
      const child = spawn(this.exec.command, this.exec.args, { env, stdio: [interactive ? 'inherit' : 'ignore', 'pipe', 'pipe'] });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let outSize = 0;
      let errSize = 0;
      let timedOut = false;
      const limit = this.timeout(interactive);
      const timer = limit === undefined ? undefined : setTimeout(() => ((timedOut = true), child.kill('SIGKILL')), limit);
      child.stdout.on('data', (b: Buffer) => {
        outSize += b.length;
        if (outSize <= MAX_OUTPUT) out.push(b);
      });
      child.stderr.on('data', (b: Buffer) => {
        if (interactive) (this.opts.promptOutput ?? process.stderr).write(b);
        errSize += b.length;
        if (errSize <= 64 << 10) err.push(b);
      });
      child.on('error', (e: NodeJS.ErrnoException) => {
        if (timer) clearTimeout(timer);
        if (e.code === 'ENOENT') {
          const hint = this.exec.installHint ? `\n${this.exec.installHint}` : '';
          reject(new Error(`${this.label}: executable "${this.exec.command}" was not found (credential plugin not installed?)${hint}`));
        } else reject(new Error(`${this.label}: cannot be started: ${e.message}`));
      });
      child.on('close', (code, signal) => {
        if (timer) clearTimeout(timer);
        resolvePromise({ code, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), timedOut });
      });
    });
  }

  /** Reads the plugin's answer. Messages never quote the output: it may hold the secret. */
  private parseAnswer(stdout: string): Cached {
    const fail = (rule: string): never => {
      throw new Error(`${this.label}: ${rule}`);
    };
    let doc: unknown;
    try {
      doc = JSON.parse(stdout);
    } catch {
      return fail(stdout.trim() === '' ? 'printed nothing (an ExecCredential in JSON was expected)' : 'did not print an ExecCredential in JSON');
    }
    if (!isObject(doc)) return fail('did not print an ExecCredential object');
    if (doc.apiVersion !== this.exec.apiVersion) fail(`answered apiVersion ${JSON.stringify(doc.apiVersion ?? '')}, but it is configured for ${this.exec.apiVersion}`);
    if (doc.kind !== EXEC_KIND) fail(`answered kind ${JSON.stringify(doc.kind ?? '')}, not ${EXEC_KIND}`);
    const status = doc.status;
    if (!isObject(status)) return fail('answered without a status');
    const str = (k: string): string | undefined => {
      const v = status[k];
      if (v === undefined || v === null || v === '') return undefined;
      if (typeof v !== 'string') fail(`status.${k} must be a string`);
      return v as string;
    };
    const token = str('token');
    const certPem = str('clientCertificateData');
    const keyPem = str('clientKeyData');
    if (token !== undefined && (certPem !== undefined || keyPem !== undefined)) fail('answered both a token and a client certificate; exactly one is allowed');
    if (token === undefined && certPem === undefined && keyPem === undefined) fail('answered neither status.token nor status.clientCertificateData and status.clientKeyData');
    if ((certPem === undefined) !== (keyPem === undefined)) fail('must answer status.clientCertificateData and status.clientKeyData together');
    const creds: Credentials = {};
    if (token !== undefined) creds.token = token;
    if (certPem !== undefined && keyPem !== undefined) {
      try {
        if (!new X509Certificate(certPem).checkPrivateKey(createPrivateKey(keyPem))) fail('answered a client key that does not match its certificate');
      } catch (e) {
        if ((e as Error).message.startsWith(this.label)) throw e;
        fail('answered a client certificate or key that is not valid PEM');
      }
      creds.certPem = certPem;
      creds.keyPem = keyPem;
    }
    const out: Cached = { creds };
    const expiry = status.expirationTimestamp;
    if (expiry !== undefined && expiry !== null && expiry !== '') {
      const at = typeof expiry === 'string' ? Date.parse(expiry) : NaN;
      if (Number.isNaN(at)) fail('answered a status.expirationTimestamp that is not an RFC 3339 time');
      out.expiresAt = at;
    }
    return out;
  }
}

function sameCredentials(a: Credentials, b: Credentials): boolean {
  return a.token === b.token && a.certPem === b.certPem && a.keyPem === b.keyPem;
}

/** One source per plugin configuration for the whole process, so every client shares its cached answer. */
const shared = new Map<string, ExecCredentialSource>();

export function sharedExecSource(exec: CheckedExecConfig, opts: ExecSourceOptions): ExecCredentialSource {
  const key = JSON.stringify([exec, opts.userName, opts.cluster ?? null, opts.timeoutMs ?? null, opts.stdinIsTerminal ?? null, opts.env ?? null]);
  let source = shared.get(key);
  if (!source) shared.set(key, (source = new ExecCredentialSource(exec, opts)));
  return source;
}
