/**
 * Admission webhooks (admissionregistration/v1 MutatingWebhookConfiguration and
 * ValidatingWebhookConfiguration). The configurations are listed from the server's object reader (the
 * watch cache) at most CONFIGURATION_MAX_AGE_MS apart, so a change applies on every server sharing the
 * store within a fraction of a second; compiled forms are reused while an object's resourceVersion stays.
 */
import { ADMISSIONREGISTRATION_GROUP } from '../../api/naming.js';
import type { AdmissionDeps, AdmissionPluginFactory } from '../types.js';
import { ConfigurationSource, type ConfigurationLister } from './compile.js';
import { createMutatingPlugin, MUTATING_PLUGIN_NAME } from './mutating.js';
import { createValidatingPlugin, VALIDATING_PLUGIN_NAME } from './validating.js';

export { closeWebhookConnections, MAX_ANSWER_BYTES } from './client.js';
export { CONFIGURATION_MAX_AGE_MS } from './compile.js';
export { MUTATING_PLUGIN_NAME, VALIDATING_PLUGIN_NAME };

const lister = (deps: AdmissionDeps, resource: string): ConfigurationLister => () => deps.objects.list(ADMISSIONREGISTRATION_GROUP, resource);

/**
 * The reference's WebhookAdmissionConfiguration (a kubeconfig of credentials for calling webhooks) is not
 * supported: an entry with any setting is refused rather than ignored.
 */
function refuseConfiguration(name: string, configuration: unknown): void {
  if (configuration === undefined || configuration === null) return;
  const keys = typeof configuration === 'object' ? Object.keys(configuration).filter((k) => k !== 'apiVersion' && k !== 'kind') : ['?'];
  if (keys.length > 0) throw new Error(`admission plugin ${name}: configuration is not supported (got ${keys.join(', ')})`);
}

export const mutatingWebhookPlugin: AdmissionPluginFactory = (deps, configuration) => {
  refuseConfiguration(MUTATING_PLUGIN_NAME, configuration);
  return createMutatingPlugin(deps, new ConfigurationSource(lister(deps, 'mutatingwebhookconfigurations'), true));
};

export const validatingWebhookPlugin: AdmissionPluginFactory = (deps, configuration) => {
  refuseConfiguration(VALIDATING_PLUGIN_NAME, configuration);
  return createValidatingPlugin(deps, new ConfigurationSource(lister(deps, 'validatingwebhookconfigurations'), false));
};
