/**
 * Builds the server's admission chain from its flags: the enabled plugins in the fixed order, each made by
 * its factory with its AdmissionConfiguration entry, after the internal plugins that always run.
 */
import { AdmissionChain } from './chain.js';
import { loadAdmissionConfiguration } from './config.js';
import { ORDERED_PLUGINS, PLUGIN_FACTORIES, resolvePlugins } from './plugins.js';
import type { AdmissionDeps, AdmissionPlugin } from './types.js';

export interface AdmissionOptions {
  /** `--enable-admission-plugins`: added to the default set. */
  enableAdmissionPlugins?: string[];
  /** `--disable-admission-plugins`: removed from it. */
  disableAdmissionPlugins?: string[];
  /** `--admission-control-config-file`. */
  admissionControlConfigFile?: string;
}

/** The enabled names and their configurations, checked without building anything (start-up validation). */
export function planAdmission(opts: AdmissionOptions): { names: string[]; configurations: Map<string, unknown> } {
  const names = resolvePlugins(opts.enableAdmissionPlugins, opts.disableAdmissionPlugins);
  const known = new Set(ORDERED_PLUGINS);
  const configurations = opts.admissionControlConfigFile ? loadAdmissionConfiguration(opts.admissionControlConfigFile, (n) => known.has(n)) : new Map<string, unknown>();
  return { names, configurations };
}

/**
 * The chain: `internal` first (they stand in for checks the reference does in validation, and are not
 * configurable), then the enabled plugins. A factory's error is a start-up error naming its plugin.
 */
export function buildAdmissionChain(opts: AdmissionOptions, deps: AdmissionDeps, internal: readonly AdmissionPlugin[] = []): AdmissionChain {
  const { names, configurations } = planAdmission(opts);
  const plugins = [...internal];
  for (const name of names) {
    const factory = PLUGIN_FACTORIES.get(name)!;
    try {
      plugins.push(factory(deps, configurations.get(name)));
    } catch (e) {
      const message = (e as Error).message;
      throw new Error(message.startsWith(`admission plugin ${name}`) ? message : `admission plugin ${name}: ${message}`);
    }
  }
  return new AdmissionChain(plugins);
}
