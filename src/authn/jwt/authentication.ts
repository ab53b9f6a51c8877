/**
 * What the server holds for JWT authentication: the current authenticators, swapped whole when
 * `--authentication-config` changes (spec 5.5: reloaded automatically). The file is watched, and also read
 * every few seconds in case a watch event is missed (editors and mounted volumes replace files by rename).
 * A valid new file takes effect at once; an invalid one is logged and the previous configuration stays.
 */
import { watch, readFileSync, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { AuthRequest, Authenticator, UserInfo } from '../types.js';
import { JwtAuthenticators, type TokenCacheOptions } from './authenticator.js';
import { loadAuthenticationConfiguration, type ValidationContext } from './config.js';
import { IssuerKeys, type IssuerKeysOptions } from './keys.js';
import type { JwtAuthenticatorConfig } from './types.js';
import { JwtVerifier } from './verifier.js';

export interface JwtAuthenticationOptions extends IssuerKeysOptions, TokenCacheOptions {
  /** How often the configuration file is read as a fallback to watch events. Default 3 s. */
  pollIntervalMs?: number;
}

/** Issuers whose keys can be shared between two configurations: same URLs, same CA. */
const keysIdentity = (c: JwtAuthenticatorConfig) => JSON.stringify([c.issuer.url, c.issuer.discoveryURL ?? '', c.issuer.certificateAuthority ?? '']);

export class JwtAuthentication implements Authenticator {
  private current: JwtAuthenticators;
  /**
   * Seconds since the epoch of the last successful automatic reload of the configuration file (undefined
   * until one happens). The metrics issue exports it as
   * apiserver_authentication_config_controller_automatic_reload_last_timestamp_seconds.
   */
  lastReloadTimestampSeconds: number | undefined;
  private watcher: FSWatcher | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private lastText: string | undefined;

  constructor(
    configs: readonly JwtAuthenticatorConfig[],
    private readonly options: JwtAuthenticationOptions = {},
  ) {
    this.current = this.build(configs, new Map());
  }

  authenticate(req: AuthRequest): UserInfo | undefined | Promise<UserInfo | undefined> {
    return this.current.authenticate(req);
  }

  /** The configurations in force (for tests and diagnostics). */
  get configs(): readonly JwtAuthenticatorConfig[] {
    return this.current.verifiers.map((v) => v.config);
  }

  /** Puts new configurations in force; issuers whose keys are already known keep them (no fetch gap). */
  apply(configs: readonly JwtAuthenticatorConfig[]): void {
    const old = new Map(this.current.verifiers.map((v) => [keysIdentity(v.config), v.keys]));
    this.current = this.build(configs, old);
    const kept = new Set(this.current.verifiers.map((v) => v.keys));
    for (const keys of old.values()) if (!kept.has(keys)) keys.stop();
  }

  /**
   * Follows `file` (already loaded and in force with `text`): each change is validated and either applied
   * or logged.
   */
  watchFile(file: string, text: string, ctx: ValidationContext): void {
    this.lastText = text;
    const check = () => this.reloadFrom(file, ctx);
    const soon = () => {
      clearTimeout(this.debounce);
      this.debounce = setTimeout(check, 50);
      this.debounce.unref();
    };
    try {
      // The directory, not the file: a file replaced by rename would leave a file watch on the old inode.
      this.watcher = watch(dirname(file), { persistent: false }, (_event, name) => {
        if (name === null || name === basename(file)) soon();
      });
      this.watcher.on('error', () => undefined); // the poll below still notices changes
    } catch {
      // Watching is an optimisation; polling alone still reloads.
    }
    this.pollTimer = setInterval(check, this.options.pollIntervalMs ?? 3000);
    this.pollTimer.unref();
  }

  stop(): void {
    this.watcher?.close();
    clearInterval(this.pollTimer);
    clearTimeout(this.debounce);
    for (const v of this.current.verifiers) v.keys.stop();
  }

  private reloadFrom(file: string, ctx: ValidationContext): void {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      if (this.lastText !== undefined) this.options.log?.(`--authentication-config: cannot read ${file}, keeping the current configuration: ${(e as Error).message}`);
      this.lastText = undefined;
      return;
    }
    if (text === this.lastText) return;
    this.lastText = text; // an invalid file is reported once, not at every poll
    let configs: JwtAuthenticatorConfig[];
    try {
      configs = loadAuthenticationConfiguration(file, ctx, () => text);
    } catch (e) {
      this.options.log?.(`${(e as Error).message} (keeping the current configuration)`);
      return;
    }
    this.apply(configs);
    this.lastReloadTimestampSeconds = Math.floor(Date.now() / 1000);
    this.options.log?.(`--authentication-config: reloaded ${file} (${configs.length} JWT authenticators)`);
  }

  private build(configs: readonly JwtAuthenticatorConfig[], reuse: ReadonlyMap<string, IssuerKeys>): JwtAuthenticators {
    const verifiers = configs.map((c) => {
      let keys = reuse.get(keysIdentity(c));
      if (!keys) {
        keys = new IssuerKeys(c.issuer, this.options);
        keys.start();
      }
      return new JwtVerifier(c, keys, this.options.now);
    });
    return new JwtAuthenticators(verifiers, this.options);
  }
}
