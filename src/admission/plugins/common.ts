/** Small pieces the built-in plugins share: the reference's Forbidden form, and "takes no configuration". */
import { StatusError } from '../../errors/index.js';
import type { AdmissionRequest } from '../types.js';

/**
 * The reference's admission Forbidden: `<resource>[.<group>] "<name>" is forbidden: <why>`, with the
 * request's resource and name in the details (and causes when given).
 */
export function forbiddenFor(req: AdmissionRequest, why: string, causes?: { reason: string; message: string; field?: string }[]): StatusError {
  const r = req.resource;
  const qualified = r.group ? `${r.resource}.${r.group}` : r.resource;
  return new StatusError(403, 'Forbidden', `${qualified} "${req.name}" is forbidden: ${why}`, {
    name: req.name,
    ...(r.group ? { group: r.group } : {}),
    kind: r.resource,
    ...(causes ? { causes } : {}),
  });
}

import { PluginConfigurationError } from '../../config/plugin-error.js';

export { PluginConfigurationError };

export function noConfiguration(plugin: string, configuration: unknown): void {
  if (configuration !== undefined) throw new PluginConfigurationError(`plugin ${plugin} takes no configuration, but one was given`);
}
