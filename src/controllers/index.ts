/** The controller manager and the built-in controllers (issue 19; spec 1.7, 2.12). */
export { controllerQueue, type ControllerContext, type ControllerDescriptor, type ControllerManagerSettings } from './contract.js';
export { ControllerManager, type ControllerManagerOptions, type ManagerLeaderElection } from './manager.js';
export { ALL_CONTROLLERS } from './registry.js';
export { ControllerManagerMetrics } from './metrics.js';
export { controllerSettings, DEFAULT_CONCURRENCY, type SettingsInput } from './settings.js';
export { startManagerServer, delegatedAuthorizer, healthReport, DEFAULT_ALWAYS_ALLOW_PATHS, type HealthCheck, type RunningManagerServer } from './health.js';
export { ensureServiceAccount, ServiceAccountTokenSource, serviceAccountUser } from './service-account-credentials.js';
