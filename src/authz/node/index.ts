/** The Node authorization mode (reference behaviour): a node reads what its own pods need. */
export { NodeGraph } from './graph.js';
export { NodeAuthorizer } from './authorizer.js';
