export { checkGatedFlags, FeatureGates, featureGatesUsage, gateNames, parseFeatureGateList, type GateState } from './feature-gates.js';
export { GROUP_GATES, KNOWN_GATES, UNAVAILABLE_GATES, type GateName, type GateSpec, type GateStage } from './known-gates.js';
