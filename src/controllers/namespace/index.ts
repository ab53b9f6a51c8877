/** The namespace controller: empties namespaces being deleted, through the API, then finalizes them. */
export { namespaceController, NAMESPACE_CONTROLLER, remainingContentDelay } from './controller.js';
export { deletionConditions, mergeConditions, DELETION_CONDITION_TYPES, type DeletionFindings, type NamespaceCondition } from './conditions.js';
export { selectDeletable, discoverDeletable, type DeletableResource } from './discovery.js';
