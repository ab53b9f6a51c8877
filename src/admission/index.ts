/** The admission folder's public surface (spec 1.6): the seam, the chain, the plugin registry and flags. */
export type {
  AdmissionDeps,
  AdmissionOperation,
  AdmissionPlugin,
  AdmissionPluginFactory,
  AdmissionRequest,
  AdmissionUser,
  AuthorizationCheck,
  GroupVersionKind,
  GroupVersionResource,
  ObjectReader,
} from './types.js';
export { AdmissionChain } from './chain.js';
export { buildAdmissionChain, planAdmission, type AdmissionOptions } from './build.js';
export { ADMISSION_CONFIG_VERSIONS, AdmissionConfigError, loadAdmissionConfiguration, parseAdmissionConfiguration } from './config.js';
export { DEFAULT_ON_PLUGINS, ORDERED_PLUGINS, PLUGIN_FACTORIES, resolvePlugins } from './plugins.js';
export { optionsFor, WriteAdmission, type WriteAttributes, type WriteOptionFields } from './write.js';
export { forbiddenFor } from './plugins/common.js';
