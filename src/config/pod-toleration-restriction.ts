/**
 * PodTolerationRestriction's configuration document: `Configuration`
 * (`podtolerationrestriction.admission` group, v1alpha1) with `default` and `whitelist` lists of
 * tolerations. Each toleration is checked with the API's toleration rules, which use label-key validation
 * from a layer above this one, so the plugin passes that decoder in.
 */
import { POD_TOLERATION_RESTRICTION_CONFIG_GROUP } from '../api/naming.js';
import { isObject } from '../api/types.js';
import { PluginConfigurationError } from './plugin-error.js';

export const POD_TOLERATION_RESTRICTION_CONFIG_API_VERSION = `${POD_TOLERATION_RESTRICTION_CONFIG_GROUP}/v1alpha1`;
export const POD_TOLERATION_RESTRICTION_CONFIG_KIND = 'Configuration';
const TOP_FIELDS: ReadonlySet<string> = new Set(['apiVersion', 'kind', 'default', 'whitelist']);

type Toleration = Record<string, unknown>;

export interface TolerationRestrictionConfig {
  readonly default: readonly Toleration[];
  readonly whitelist: readonly Toleration[];
}

/** Decodes and checks one field's list of tolerations; throws an Error naming the field on a bad one. */
export type TolerationListDecoder = (raw: unknown, field: string) => Toleration[];

/** The plugin's configuration; none given is empty lists. Throws a PluginConfigurationError listing every problem. */
export function parseTolerationRestrictionDocument(raw: unknown, decode: TolerationListDecoder): TolerationRestrictionConfig {
  if (raw === undefined || raw === null) return { default: [], whitelist: [] };
  if (!isObject(raw)) throw new PluginConfigurationError('the configuration must be an object (a Configuration)');
  const errs: string[] = [];
  for (const k of Object.keys(raw)) if (!TOP_FIELDS.has(k)) errs.push(`${k}: unknown field`);
  if (raw.apiVersion !== POD_TOLERATION_RESTRICTION_CONFIG_API_VERSION) {
    errs.push(`apiVersion: Unsupported value ${JSON.stringify(raw.apiVersion ?? '')}: supported values: "${POD_TOLERATION_RESTRICTION_CONFIG_API_VERSION}"`);
  }
  if (raw.kind !== POD_TOLERATION_RESTRICTION_CONFIG_KIND) {
    errs.push(`kind: Unsupported value ${JSON.stringify(raw.kind ?? '')}: supported values: "${POD_TOLERATION_RESTRICTION_CONFIG_KIND}"`);
  }
  const list = (field: 'default' | 'whitelist'): Toleration[] => {
    try {
      return decode(raw[field], field);
    } catch (e) {
      errs.push((e as Error).message);
      return [];
    }
  };
  const config = { default: list('default'), whitelist: list('whitelist') };
  if (errs.length > 0) throw new PluginConfigurationError(errs.join(', '));
  return config;
}
