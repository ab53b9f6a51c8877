/** API priority and fairness: classification, seats and queues, and the upkeep of the stored configuration. */
export { Classifier, compileFlowSchema, flowOf, type CompiledSchema, type FlowRequest, type FlowUser } from './classifier.js';
export { Dispatcher, Level, systemClock, type Clock } from './dispatcher.js';
export { DEFAULT_QUEUE_WAIT_MS, FlowControl, type FlowControlOptions } from './flow-control.js';
export { divideConcurrency, levelSpecOf, type LevelLimits, type LevelSpec } from './levels.js';
export { autoUpdates, bootstrapAction, danglingStatus, DANGLING, type BootstrapAction } from './maintenance.js';
export { dealHand, flowHash } from './shuffle-shard.js';
