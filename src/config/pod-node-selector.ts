/**
 * PodNodeSelector's configuration document: `podNodeSelectorPluginConfig`, a map of namespace (or
 * `clusterDefaultNodeSelector`) to a `k1=v1,k2=v2` node selector. Label-key rules live in a layer above
 * this one, so the plugin passes its selector parser in.
 */
import { isObject } from '../api/types.js';
import { PluginConfigurationError } from './plugin-error.js';

export const POD_NODE_SELECTOR_CONFIG_FIELD = 'podNodeSelectorPluginConfig';
/** The configuration key of the selector namespaces without the annotation get. */
export const CLUSTER_DEFAULT_KEY = 'clusterDefaultNodeSelector';

export type NodeSelectorLabels = Readonly<Record<string, string>>;

/** Parses one selector's text; throws an Error saying why it is not one. */
export type SelectorParser = (selector: string) => Record<string, string>;

/** Namespace (or the cluster default key) → its parsed labels; throws a PluginConfigurationError listing every problem. */
export function parseNodeSelectorDocument(raw: unknown, parseSelector: SelectorParser): Map<string, NodeSelectorLabels> {
  const field = POD_NODE_SELECTOR_CONFIG_FIELD;
  const out = new Map<string, NodeSelectorLabels>();
  if (raw === undefined || raw === null) return out;
  if (!isObject(raw)) throw new PluginConfigurationError(`the configuration must be an object with ${field}`);
  const errs: string[] = [];
  let selectors: unknown;
  for (const [k, v] of Object.entries(raw)) {
    // The reference decodes this field without regard to case.
    if (k.toLowerCase() === field.toLowerCase()) selectors = v;
    else if (k !== 'apiVersion' && k !== 'kind') errs.push(`${k}: unknown field`);
  }
  if (selectors !== undefined && selectors !== null && !isObject(selectors)) errs.push(`${field}: must be a map of namespace to node selector`);
  for (const [ns, sel] of Object.entries(isObject(selectors) ? selectors : {})) {
    const at = `${field}.${ns}`;
    if (typeof sel !== 'string') {
      errs.push(`${at}: must be a string of key=value pairs`);
      continue;
    }
    try {
      out.set(ns, parseSelector(sel));
    } catch (e) {
      errs.push(`${at}: ${(e as Error).message}`);
    }
  }
  if (errs.length > 0) throw new PluginConfigurationError(errs.join(', '));
  return out;
}
